package shim

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// closeInherited marks every descriptor above 2 close-on-exec, so whatever the
// runtime handed the shim does not reach the program (Go's own are already).
func closeInherited() error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	ents, err := os.ReadDir("/proc/self/fd") // kernel < 5.11
	if err != nil {
		return &SetupError{StepFDs, err}
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
	return nil
}

// startProgram clones the program straight into the program cgroup (clone3 with
// CLONE_INTO_CGROUP, so not one page or tick of it is charged elsewhere), drops to
// 65534:65534 with no supplementary groups, and execs it with descriptors 0, 1, 2
// only: stdin, the shim's stdout, and stderr (openStderr: /dev/null unless asked).
// The program gets the namespace filter (nsfilter.go); if that cannot be done it
// is not started.
func startProgram(c Config, cgroupFD int, stdin, stderr *os.File) (int, error) {
	attr := &syscall.ProcAttr{
		Env:   c.Env,
		Files: []uintptr{stdin.Fd(), 1, stderr.Fd()},
		Sys: &syscall.SysProcAttr{
			UseCgroupFD: true,
			CgroupFD:    cgroupFD,
			Credential:  nobodyCred(),
		},
	}
	pid, err := spawnFiltered(c.Argv[0], c.Argv, attr, c.Tasks)
	if stepOf(err) != "" {
		return 0, err
	}
	if err != nil {
		return 0, &SetupError{StepStart, fmt.Errorf("start %s: %w", c.Argv[0], err)}
	}
	return pid, nil
}

// waitProgram waits for pid with wait4, keeping its rusage. As pid 1 the shim is
// also the parent of every orphan; those are reaped here as they end (a zombie
// still counts against pids.max) and counted in reaped.
func waitProgram(pid int) (ws syscall.WaitStatus, ru syscall.Rusage, reaped int, err error) {
	for {
		wpid, err := syscall.Wait4(-1, &ws, 0, &ru)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return ws, ru, reaped, &SetupError{StepWait, err}
		case wpid == pid:
			return ws, ru, reaped, nil
		default:
			reaped++
		}
	}
}

// killOthers kills every process but the shim. As pid 1, kill(-1) reaches the whole
// pid namespace, setsid'd daemons included. The shim holds no CAP_KILL, so it sends
// with effective uid 65534, which matches the program's real uid; real and saved uid
// stay 0, so no 65534 process can signal or trace the shim meanwhile. cgroup.kill
// then covers program/ even for a shim that is not pid 1 (where kill(-1) would hit
// the caller's whole user).
func killOthers(cg *Cgroups) error {
	var errs []error
	if os.Getpid() == 1 {
		if err := syscall.Setresuid(-1, Nobody, -1); err != nil {
			return &SetupError{StepReap, fmt.Errorf("seteuid %d: %w", Nobody, err)}
		}
		if err := syscall.Kill(-1, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
			errs = append(errs, fmt.Errorf("kill(-1): %w", err))
		}
		if err := syscall.Setresuid(-1, 0, -1); err != nil {
			return &SetupError{StepReap, fmt.Errorf("seteuid 0: %w", err)}
		}
	}
	if err := cg.Kill(); err != nil {
		errs = append(errs, fmt.Errorf("cgroup.kill: %w", err))
	}
	if len(errs) > 0 {
		return &SetupError{StepReap, errs[0]}
	}
	return nil
}

// reapAll reaps every child (as pid 1, every orphan of the namespace is one) until
// none is left, and returns how many. SIGKILLed processes die promptly; the
// deadline only guards against one stuck in the kernel.
func reapAll(deadline time.Duration) (int, error) {
	n := 0
	end := time.Now().Add(deadline)
	pause := 100 * time.Microsecond
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.ECHILD:
			return n, nil
		case err == syscall.EINTR:
		case err != nil:
			return n, &SetupError{StepReap, err}
		case pid > 0:
			n++
		default: // children left, none exited yet
			if time.Now().After(end) {
				return n, stepErr(StepReap, "children still alive after %v", deadline)
			}
			time.Sleep(pause)
			pause = min(2*pause, 10*time.Millisecond)
		}
	}
}

// statusOf fills the report from a wait status and gives the shim's exit code.
func statusOf(ws syscall.WaitStatus, ru syscall.Rusage, r *Report) int {
	r.UserUs = ru.Utime.Sec*1e6 + ru.Utime.Usec
	r.SysUs = ru.Stime.Sec*1e6 + ru.Stime.Usec
	r.TimeUs = r.UserUs + r.SysUs
	if ws.Signaled() {
		r.ExitCode = -1
		r.Signal = SignalName(ws.Signal())
		return 128 + int(ws.Signal())
	}
	r.ExitCode = ws.ExitStatus()
	return r.ExitCode
}
