package runner

// The mechanism's side of the limits: the request's Limits and Wait
// groups, the defaults of their zero values, the shim's headroom, the
// largest values a run may ask for, and the rlimits they make. What each
// caller gets (the judged test, the checker, the build, each front) is the
// judging layer's policy, in plugin/limits.go.

import (
	"cmp"
	"time"

	"github.com/podjail/podjail/policy"
)

// Defaults of a RunRequest's zero-valued limits.
const (
	DefaultOutputLimit = 64 << 20
	DefaultMemory      = 256 << 20
	DefaultPids        = 64
	DefaultCPUs        = 1.0
)

// Room the container gets above the program's own limits, for the shim
// (a static Go binary: a few MiB, a handful of threads) and its probe.
const (
	shimMemoryHeadroom = 32 << 20
	shimPidsHeadroom   = 16
)

// The largest memory and pids a run may ask for: a pebibyte, and the
// kernel's largest pid_max.
const (
	maxMemoryBytes = 1 << 50
	maxPids        = 1 << 22
)

// Deadlines are what ends a run early, each counted from the go. The
// processor ceiling and the absolute cap stop a program that would run for
// ever; no progress stops one that sleeps. A zero field is no deadline.
type Deadlines struct {
	CPU  time.Duration // processor ceiling: the parent cgroup's CPU since the go
	Idle time.Duration // no progress: elapsed time with neither CPU nor CPU pressure growing
	Wall time.Duration // absolute cap: elapsed time
}

// DeadlinesFor is the judge's policy for a test whose time limit is l (the
// problem's plus the language's extra time): processor ceiling l + 2 s, no
// progress 4l + 4 s, absolute cap 5(l + 2 s). The margins absorb the
// container's own work after the go and a busy host; the verdict is still
// decided on the program's own time against l (plugin/verdict.go).
func DeadlinesFor(l time.Duration) Deadlines {
	return Deadlines{CPU: l + 2*time.Second, Idle: 4*l + 4*time.Second, Wall: 5 * (l + 2*time.Second)}
}

// Limits are a run's resource limits, RunRequest's Limits group (the
// shape of envexec.Cmd's limits). Each field documents its zero value; a
// zero limit that has a default gets it in RunRequest.Check.
type Limits struct {
	// Time is the program's time limit L, for its judge: a caller that
	// wants a verdict asks plugin.RunVerdict, which judges the figures against
	// it. Zero deadlines default from it (DeadlinesFor) in Check. Zero
	// value: no verdict.
	Time time.Duration
	// Memory is the memory limit in bytes (swap equal). Zero value:
	// DefaultMemory.
	Memory int64
	// Output caps stdout in bytes; past it the container is killed. Zero
	// value: DefaultOutputLimit.
	Output int64
	// Pids caps tasks. Zero value: DefaultPids.
	Pids int64
	// CPUs is the CPU quota in cores. Zero value: DefaultCPUs.
	CPUs float64
	// CPUSet pins the run to these cores ("3", "0-1"), so that runs side
	// by side do not share a core: the judge's slots set it. Zero value:
	// any core.
	CPUSet string
	// FileSize is the largest file the program may write (RLIMIT_FSIZE:
	// past it, SIGXFSZ): the isolate front's -f. Zero value: the size of
	// its scratch space, so that no file outgrows it.
	FileSize int64
	// Stack is the program's stack limit (RLIMIT_STACK: past it, SIGSEGV),
	// at most Memory: the isolate front's -k. Zero value: Memory,
	// recursion as deep as memory allows.
	Stack int64
}

// Wait is when a run is stopped before it ends on its own, RunRequest's
// Wait group (the shape of go-judge's waiter): its three deadlines and
// the caller's stop.
type Wait struct {
	// Deadlines stop the run; see Deadlines. CPU and Idle need a Runner
	// with Cgroups. Zero values: no deadline (Check fills them in from
	// Limits.Time when it is set).
	Deadlines
	// Stop, once closed, stops the run (KilledByCaller: a comparator's
	// first difference, set by the judge). Zero value: never.
	Stop <-chan struct{}
}

// WithDefaults fills in the defaults of zero output, memory, pids and
// CPUs.
func (l Limits) WithDefaults() Limits {
	l.Output = cmp.Or(l.Output, DefaultOutputLimit)
	l.Memory = cmp.Or(l.Memory, DefaultMemory)
	l.Pids = cmp.Or(l.Pids, DefaultPids)
	l.CPUs = cmp.Or(l.CPUs, DefaultCPUs)
	return l
}

// withDeadlines fills in zero deadlines from the time limit l, if any.
func (d Deadlines) withDeadlines(l time.Duration) Deadlines {
	if l > 0 {
		def := DeadlinesFor(l)
		d.CPU, d.Idle, d.Wall = cmp.Or(d.CPU, def.CPU), cmp.Or(d.Idle, def.Idle), cmp.Or(d.Wall, def.Wall)
	}
	return d
}

// defaultLimits is what Check does to a request's limits: the deadlines
// from its time limit, the defaults of the rest.
func defaultLimits(req *RunRequest) {
	req.Wait.Deadlines = req.Wait.Deadlines.withDeadlines(req.Limits.Time)
	req.Limits = req.Limits.WithDefaults()
}

// MemoryLimit is the memory a run asking for b gets: b, or the ceiling.
func (r *Runner) MemoryLimit(b int64) int64 {
	if r.MemoryCeiling > 0 && b > r.MemoryCeiling {
		return r.MemoryCeiling
	}
	return b
}

// rlimits are a run's rlimits: podjail's for judged runs (files no larger
// than the scratch space unless asked, the stack up to the memory limit),
// none for a writable run (a build keeps the image's: a compiler writes
// files larger than the scratch space).
func rlimits(req RunRequest, scratch int64) []policy.Rlimit {
	if req.Writable {
		return nil
	}
	return policy.Rlimits(req.Limits.Memory, cmp.Or(req.Limits.FileSize, scratch), req.Limits.Stack)
}
