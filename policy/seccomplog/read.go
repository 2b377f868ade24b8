package seccomplog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// auditTail is how much of the end of the audit log is read: far more than
// the records of one run.
const auditTail = 8 << 20

// readLog returns the messages of a log: the kernel's (a character device,
// one record per read) or a text file (its last auditTail bytes).
func readLog(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeCharDevice != 0 {
		return readKmsg(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if off := fi.Size() - auditTail; off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return strings.Split(string(b), "\n"), nil
}

// readKmsg reads every record the kernel log still holds, without waiting
// for new ones. Each record is "prio,seq,usec,flags;message".
func readKmsg(path string) ([]string, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var lines []string
	buf := make([]byte, 16<<10)
	for {
		n, err := syscall.Read(fd, buf)
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return lines, nil
		case errors.Is(err, syscall.EPIPE):
			continue // records overwritten while reading: go on from the oldest left
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return lines, nil
		}
		rec := buf[:n]
		if i := bytes.IndexByte(rec, ';'); i >= 0 {
			rec = rec[i+1:]
		}
		if i := bytes.IndexByte(rec, '\n'); i >= 0 {
			rec = rec[:i]
		}
		lines = append(lines, string(rec))
	}
}
