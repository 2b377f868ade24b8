package shim

import (
	"fmt"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// runBPF interprets the few classic BPF instructions the filter uses over one
// struct seccomp_data.
func runBPF(t *testing.T, prog []unix.SockFilter, d seccompData) uint32 {
	t.Helper()
	data := (*[64]byte)(unsafe.Pointer(&d))[:]
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			a = *(*uint32)(unsafe.Pointer(&data[in.K]))
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			var ok bool
			switch in.Code & 0xf0 {
			case unix.BPF_JEQ:
				ok = a == in.K
			case unix.BPF_JGE:
				ok = a >= in.K
			case unix.BPF_JSET:
				ok = a&in.K != 0
			}
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: unexpected code %#x", pc, in.Code)
		}
	}
	t.Fatal("fell off the end of the filter")
	return 0
}

// TestNSFilterProgram checks the filter's answers, instruction by instruction.
func TestNSFilterProgram(t *testing.T) {
	requireAmd64(t)
	prog, err := nsFilterProgram(TasksAny)
	if err != nil {
		t.Fatal(err)
	}
	const (
		allow  = unix.SECCOMP_RET_ALLOW
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		notify = unix.SECCOMP_RET_USER_NOTIF
		amd64  = unix.AUDIT_ARCH_X86_64
	)
	threadFlags := uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD |
		unix.CLONE_SYSVSEM | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID)
	newFlags := []uint64{unix.CLONE_NEWNS, unix.CLONE_NEWCGROUP, unix.CLONE_NEWUTS, unix.CLONE_NEWIPC,
		unix.CLONE_NEWUSER, unix.CLONE_NEWPID, unix.CLONE_NEWNET, unix.CLONE_NEWTIME}
	type tc struct {
		name string
		arch uint32
		nr   int32
		arg0 uint64
		want uint32
	}
	cases := []tc{
		{"getpid", amd64, unix.SYS_GETPID, 0, allow},
		{"unshare(0)", amd64, unix.SYS_UNSHARE, 0, allow},
		{"unshare(CLONE_FILES|CLONE_FS|CLONE_SYSVSEM)", amd64, unix.SYS_UNSHARE, unix.CLONE_FILES | unix.CLONE_FS | unix.CLONE_SYSVSEM, allow},
		{"clone(thread)", amd64, unix.SYS_CLONE, threadFlags, allow},
		{"clone(SIGCHLD) (fork)", amd64, unix.SYS_CLONE, uint64(unix.SIGCHLD) | unix.CLONE_CHILD_SETTID | unix.CLONE_CHILD_CLEARTID, allow},
		{"clone(CLONE_VFORK|CLONE_VM|CLONE_PIDFD|SIGCHLD) (Go's exec)", amd64, unix.SYS_CLONE, unix.CLONE_VFORK | unix.CLONE_VM | unix.CLONE_PIDFD | uint64(unix.SIGCHLD), allow},
		{"clone(exit signal 0x80)", amd64, unix.SYS_CLONE, 0x80, allow}, // CSIGNAL, not CLONE_NEWTIME
		{"clone(CLONE_NEWUSER in the high word)", amd64, unix.SYS_CLONE, unix.CLONE_NEWUSER << 32, allow},
		{"fork", amd64, unix.SYS_FORK, 0, allow},
		{"vfork", amd64, unix.SYS_VFORK, 0, allow},
		{"setns(fd, 0)", amd64, unix.SYS_SETNS, 3, eperm},
		{"clone3", amd64, unix.SYS_CLONE3, 0, notify},
		{"i386 unshare (left to the container's profile)", unix.AUDIT_ARCH_I386, 310, unix.CLONE_NEWUSER, allow},
		{"x32 unshare (left to the container's profile)", amd64, x32SyscallBit | unix.SYS_UNSHARE, unix.CLONE_NEWUSER, allow},
	}
	for _, f := range newFlags {
		cases = append(cases,
			tc{fmt.Sprintf("unshare(%#x)", f), amd64, unix.SYS_UNSHARE, f, eperm},
			tc{fmt.Sprintf("unshare(%#x|CLONE_FILES)", f), amd64, unix.SYS_UNSHARE, f | unix.CLONE_FILES, eperm})
		if f != unix.CLONE_NEWTIME {
			cases = append(cases,
				tc{fmt.Sprintf("clone(%#x|SIGCHLD)", f), amd64, unix.SYS_CLONE, f | uint64(unix.SIGCHLD), eperm},
				tc{fmt.Sprintf("clone(thread|%#x)", f), amd64, unix.SYS_CLONE, threadFlags | f, eperm})
		}
	}
	for _, c := range cases {
		d := seccompData{Nr: c.nr, Arch: c.arch}
		d.Args[0] = c.arg0
		if got := runBPF(t, prog, d); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}

// TestNSFilterProgramTasks checks the rules for new tasks: with TasksThreads a
// clone must be a thread and fork and vfork kill; with TasksNone every clone kills
// too; clone3 goes to the listener (ENOSYS for the program) and namespaces stay
// refused under both.
func TestNSFilterProgramTasks(t *testing.T) {
	requireAmd64(t)
	const (
		allow  = unix.SECCOMP_RET_ALLOW
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		notify = unix.SECCOMP_RET_USER_NOTIF
		kill   = unix.SECCOMP_RET_KILL_PROCESS
		amd64  = unix.AUDIT_ARCH_X86_64
	)
	glibcThread := uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD |
		unix.CLONE_SYSVSEM | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID)
	goThread := uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM | unix.CLONE_THREAD)
	glibcFork := uint64(unix.SIGCHLD) | unix.CLONE_CHILD_SETTID | unix.CLONE_CHILD_CLEARTID
	spawn := uint64(unix.CLONE_VM|unix.CLONE_VFORK) | uint64(unix.SIGCHLD) // posix_spawn, Go's exec
	type tc struct {
		name    string
		arch    uint32
		nr      int32
		arg0    uint64
		threads uint32 // TasksThreads' answer
		none    uint32 // TasksNone's answer
	}
	cases := []tc{
		{"getpid", amd64, unix.SYS_GETPID, 0, allow, allow},
		{"clone(glibc thread)", amd64, unix.SYS_CLONE, glibcThread, allow, kill},
		{"clone(Go thread)", amd64, unix.SYS_CLONE, goThread, allow, kill},
		{"clone(glibc fork)", amd64, unix.SYS_CLONE, glibcFork, kill, kill},
		{"clone(posix_spawn)", amd64, unix.SYS_CLONE, spawn, kill, kill},
		{"clone(0)", amd64, unix.SYS_CLONE, 0, kill, kill},
		{"clone(CLONE_THREAD in the high word only)", amd64, unix.SYS_CLONE, unix.CLONE_THREAD << 32, kill, kill},
		{"clone(thread|CLONE_NEWNET)", amd64, unix.SYS_CLONE, glibcThread | unix.CLONE_NEWNET, eperm, kill},
		{"clone(CLONE_NEWUSER|SIGCHLD)", amd64, unix.SYS_CLONE, unix.CLONE_NEWUSER | uint64(unix.SIGCHLD), kill, kill},
		{"fork", amd64, unix.SYS_FORK, 0, kill, kill},
		{"vfork", amd64, unix.SYS_VFORK, 0, kill, kill},
		{"clone3", amd64, unix.SYS_CLONE3, 0, notify, notify},
		{"unshare(CLONE_NEWUSER)", amd64, unix.SYS_UNSHARE, unix.CLONE_NEWUSER, eperm, eperm},
		{"unshare(CLONE_FILES)", amd64, unix.SYS_UNSHARE, unix.CLONE_FILES, allow, allow},
		{"setns", amd64, unix.SYS_SETNS, 3, eperm, eperm},
		{"i386 fork (left to the container's profile)", unix.AUDIT_ARCH_I386, 2, 0, allow, allow},
		{"x32 fork (left to the container's profile)", amd64, x32SyscallBit | unix.SYS_FORK, 0, allow, allow},
	}
	for _, mode := range []string{TasksThreads, TasksNone} {
		prog, err := nsFilterProgram(mode)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			d := seccompData{Nr: c.nr, Arch: c.arch}
			d.Args[0] = c.arg0
			want := c.threads
			if mode == TasksNone {
				want = c.none
			}
			if got := runBPF(t, prog, d); got != want {
				t.Errorf("tasks %q: %s: %#x, want %#x", mode, c.name, got, want)
			}
		}
	}
	if _, err := nsFilterProgram("processes"); err == nil {
		t.Error("tasks \"processes\" was accepted")
	}
}
