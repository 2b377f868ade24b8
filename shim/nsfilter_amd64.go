package shim

import "golang.org/x/sys/unix"

// Where the filter reads struct seccomp_data (little-endian: the low 32 bits of
// args[0], which hold every CLONE_NEW* flag, are at 16).
const (
	seccompNr      = 0
	seccompArch    = 4
	seccompArg0Low = 16
)

// x32SyscallBit marks x32 system calls (__X32_SYSCALL_BIT).
const x32SyscallBit = 0x40000000

// nsFilterProgram is the namespace filter as classic BPF. Only the native ABI is
// judged here: another architecture (i386 through int $0x80) and x32 numbers are
// let through to the container's profile, which kills them; and seccomp takes
// the strictest answer of all filters, so allowing here never loosens it.
func nsFilterProgram() ([]unix.SockFilter, error) {
	const (
		ldW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	// The three answers, at the end; the jumps below name them by index.
	const (
		allow  = 12
		eperm  = 13
		notify = 14
	)
	prog := []unix.SockFilter{
		/* 0 */ {Code: ldW, K: seccompArch},
		/* 1 */ jump(1, jeq, unix.AUDIT_ARCH_X86_64, 2, allow),
		/* 2 */ {Code: ldW, K: seccompNr},
		/* 3 */ jump(3, jge, x32SyscallBit, allow, 4),
		/* 4 */ jump(4, jeq, unix.SYS_UNSHARE, 8, 5),
		/* 5 */ jump(5, jeq, unix.SYS_CLONE, 10, 6),
		/* 6 */ jump(6, jeq, unix.SYS_SETNS, eperm, 7),
		/* 7 */ jump(7, jeq, unix.SYS_CLONE3, notify, allow),
		// unshare(flags): flags is args[0].
		/* 8 */ {Code: ldW, K: seccompArg0Low},
		/* 9 */ jump(9, jset, cloneNewMask, eperm, allow),
		// clone(flags, stack, parent_tid, child_tid, tls) on x86_64: flags is
		// args[0], of which the kernel reads the low 32 bits only.
		/* 10 */ {Code: ldW, K: seccompArg0Low},
		/* 11 */ jump(11, jset, cloneNewMaskClone, eperm, allow),
		/* 12 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		/* 13 */ {Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		/* 14 */ {Code: ret, K: unix.SECCOMP_RET_USER_NOTIF},
	}
	return prog, nil
}

// jump is the conditional jump at index at, to index t if the test holds and to
// index f if not (BPF counts both from the next instruction, forward only).
func jump(at int, code uint16, k uint32, t, f int) unix.SockFilter {
	if t <= at || f <= at || t-at-1 > 255 || f-at-1 > 255 {
		panic("nsfilter: bad jump")
	}
	return unix.SockFilter{Code: code, K: k, Jt: uint8(t - at - 1), Jf: uint8(f - at - 1)}
}
