package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// A run armed ahead cannot mount the caller's writable directories (an
// isolate box): they are known only when the caller comes, and a
// container's mounts are fixed when it is made. It mounts empty
// directories of its own instead ("exchange" directories); the caller's
// are copied in before the go, and what the program changed there is
// copied back once it ended. Only the program's changes go back: a file
// the caller wrote meanwhile (the stdout file a front fills) is left as is.

// errNotCopyable says a directory holds what only a mount can share: a
// named pipe (a live exchange between processes) or a socket. Such a run
// goes cold, with the caller's directory mounted.
var errNotCopyable = errors.New("holds a named pipe or a socket")

// entryState is what a copied entry was when it went in.
type entryState struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
	link  string
}

func stateOf(p string, info fs.FileInfo) (entryState, error) {
	s := entryState{mode: info.Mode(), size: info.Size(), mtime: info.ModTime()}
	if info.Mode()&fs.ModeSymlink != 0 {
		var err error
		s.link, err = os.Readlink(p)
		return s, err
	}
	return s, nil
}

func (s entryState) same(o entryState) bool {
	return s.mode == o.mode && s.link == o.link && (s.mode.IsDir() || s.size == o.size && s.mtime.Equal(o.mtime))
}

// walkStates calls fn for every entry under root, root itself first (rel
// "."), parents before children, links not followed.
func walkStates(root string, fn func(rel, p string, st entryState) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		st, err := stateOf(p, info)
		if err != nil {
			return err
		}
		return fn(rel, p, st)
	})
}

// dirModes are directory modes set once everything is in place: a 0555
// directory must be filled first. Children come after parents, so they
// are set in reverse.
type dirModes struct {
	rels  []string
	modes []fs.FileMode
}

func (d *dirModes) add(rel string, mode fs.FileMode) {
	d.rels, d.modes = append(d.rels, rel), append(d.modes, mode.Perm())
}

func (d *dirModes) set(root string) error {
	for i := len(d.rels) - 1; i >= 0; i-- {
		if err := os.Chmod(filepath.Join(root, d.rels[i]), d.modes[i]); err != nil {
			return err
		}
	}
	return nil
}

// copyIn copies what src holds into dst, an empty directory, and returns
// what went in by path relative to both: directories and regular files
// with their modes and modification times, symbolic links as links.
func copyIn(dst, src string) (map[string]entryState, error) {
	in := map[string]entryState{}
	var dirs dirModes
	err := walkStates(src, func(rel, p string, st entryState) error {
		in[rel] = st
		if st.mode.IsDir() {
			dirs.add(rel, st.mode)
		}
		if rel == "." {
			return nil
		}
		return copyEntry(filepath.Join(dst, rel), p, st)
	})
	if err != nil {
		return nil, err
	}
	return in, dirs.set(dst)
}

// copyBack applies to dst what the program changed in src since copyIn
// recorded in: entries new or changed are copied, entries gone are
// removed; the rest of dst is left alone. Nothing in src is followed.
func copyBack(dst, src string, in map[string]entryState) error {
	seen := map[string]bool{}
	var dirs dirModes
	err := walkStates(src, func(rel, p string, st entryState) error {
		seen[rel] = true
		was, ok := in[rel]
		if rel == "." || ok && was.same(st) {
			return nil
		}
		if st.mode.IsDir() {
			dirs.add(rel, st.mode)
			if ok && was.mode.IsDir() {
				return nil // only its mode changed
			}
		}
		target := filepath.Join(dst, rel)
		if err := os.RemoveAll(target); err != nil {
			return err
		}
		err := copyEntry(target, p, st)
		if errors.Is(err, errNotCopyable) {
			return nil // a pipe or socket the program left: nothing to give back
		}
		return err
	})
	if err != nil {
		return err
	}
	for rel := range in {
		if !seen[rel] {
			if err := os.RemoveAll(filepath.Join(dst, rel)); err != nil {
				return err
			}
		}
	}
	return dirs.set(dst)
}

// copyEntry makes dst, which does not exist, a copy of src as st says it
// is. A directory is made writable by its maker; the caller sets its mode.
func copyEntry(dst, src string, st entryState) error {
	switch {
	case st.mode.IsDir():
		return os.Mkdir(dst, 0o700)
	case st.mode&fs.ModeSymlink != 0:
		return os.Symlink(st.link, dst)
	case st.mode&fs.ModeNamedPipe != 0, st.mode&fs.ModeSocket != 0, !st.mode.IsRegular():
		return fmt.Errorf("%s %w", src, errNotCopyable)
	}
	in, err := os.OpenFile(src, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	err = errors.Join(err, out.Chmod(st.mode.Perm()), out.Close())
	if err != nil {
		return err
	}
	return os.Chtimes(dst, st.mtime, st.mtime)
}
