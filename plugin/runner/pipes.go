package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// pipes are a shimmed run's three FIFOs on the host, bind-mounted into its
// container, that take its stdio off Podman's attach:
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
//     service at a tenth of it (podjail bench's stream);
//   - the status pipe (bindings.StatusPath), which the shim makes its own
//     stderr (shim --status): its armed line and its report. Its end (EOF)
//     is the shim's end, what the attach's end told before. With it a
//     shimmed run has no attach: no hijacked connection, inspect and
//     conmon attach socket per run, which cost Podman about a tenth of a
//     bare lifecycle (podjail bench --spec-steps).
type pipes struct {
	dir                                 string
	controlPath, stdoutPath, statusPath string
	control, stdout                     *os.File
	closed                              atomic.Bool // by close: a read under way ends

	mu     sync.Mutex // status: readStatus may open it again
	status *os.File
}

// newPipes makes the FIFOs in their own directory of $TMPDIR (the host
// directory podjail shares with Podman, see PODJAIL_HOST_DIR), the
// runner's alone (0700, 0600: the container's root is the runner's user,
// rootless too), and opens the runner's ends so that the shim's opens do
// not wait: the control pipe read-write (its open waits for no reader; the
// shim reads EOF once it is closed), the stdout pipe for reading, without
// waiting for a writer, and the status pipe likewise. Read nothing from
// stdout before the shim has opened it (its armed line): until then a read
// finds no writer, which is EOF. readStatus knows that case.
func newPipes() (_ *pipes, err error) {
	dir, err := os.MkdirTemp("", "podjail-pipes-")
	if err != nil {
		return nil, fmt.Errorf("the run's pipes: %w", err)
	}
	p := &pipes{dir: dir, controlPath: filepath.Join(dir, "control"), stdoutPath: filepath.Join(dir, "stdout"),
		statusPath: filepath.Join(dir, "status")}
	defer func() {
		if err != nil {
			p.close()
			err = fmt.Errorf("the run's pipes: %w", err)
		}
	}()
	for _, path := range []string{p.controlPath, p.stdoutPath, p.statusPath} {
		if err := unix.Mkfifo(path, 0o600); err != nil {
			return nil, err
		}
	}
	if p.control, err = os.OpenFile(p.controlPath, os.O_RDWR, 0); err != nil {
		return nil, err
	}
	if p.stdout, err = openReadEnd(p.stdoutPath); err != nil {
		return nil, err
	}
	if p.status, err = openReadEnd(p.statusPath); err != nil {
		return nil, err
	}
	return p, nil
}

// openReadEnd opens a FIFO for reading without waiting for a writer,
// non-blocking: read through Go's poller.
func openReadEnd(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// closeControl ends the program's stdin: a write under way returns.
func (p *pipes) closeControl() {
	if p.control != nil {
		_ = p.control.Close()
	}
}

// endStatus ends a read of the status pipe under way: the shim is gone
// without ever having opened it, so no end of its would come.
func (p *pipes) endStatus() {
	p.closed.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.status.Close()
}

// close closes the runner's ends and removes the FIFOs; calling it again
// does nothing.
func (p *pipes) close() {
	p.closed.Store(true)
	p.closeControl()
	if p.stdout != nil {
		_ = p.stdout.Close()
	}
	p.mu.Lock()
	if p.status != nil {
		_ = p.status.Close()
	}
	p.mu.Unlock()
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

// readStatus copies the status pipe into dst until the shim, its one
// writer, has closed it: the shim has ended (or never opened it and the
// pipe is closed here). A read finding no writer is EOF only once a
// writer has come: the kernel reports a FIFO's hang-up to a reader
// (POLLHUP) only after a writer opened it since the reader did, so until
// the shim's open the reader waits, as it would for data. A writer that
// came and went before any byte is not the shim, which writes before it
// closes (its armed line, or its report): the read goes on from a new
// open of the FIFO, which hears no hang-up until a writer comes again.
// A shim killed before it wrote is a container that ended: awaitArmed
// sees it.
func (p *pipes) readStatus(dst io.Writer) error {
	buf := make([]byte, 4096)
	heard := false
	for {
		p.mu.Lock()
		f := p.status
		p.mu.Unlock()
		n, err := readFIFO(f, buf)
		switch {
		case err != nil && p.closed.Load():
			return nil // closed here (poll's ErrFileClosing, not os.ErrClosed)
		case err != nil:
			return err
		case n == 0 && heard:
			return nil
		case n == 0:
			if err := p.reopenStatus(f); err != nil {
				return err
			}
			continue
		}
		heard = true
		if _, err := dst.Write(buf[:n]); err != nil {
			return err
		}
	}
}

// readFIFO reads what the FIFO f holds into buf, waiting for it: n is 0
// at its end, once no writer is left and one has come.
func readFIFO(f *os.File, buf []byte) (n int, err error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var rerr error
	err = raw.Read(func(fd uintptr) bool {
		n, rerr = unix.Read(int(fd), buf)
		switch {
		case rerr == unix.EAGAIN || rerr == unix.EINTR:
			return false // nothing yet: wait for the poller
		case rerr != nil || n > 0:
			return true
		}
		// No writer: ended, or not come yet.
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, perr := unix.Poll(pfd, 0); perr != nil || pfd[0].Revents&unix.POLLHUP != 0 {
			return true
		}
		return false
	})
	if err != nil {
		return 0, err
	}
	return n, rerr
}

// reopenStatus replaces the status pipe's read end old with a new open
// of the FIFO, made before old is closed so that the shim's open never
// finds no reader; what the pipe holds is the FIFO's, read from either.
// Once the pipes are closed it does nothing: the read ends.
func (p *pipes) reopenStatus(old *os.File) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Load() {
		return nil
	}
	f, err := openReadEnd(p.statusPath)
	if err != nil {
		return fmt.Errorf("open the status pipe again: %w", err)
	}
	p.status = f
	_ = old.Close()
	return nil
}
