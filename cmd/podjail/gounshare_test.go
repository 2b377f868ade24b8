package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// goUnshare meets the namespace filter as a Go program does: its runtime
// makes threads with clone(CLONE_THREAD|CLONE_VM...), and os/exec forks
// with clone(CLONE_VFORK|CLONE_VM, CLONE_PIDFD). It prints one line per
// attempt: what was tried and "ok" or the errno's name.
func goUnshare([]string) int {
	say := func(what string, err error) {
		outcome := "ok"
		var errno syscall.Errno
		switch {
		case errors.As(err, &errno):
			outcome = unix.ErrnoName(errno)
		case err != nil:
			outcome = err.Error()
		}
		fmt.Printf("%s: %s\n", what, outcome)
	}
	say("unshare(CLONE_NEWUSER)", syscall.Unshare(syscall.CLONE_NEWUSER))
	say("unshare(CLONE_NEWNET)", syscall.Unshare(syscall.CLONE_NEWNET))
	cmd := exec.Command(os.Args[0], "exit", "0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	say("exec with CLONE_NEWUSER", cmd.Run())
	say("exec", exec.Command(os.Args[0], "exit", "0").Run())

	// Eight goroutines each locked to an OS thread of its own, all at once:
	// eight threads the runtime made with clone.
	const n = 8
	var locked, done sync.WaitGroup
	release := make(chan struct{})
	tids := make([]int, n)
	locked.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			tids[i] = unix.Gettid()
			locked.Done()
			<-release
		}()
	}
	locked.Wait()
	close(release)
	done.Wait()
	distinct := map[int]bool{}
	for _, tid := range tids {
		distinct[tid] = true
	}
	var threads error
	if len(distinct) != n {
		threads = fmt.Errorf("%d distinct threads of %d", len(distinct), n)
	}
	say("threads", threads)
	return 0
}

// TestHostileUnshareFromGo: the namespace filter as a Go program meets
// it. unshare and a child with CLONE_NEWUSER are EPERM; the runtime's
// threads and os/exec's plain children work.
func TestHostileUnshareFromGo(t *testing.T) {
	env := hosttest.Podman(t)
	// The test binary starts itself twice: past 1 s of processor time
	// under emulation with SELinux enforcing (1.16 s seen), so 5 s.
	res, out := runHostile(t, env, hostileFlags("--pids", "64", "--time-limit", "5s"), testProgram, "go-unshare")
	t.Logf("output:\n%s", out)
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out,
		"unshare(CLONE_NEWUSER): EPERM",
		"unshare(CLONE_NEWNET): EPERM",
		"exec with CLONE_NEWUSER: EPERM",
		"exec: ok",
		"threads: ok")
}
