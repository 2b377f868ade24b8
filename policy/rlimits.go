package policy

// Rlimit is one POSIX resource limit of the container's processes, named
// as the OCI runtime spec's process.rlimits names it. The container keeps
// no CAP_SYS_RESOURCE, so no process in it can raise Hard.
type Rlimit struct {
	// Type is the limit, e.g. "RLIMIT_CORE". Zero value: invalid.
	Type string
	// Soft is the limit the kernel enforces. Zero value: 0, none allowed.
	Soft uint64
	// Hard is the ceiling Soft may be raised to. Zero value: 0.
	Hard uint64
}

// DefaultStackBytes is the stack limit of a run with no memory limit
// given: finite, so thread stacks (glibc sizes them from this limit) stay
// bounded, and large enough for deep recursion.
const DefaultStackBytes = 256 << 20

// OpenFiles is the RLIMIT_NOFILE of a run, isolate's default: a judged
// program needs stdin, stdout and a few files, a language runtime some
// dozen more (the JVM's jars and libraries); it caps what a program can
// hold open (pipes, eventfds, inotify instances) apart from memory.max.
const OpenFiles = 64

// Rlimits are the limits of a judged program's run, memoryBytes its memory
// limit, fileBytes the largest file it may write, normally the size of
// its scratch tmpfs, and stackBytes its stack (RLIMIT_STACK) (any of them
// <= 0: none given). The stack is the memory limit, or DefaultStackBytes
// without one, or stackBytes when that is smaller.
// Builds, which run compilers, keep the image's limits. Left out on
// purpose:
//   - RLIMIT_NPROC counts every process of a real uid in the user
//     namespace, not of the run: rootful, every run's 65534 is the host's
//     65534 (one run's fork bomb would fail another's fork, and the host's
//     nobody daemons count); rootless, runs share the user's mapped uid.
//     The per-run pids cgroup bounds processes instead.
//   - RLIMIT_AS breaks runtimes that reserve address space (the JVM, Go,
//     sanitizers); memory.max bounds what is used.
//   - RLIMIT_CPU: the runner's deadlines on the cgroup's cpu.stat decide TLE.
func Rlimits(memoryBytes, fileBytes, stackBytes int64) []Rlimit {
	stack := uint64(DefaultStackBytes)
	if memoryBytes > 0 {
		// Stack = memory limit, as many judges do: recursion as deep as
		// memory allows. Stack pages are charged to memory.max like any
		// other, so this lets nothing past the memory limit.
		stack = uint64(memoryBytes)
	}
	if stackBytes > 0 {
		// A judge's own stack limit (isolate's -k): smaller only, a
		// larger one would promise stack the memory limit does not give.
		stack = min(stack, uint64(stackBytes))
	}
	rl := []Rlimit{
		// No core file: it would fill the scratch and spend the run's
		// time; a piped core_pattern (systemd-coredump) reads this limit
		// and stores nothing either.
		{Type: "RLIMIT_CORE", Soft: 0, Hard: 0},
		{Type: "RLIMIT_STACK", Soft: stack, Hard: stack},
		{Type: "RLIMIT_NOFILE", Soft: OpenFiles, Hard: OpenFiles},
	}
	if fileBytes > 0 {
		// No regular file may outgrow the scratch tmpfs; a write past it
		// gets SIGXFSZ (EFBIG where ignored) rather than ENOSPC. It also
		// bounds /dev/shm and memfd files, which the scratch size does not
		// (a memfd larger than the scratch fails too).
		rl = append(rl, Rlimit{Type: "RLIMIT_FSIZE", Soft: uint64(fileBytes), Hard: uint64(fileBytes)})
	}
	return rl
}
