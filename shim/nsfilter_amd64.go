package shim

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Where the filter reads struct seccomp_data (little-endian: the low 32 bits of
// args[0], which hold every CLONE_NEW* flag, are at 16).
const (
	seccompNr      = 0
	seccompArch    = 4
	seccompArg0Low = 16
)

// x32SyscallBit marks x32 system calls (__X32_SYSCALL_BIT).
const x32SyscallBit = 0x40000000

// nsFilterProgram is the namespace filter as classic BPF, with the rule of tasks
// (TasksAny, TasksThreads, TasksNone) for new tasks. Only the native ABI is judged
// here: another architecture (i386 through int $0x80) and x32 numbers are let
// through to the container's profile, which kills them; and seccomp takes the
// strictest answer of all filters, so allowing here never loosens it.
//
// With TasksThreads, clone must carry CLONE_THREAD (a thread: the kernel wants
// CLONE_SIGHAND and CLONE_VM with it, so it shares the program's memory), and fork
// and vfork are refused; with TasksNone, clone is refused too. A refusal kills the
// whole program (SECCOMP_RET_KILL_PROCESS: SIGSYS, logged by the kernel as any
// seccomp kill, so the runner names the call where it can read the log). clone3
// still goes to the listener, where the shim's own start is let through and any
// later one fails with ENOSYS: libcs then fall back to clone, which is judged here.
func nsFilterProgram(tasks string) ([]unix.SockFilter, error) {
	if err := CheckTasks(tasks); err != nil {
		return nil, err
	}
	var b bpfBuilder
	b.ld(seccompArch)
	b.jeq(unix.AUDIT_ARCH_X86_64, "", "allow")
	b.ld(seccompNr)
	b.jge(x32SyscallBit, "allow", "")
	b.jeq(unix.SYS_UNSHARE, "unshare", "")
	b.jeq(unix.SYS_CLONE, "clone", "")
	b.jeq(unix.SYS_SETNS, "eperm", "")
	if tasks != TasksAny {
		b.jeq(unix.SYS_FORK, "kill", "")
		b.jeq(unix.SYS_VFORK, "kill", "")
	}
	b.jeq(unix.SYS_CLONE3, "notify", "allow")
	// unshare(flags): flags is args[0].
	b.label("unshare")
	b.ld(seccompArg0Low)
	b.jset(cloneNewMask, "eperm", "allow")
	// clone(flags, stack, parent_tid, child_tid, tls) on x86_64: flags is args[0],
	// of which the kernel reads the low 32 bits only.
	b.label("clone")
	switch tasks {
	case TasksNone:
		b.ret(unix.SECCOMP_RET_KILL_PROCESS)
	case TasksThreads:
		b.ld(seccompArg0Low)
		b.jset(unix.CLONE_THREAD, "", "kill")
		b.jset(cloneNewMaskClone, "eperm", "allow")
	default:
		b.ld(seccompArg0Low)
		b.jset(cloneNewMaskClone, "eperm", "allow")
	}
	b.label("allow")
	b.ret(unix.SECCOMP_RET_ALLOW)
	b.label("eperm")
	b.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	b.label("notify")
	b.ret(unix.SECCOMP_RET_USER_NOTIF)
	if tasks != TasksAny {
		b.label("kill")
		b.ret(unix.SECCOMP_RET_KILL_PROCESS)
	}
	return b.program()
}

// bpfBuilder writes a classic BPF program whose jumps name labels ("" is the next
// instruction); program resolves them.
type bpfBuilder struct {
	prog   []unix.SockFilter
	jumps  map[int][2]string
	labels map[string]int
}

func (b *bpfBuilder) ld(off uint32) {
	b.prog = append(b.prog, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (b *bpfBuilder) ret(k uint32) {
	b.prog = append(b.prog, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

func (b *bpfBuilder) jeq(k uint32, t, f string)  { b.jump(unix.BPF_JEQ, k, t, f) }
func (b *bpfBuilder) jge(k uint32, t, f string)  { b.jump(unix.BPF_JGE, k, t, f) }
func (b *bpfBuilder) jset(k uint32, t, f string) { b.jump(unix.BPF_JSET, k, t, f) }

func (b *bpfBuilder) jump(op uint16, k uint32, t, f string) {
	if b.jumps == nil {
		b.jumps = map[int][2]string{}
	}
	b.jumps[len(b.prog)] = [2]string{t, f}
	b.prog = append(b.prog, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (b *bpfBuilder) label(name string) {
	if b.labels == nil {
		b.labels = map[string]int{}
	}
	b.labels[name] = len(b.prog)
}

// program resolves the jumps: forward only, at most 255 instructions ahead.
func (b *bpfBuilder) program() ([]unix.SockFilter, error) {
	for at, to := range b.jumps {
		var off [2]uint8
		for i, name := range to {
			target := at + 1
			if name != "" {
				t, ok := b.labels[name]
				if !ok {
					return nil, fmt.Errorf("nsfilter: no label %q", name)
				}
				target = t
			}
			if target <= at || target-at-1 > 255 {
				return nil, fmt.Errorf("nsfilter: bad jump from %d to %q", at, name)
			}
			off[i] = uint8(target - at - 1)
		}
		b.prog[at].Jt, b.prog[at].Jf = off[0], off[1]
	}
	return b.prog, nil
}
