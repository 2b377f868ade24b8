package asuser

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Limits bound a CopyTree: what a caller names is its choice, and "/" must
// not fill the disk.
type Limits struct {
	// Bytes is the most file content copied in all. Zero value: no bound.
	Bytes int64
	// Entries is the most directory entries looked at. Zero value: no
	// bound.
	Entries int
}

// maxDepth bounds how deep a copy goes: each level holds a descriptor.
const maxDepth = 64

// ErrTooLarge: the tree is over a copy's Limits, or deeper than maxDepth.
var ErrTooLarge = errors.New("over what this service copies")

// CopyTree copies the directory src, read with t's caller's rights, to
// dst, which it makes (its parent must exist) with its own rights.
// Directories (0755) and regular files (0644, or 0755 when any execute bit
// is set) are copied; a symbolic link inside is copied as a link, never
// followed, so whoever reads the copy decides where it may point; anything
// else (FIFOs, devices, sockets) is left out. Each entry is opened once,
// relative to its directory and without following links: what the copy
// holds is what the caller could read, whatever it swaps meanwhile. src
// itself may be reached through links, as the caller would reach it.
func CopyTree(t *Thread, src, dst string, lim Limits) error {
	var fd int
	err := t.Do(func() (err error) {
		fd, err = unix.Open(src, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return &os.PathError{Op: "open", Path: src, Err: err}
	}
	c := &copier{t: t, lim: lim}
	return c.dir(os.NewFile(uintptr(fd), src), dst, 0)
}

type copier struct {
	t       *Thread
	lim     Limits
	bytes   int64
	entries int
}

// dir copies the open directory d to dst, then closes d.
func (c *copier) dir(d *os.File, dst string, depth int) error {
	defer d.Close()
	if depth > maxDepth {
		return fmt.Errorf("%s: %w: more than %d directories deep", d.Name(), ErrTooLarge, maxDepth)
	}
	if err := errors.Join(os.Mkdir(dst, 0o700), os.Chmod(dst, 0o755)); err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, name := range names {
		if c.entries++; c.lim.Entries > 0 && c.entries > c.lim.Entries {
			return fmt.Errorf("%s: %w: more than %d entries", d.Name(), ErrTooLarge, c.lim.Entries)
		}
		if err := c.entry(d, name, filepath.Join(dst, name), depth); err != nil {
			return err
		}
	}
	return nil
}

// entry copies name, in the open directory d, to dst.
func (c *copier) entry(d *os.File, name, dst string, depth int) error {
	path := filepath.Join(d.Name(), name)
	dfd := int(d.Fd())
	var st unix.Stat_t
	if err := c.t.Do(func() error { return unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return &os.PathError{Op: "stat", Path: path, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		f, err := c.openAt(dfd, path, name, unix.O_DIRECTORY)
		if err != nil {
			return err
		}
		return c.dir(f, dst, depth+1)
	case unix.S_IFREG:
		f, err := c.openAt(dfd, path, name, unix.O_NONBLOCK)
		if err != nil {
			return err
		}
		defer f.Close()
		return c.file(f, dst)
	case unix.S_IFLNK:
		var target string
		err := c.t.Do(func() error {
			buf := make([]byte, unix.PathMax)
			n, err := unix.Readlinkat(dfd, name, buf)
			target = string(buf[:max(n, 0)])
			return err
		})
		if err != nil {
			return &os.PathError{Op: "readlink", Path: path, Err: err}
		}
		return os.Symlink(target, dst)
	}
	return nil
}

// openAt opens name in the directory dfd as the caller, never following a
// link (one swapped in since the stat fails here).
func (c *copier) openAt(dfd int, path, name string, flags int) (*os.File, error) {
	var fd int
	err := c.t.Do(func() (err error) {
		fd, err = unix.Openat(dfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NOCTTY|flags, 0)
		return err
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// file copies the open file src to a new file dst, within the byte bound.
func (c *copier) file(src *os.File, dst string) error {
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil // swapped for something else since the stat: left out
	}
	mode := os.FileMode(0o644)
	if fi.Mode()&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, mode)
	if err != nil {
		return err
	}
	r := io.Reader(src)
	if c.lim.Bytes > 0 {
		r = io.LimitReader(src, c.lim.Bytes-c.bytes+1)
	}
	n, err := io.Copy(out, r)
	c.bytes += n
	err = errors.Join(err, out.Chmod(mode), out.Close()) // past the umask
	if err == nil && c.lim.Bytes > 0 && c.bytes > c.lim.Bytes {
		err = fmt.Errorf("%s: %w: more than %d bytes in all", src.Name(), ErrTooLarge, c.lim.Bytes)
	}
	return err
}
