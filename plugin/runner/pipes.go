package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// pipes are a shimmed run's two FIFOs on the host, bind-mounted into its
// container, that take the program's stdio off Podman's attach:
//
//   - the control pipe (bindings.ControlPath), which the shim makes its
//     stdin (shim --control): the go, then StdinStream. The server of
//     Podman's attach takes ctrl-p ctrl-q on stdin for its detach keys (no
//     request can turn them off): it held a lone ctrl-p back and ended the
//     stream at ctrl-q, and an interactor's bytes must reach the program
//     exactly;
//   - the stdout pipe (bindings.StdoutPath), which the shim makes the
//     program's stdout (shim --stdout): the runner reads it straight, at a
//     pipe's rate, where attach carried it through conmon and the Podman
//     service at a tenth of it (podjail bench's stream).
//
// The attach keeps the shim's stderr: its armed line and its report.
type pipes struct {
	dir                     string
	controlPath, stdoutPath string
	control, stdout         *os.File
}

// newPipes makes the FIFOs in their own directory of $TMPDIR (the host
// directory podjail shares with Podman, see PODJAIL_HOST_DIR), the
// runner's alone (0700, 0600: the container's root is the runner's user,
// rootless too), and opens the runner's ends so that the shim's opens do
// not wait: the control pipe read-write (its open waits for no reader; the
// shim reads EOF once it is closed), the stdout pipe for reading, without
// waiting for a writer. Read nothing from stdout before the shim has opened
// it (its armed line): until then a read finds no writer, which is EOF.
func newPipes() (_ *pipes, err error) {
	dir, err := os.MkdirTemp("", "podjail-pipes-")
	if err != nil {
		return nil, fmt.Errorf("the run's pipes: %w", err)
	}
	p := &pipes{dir: dir, controlPath: filepath.Join(dir, "control"), stdoutPath: filepath.Join(dir, "stdout")}
	defer func() {
		if err != nil {
			p.close()
			err = fmt.Errorf("the run's pipes: %w", err)
		}
	}()
	for _, path := range []string{p.controlPath, p.stdoutPath} {
		if err := unix.Mkfifo(path, 0o600); err != nil {
			return nil, err
		}
	}
	if p.control, err = os.OpenFile(p.controlPath, os.O_RDWR, 0); err != nil {
		return nil, err
	}
	fd, err := unix.Open(p.stdoutPath, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	p.stdout = os.NewFile(uintptr(fd), p.stdoutPath) // non-blocking: read through Go's poller
	return p, nil
}

// closeControl ends the program's stdin: a write under way returns.
func (p *pipes) closeControl() {
	if p.control != nil {
		_ = p.control.Close()
	}
}

// close closes the runner's ends and removes the FIFOs; calling it again
// does nothing.
func (p *pipes) close() {
	p.closeControl()
	if p.stdout != nil {
		_ = p.stdout.Close()
	}
	_ = os.RemoveAll(p.dir)
}

// readStdout copies the program's stdout into dst until every writer has
// closed it (the program and the shim have ended), or the pipe is closed.
func (p *pipes) readStdout(dst io.Writer) error {
	_, err := io.Copy(dst, p.stdout)
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
