package runner

// The mechanism's files in and out of a container (RunRequest.Copy): the
// tar copied in through Podman before the start, the files copied out of
// the stopped container. plugin.Runner.RunFiles (plugin/build.go) fills Copy in.

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/podjail/podjail/bindings"
)

// maxArtefactBytes bounds one file copied out.
const maxArtefactBytes = 256 << 20

// sourceTar is a tar stream of workDir (absolute) holding the files, in
// name order, to be copied in at /. The directory is world-writable:
// Podman's copy makes the container's user (root, for the shim) its
// owner, and the compiler runs as 65534.
func sourceTar(workDir string, files map[string][]byte) io.Reader {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dir := strings.TrimPrefix(path.Clean(workDir), "/") + "/"
	now := time.Now()
	_ = tw.WriteHeader(&tar.Header{Name: dir, Typeflag: tar.TypeDir, Mode: 0o777, Uid: 65534, Gid: 65534, ModTime: now})
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		_ = tw.WriteHeader(&tar.Header{Name: dir + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), Uid: 65534, Gid: 65534, ModTime: now})
		_, _ = tw.Write(data)
	}
	_ = tw.Close()
	return &b
}

// copyArtefact copies one regular file out of a stopped container.
func copyArtefact(ctx context.Context, rt bindings.Runtime, id, src, dst string) error {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := rt.CopyOut(ctx, id, src, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	err := extractOne(pr, dst)
	// Read the stream to its end so the copy finishes rather than fails.
	_, _ = io.Copy(io.Discard, pr)
	if cerr := <-done; cerr != nil && err == nil {
		return cerr
	}
	return err
}

func extractOne(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("%w: %s is not in the copy", bindings.ErrNotFound, filepath.Base(dst))
		}
		if err != nil {
			return fmt.Errorf("read artefact archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > maxArtefactBytes {
			return fmt.Errorf("artefact %s is %d bytes, over %d", h.Name, h.Size, maxArtefactBytes)
		}
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}
