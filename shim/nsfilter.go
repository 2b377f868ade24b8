package shim

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The namespace filter (issue 15): the program, and only the program, may make no
// namespace. unshare with a CLONE_NEW* flag, clone with one and setns fail with
// EPERM; clone3 fails with ENOSYS, since its flags sit behind a pointer a filter
// cannot follow, and libcs then fall back to clone, which the filter reads. Nothing
// is killed, and threads and plain forks (clone without CLONE_NEW*) are untouched.
//
// The shim itself needs clone3 (CLONE_INTO_CGROUP) to start the program, and Go's
// ForkExec runs nothing of ours between fork and exec. So the filter is put on one
// locked OS thread of the shim, the one that then forks (no TSYNC: no other thread
// of the shim has it), and the child inherits it through the fork and the exec.
// The filter hands every clone3 to a listener (SECCOMP_RET_USER_NOTIF); a goroutine
// of the shim, on another thread, answers the shim's own clone3 (the notification
// names the locked thread) with SECCOMP_USER_NOTIF_FLAG_CONTINUE, once, and then
// closes the listener. A filter whose listener is closed answers every later
// clone3 with ENOSYS from the kernel itself: the program's, its children's, its
// threads'. The locked thread is never unlocked, so it ends with its goroutine and
// takes the filter with it.

// cloneNewMask is every CLONE_NEW* flag (all in the low 32 bits).
const cloneNewMask = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// cloneNewMaskClone is cloneNewMask for clone(2)'s flags: its low byte (CSIGNAL) is
// the exit signal, not flags, so CLONE_NEWTIME (0x80) cannot be asked of clone
// (the kernel strips CSIGNAL; only unshare and clone3 make time namespaces).
const cloneNewMaskClone = cloneNewMask &^ unix.CLONE_NEWTIME

// seccompData, seccompNotif and seccompNotifResp are struct seccomp_data,
// seccomp_notif and seccomp_notif_resp of linux/seccomp.h (64, 80 and 24 bytes;
// the sizes are in the ioctl numbers).
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// spawnFiltered is syscall.ForkExec with the namespace filter put on the child
// (see above). attr is the caller's: with Sys.UseCgroupFD Go forks with clone3,
// which the filter lets through for this call alone; without, with clone. A
// failure to put the filter in place is a *SetupError of StepNSFilter and no child
// exists; a failure of ForkExec itself is returned as ForkExec gave it.
//
// tasks is Config.Tasks, the rule for the program's new tasks (nsFilterProgram).
// A rule other than TasksAny needs Sys.UseCgroupFD: the rule kills clone, with which
// Go would fork otherwise, under the filter already.
func spawnFiltered(argv0 string, argv []string, attr *syscall.ProcAttr, tasks string) (int, error) {
	if tasks != TasksAny && (attr.Sys == nil || !attr.Sys.UseCgroupFD) {
		return 0, &SetupError{StepNSFilter, fmt.Errorf("tasks %q needs the start by clone3 into a cgroup (the rule kills clone, with which the start would fork otherwise)", tasks)}
	}
	type result struct {
		pid int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the thread, filter and all, ends with this goroutine
		// (Go wedges the main thread instead of ending it; it then runs nothing).
		runtime.LockOSThread()
		pid, err := spawnLocked(argv0, argv, attr, tasks)
		ch <- result{pid, err}
	}()
	r := <-ch
	return r.pid, r.err
}

// spawnLocked runs on the locked thread: filter, listener service, fork.
func spawnLocked(argv0 string, argv []string, attr *syscall.ProcAttr, tasks string) (int, error) {
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return 0, &SetupError{StepNSFilter, fmt.Errorf("eventfd: %w", err)}
	}
	defer unix.Close(wake)
	listener, err := installNSFilter(tasks)
	if err != nil {
		return 0, &SetupError{StepNSFilter, err}
	}
	served := make(chan error, 1)
	go serveOwnClone3(listener, wake, unix.Gettid(), served)

	restore := holdScheduler()
	pid, err := syscall.ForkExec(argv0, argv, attr)
	restore()

	one := [8]byte{1}
	_, _ = unix.Write(wake, one[:]) // stop the service if it still waits
	serr := <-served                // the listener is closed from here on
	if err != nil {
		if serr != nil {
			return 0, &SetupError{StepNSFilter, fmt.Errorf("answering the shim's clone3: %w (the start failed: %v)", serr, err)}
		}
		return 0, err
	}
	return pid, nil
}

// installNSFilter puts the namespace filter on the calling thread alone and returns
// its listener, close-on-exec.
func installNSFilter(tasks string) (int, error) {
	prog, err := nsFilterProgram(tasks)
	if err != nil {
		return -1, err
	}
	// Already set on the container (no-new-privileges); without it an
	// unprivileged filter is refused. Per thread, inherited by the child.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER, NEW_LISTENER): %w", errno)
	}
	// The kernel makes the listener close-on-exec; made sure of, since the
	// program holding it could answer its own clone3.
	if _, err := unix.FcntlInt(fd, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		unix.Close(int(fd))
		return -1, fmt.Errorf("listener close-on-exec: %w", err)
	}
	return int(fd), nil
}

// serveOwnClone3 answers the listener until the shim's own clone3 (a notification
// from thread tid) is let through, or wake is written; then it closes the listener,
// which makes every later clone3 under the filter fail with ENOSYS. Any other
// notification is answered ENOSYS (there is none: the program exists only once the
// shim's clone3 is through). It sends one value on done.
//
// It must run on another thread than tid, which waits in clone3 holding its P (Go
// forks with a raw system call); holdScheduler leaves a P for it.
func serveOwnClone3(listener, wake, tid int, done chan<- error) {
	defer unix.Close(listener)
	fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	var req seccompNotif
	var resp seccompNotifResp
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			done <- fmt.Errorf("poll the listener: %w", err)
			return
		}
		if fds[1].Revents != 0 || fds[0].Revents&unix.POLLIN == 0 {
			done <- nil // woken, or no one is left under the filter
			return
		}
		req = seccompNotif{} // RECV wants it zeroed
		if errno := notifIoctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); errno != 0 {
			if errno == unix.EINTR || errno == unix.ENOENT { // ENOENT: the caller is gone
				continue
			}
			done <- fmt.Errorf("SECCOMP_IOCTL_NOTIF_RECV: %w", errno)
			return
		}
		// The pid is the calling thread's id in the shim's pid namespace. tid is
		// alive (it waits in this very call), so no other task has it; and only
		// one notification is ever let through, so a later task that reuses tid
		// gets nothing.
		own := int(req.Pid) == tid && req.Data.Nr == unix.SYS_CLONE3
		resp = seccompNotifResp{ID: req.ID}
		if own {
			resp.Flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
		} else {
			resp.Error = -int32(unix.ENOSYS)
		}
		errno := notifIoctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
		if own {
			if errno != 0 {
				done <- fmt.Errorf("SECCOMP_IOCTL_NOTIF_SEND: %w", errno)
				return
			}
			done <- nil
			return
		}
	}
}

func notifIoctl(fd int, req uint, arg unsafe.Pointer) syscall.Errno {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	return errno
}

// holdScheduler keeps the Go scheduler able to answer the shim's clone3 while the
// forking thread waits in it holding its P: at least two Ps, so the service
// finds one, and no garbage collection, whose stop of the world would wait for
// the forking thread's P for ever. It returns the undo, for once the fork is over.
func holdScheduler() (restore func()) {
	gc := debug.SetGCPercent(-1) // also waits for a collection under way to end
	limit := debug.SetMemoryLimit(math.MaxInt64)
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 {
		runtime.GOMAXPROCS(2)
	}
	return func() {
		if procs < 2 {
			runtime.GOMAXPROCS(procs)
		}
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(gc)
	}
}
