// Package asuser reads host files with a caller's rights, not the
// process's own. A service that runs as root for callers that are not
// (podjail serve --group) opens each path a request names as its caller
// would: the kernel checks every step of the path for that caller, so a
// caller gets back only what it could read itself.
//
// The caller's rights are taken on one OS thread of its own
// (setfsuid, setfsgid and setgroups are per thread on Linux); that thread
// is never handed back to the Go scheduler and ends with its goroutine.
// What it opens is used afterwards as file descriptors, by any goroutine.
package asuser

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// ErrNotPermitted: this process cannot take the caller's rights (it is not
// root) and the caller is another user.
var ErrNotPermitted = errors.New("this process cannot read files with another user's rights")

// Cred is who reads.
type Cred struct {
	UID, GID uint32
	// Groups are the supplementary groups. Zero value: none besides GID.
	Groups []uint32
}

// Lookup is the caller uid with primary group gid and the supplementary
// groups the user database gives it. A uid with no entry keeps gid alone:
// it gets fewer rights, never more.
func Lookup(uid, gid uint32) Cred {
	c := Cred{UID: uid, GID: gid}
	u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	if err != nil {
		return c
	}
	ids, err := u.GroupIds()
	if err != nil {
		return c
	}
	for _, s := range ids {
		if g, err := strconv.ParseUint(s, 10, 32); err == nil && uint32(g) != gid {
			c.Groups = append(c.Groups, uint32(g))
		}
	}
	return c
}

// Self is this process's own user: work done "as Self" is done with its
// rights, on any thread.
func Self() Cred { return Cred{UID: uint32(os.Geteuid()), GID: uint32(os.Getegid())} }

// Thread does file work as one caller. Make one with Start; Close it.
type Thread struct {
	work chan func()
	self bool // the caller is this process's user: no thread of its own
}

// Start makes a Thread for c: a thread of its own with c's file rights, or
// none when c is this process's user. A non-root process gets
// ErrNotPermitted for any other caller.
func Start(c Cred) (*Thread, error) {
	if int(c.UID) == os.Geteuid() {
		return &Thread{self: true}, nil
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%w (uid %d for uid %d)", ErrNotPermitted, os.Geteuid(), c.UID)
	}
	t := &Thread{work: make(chan func())}
	started := make(chan error, 1)
	go t.loop(c, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return t, nil
}

// loop runs on a locked thread that never unlocks: the thread carries c's
// ids and dies when this goroutine returns.
func (t *Thread) loop(c Cred, started chan<- error) {
	runtime.LockOSThread()
	if err := become(c); err != nil {
		started <- err
		return
	}
	started <- nil
	for f := range t.work {
		f()
	}
}

// become sets this thread's supplementary groups and file ids to c's
// (x/sys/unix's Setgroups, Setfsgid and Setfsuid act on the calling
// thread only), and checks they took.
func become(c Cred) error {
	groups := make([]int, 0, len(c.Groups)+1)
	groups = append(groups, int(c.GID))
	for _, g := range c.Groups {
		groups = append(groups, int(g))
	}
	if err := unix.Setgroups(groups); err != nil {
		return fmt.Errorf("setgroups for uid %d: %w", c.UID, err)
	}
	_ = unix.Setfsgid(int(c.GID))
	_ = unix.Setfsuid(int(c.UID))
	// An invalid id changes nothing and returns the current one.
	gid, _ := unix.SetfsgidRetGid(-1)
	uid, _ := unix.SetfsuidRetUid(-1)
	if uid != int(c.UID) || gid != int(c.GID) {
		return fmt.Errorf("could not take the file ids of uid %d gid %d (have %d:%d)", c.UID, c.GID, uid, gid)
	}
	return nil
}

// Do runs f with the caller's file rights and returns its error.
func (t *Thread) Do(f func() error) error {
	if t.self {
		return f()
	}
	var err error
	done := make(chan struct{})
	t.work <- func() { err = f(); close(done) }
	<-done
	return err
}

// Close ends the thread. The Thread may not be used after.
func (t *Thread) Close() {
	if !t.self {
		close(t.work)
	}
}

// Open opens path for reading as the caller. The path may hold links,
// which the kernel follows with the caller's rights; the file must be
// regular (a FIFO or device is refused; O_NONBLOCK keeps its open from
// hanging and changes nothing for a regular file).
func (t *Thread) Open(path string) (*os.File, error) {
	var fd int
	err := t.Do(func() (err error) {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		return err
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if err := isRegular(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

func isRegular(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &os.PathError{Op: "open", Path: f.Name(), Err: ErrNotRegular}
	}
	return nil
}

// ErrNotRegular: a path named as a file is a directory, FIFO, device or
// socket.
var ErrNotRegular = errors.New("not a regular file")
