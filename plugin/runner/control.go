package runner

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// control is a shimmed run's control pipe: a FIFO on the host, bind-mounted
// at bindings.ControlPath, that the shim makes its stdin (shim --control).
// The go goes down it, then StdinStream. It replaces the stdin of Podman's
// attach, whose server takes ctrl-p ctrl-q for its detach keys (no request
// can turn them off): it held a lone ctrl-p back and ended the stream at
// ctrl-q, and an interactor's bytes must reach the program exactly.
type control struct {
	dir  string
	path string
	f    *os.File
}

// newControl makes the FIFO in its own directory of $TMPDIR (the host
// directory podjail shares with Podman, see PODJAIL_HOST_DIR), the runner's
// alone (0700, 0600: the container's root is the runner's user, rootless
// too). It is opened read-write: the open waits for no reader, the shim's
// open waits for no writer, and the shim reads EOF once this end is closed.
func newControl() (*control, error) {
	dir, err := os.MkdirTemp("", "podjail-control-")
	if err != nil {
		return nil, fmt.Errorf("the run's control pipe: %w", err)
	}
	c := &control{dir: dir, path: filepath.Join(dir, "control")}
	if err := unix.Mkfifo(c.path, 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("the run's control pipe: %w", err)
	}
	if c.f, err = os.OpenFile(c.path, os.O_RDWR, 0); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("the run's control pipe: %w", err)
	}
	return c, nil
}

// close ends the program's stdin (a write under way returns) and removes
// the FIFO; calling it again does nothing.
func (c *control) close() {
	_ = c.f.Close()
	_ = os.RemoveAll(c.dir)
}
