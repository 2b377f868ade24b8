package sandbox

// Host paths a Run or a Judge names. A caller with the service's own
// rights (root, the service's user, or the judge that started its plugin)
// has them used as named. Any other caller (a member of serve's --group)
// has them read once, with its own rights, into the server's private
// directory; only that copy is used after, so a link swapped in later, or
// a file only the service could read, gets it nothing.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/podjail/podjail/internal/asuser"
	"github.com/podjail/podjail/internal/capped"
)

// DefaultMaxProblemBytes is ServerOptions.MaxProblemBytes's default: 1 GiB
// of a problem's files copied for a caller of another user.
const DefaultMaxProblemBytes = 1 << 30

// maxProblemEntries bounds the files and directories of such a copy.
const maxProblemEntries = 100_000

// asCaller starts the thread that reads with the rights of ctx's caller,
// or says (nil, nil) that the caller's paths are used as named.
func asCaller(ctx context.Context, what string) (*asuser.Thread, error) {
	p, direct := mayNameHostPaths(ctx)
	if direct {
		return nil, nil
	}
	t, err := asuser.Start(asuser.Lookup(p.UID, p.GID))
	if errors.Is(err, asuser.ErrNotPermitted) {
		return nil, Mark(fmt.Errorf("%s: this service runs as uid %d and cannot read host files with the rights of a caller of uid %d: send the data in the request instead, call a service of your own user, or work in your own process (--service none)", what, os.Geteuid(), p.UID), ErrPermissionDenied)
	}
	return t, err
}

// callerPathErr says why a path a caller named could not be used.
func callerPathErr(what string, err error) error {
	switch {
	case errors.Is(err, os.ErrPermission):
		return Mark(fmt.Errorf("%s: %w (this service reads it with your rights: make it readable by you)", what, err), ErrPermissionDenied)
	case errors.Is(err, asuser.ErrTooLarge):
		return invalid(fmt.Sprintf("%s: %v (raise the service's --max-problem-bytes, or make the problem smaller)", what, err))
	case errors.Is(err, os.ErrNotExist), errors.Is(err, asuser.ErrNotRegular):
		return invalid(fmt.Sprintf("%s: %v", what, err))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// runInput is the input file a Run uses for the path the caller named,
// and what removes it when it is a copy.
func (s *Server) runInput(ctx context.Context, path string) (string, func(), error) {
	t, err := asCaller(ctx, "run: input_path")
	if err != nil || t == nil {
		return path, func() {}, err
	}
	defer t.Close()
	if !filepath.IsAbs(path) {
		return "", nil, invalid(fmt.Sprintf("run: input_path %q is relative: a service has a working directory of its own, name the file by its absolute path", path))
	}
	f, err := t.Open(path)
	if err != nil {
		return "", nil, callerPathErr("run: input_path", err)
	}
	defer f.Close()
	copied, err := s.inputFrom(f, "run: input_path "+path)
	if err != nil {
		return "", nil, err
	}
	return copied, func() { _ = os.Remove(copied) }, nil
}

// problemDir is the problem directory a Judge loads for the one the
// caller named, and what removes it when it is a copy.
func (s *Server) problemDir(ctx context.Context, dir string) (string, func(), error) {
	t, err := asCaller(ctx, "judge: problem_dir")
	if err != nil || t == nil {
		return dir, func() {}, err
	}
	defer t.Close()
	if !filepath.IsAbs(dir) {
		return "", nil, invalid(fmt.Sprintf("judge: problem_dir %q is relative: a service has a working directory of its own, name the problem by its absolute path", dir))
	}
	holder, err := os.MkdirTemp(s.dir, "problem-")
	if err != nil {
		return "", nil, err
	}
	remove := func() { _ = os.RemoveAll(holder) }
	copied := filepath.Join(holder, filepath.Base(dir))
	if err := asuser.CopyTree(t, dir, copied, asuser.Limits{Bytes: s.maxProblem, Entries: maxProblemEntries}); err != nil {
		remove()
		return "", nil, callerPathErr("judge: problem_dir "+dir, err)
	}
	return copied, remove, nil
}

// inputFrom copies r, at most maxUpload bytes, to a new input file of the
// server's own, which the Podman service mounts (0600: the shim opens it
// as the container's root, which is this process's user).
func (s *Server) inputFrom(r io.Reader, what string) (string, error) {
	f, err := os.CreateTemp(s.dir, "input-")
	if err != nil {
		return "", err
	}
	w := &capped.Writer{Dst: f, Limit: s.maxUpload, Refuse: true}
	_, err = io.Copy(w, r)
	err = errors.Join(err, f.Close())
	switch {
	case w.Over():
		_ = os.Remove(f.Name())
		return "", invalid(fmt.Sprintf("%s: over this service's %d bytes of input", what, s.maxUpload))
	case err != nil:
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return f.Name(), nil
}
