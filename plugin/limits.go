package plugin

// The limit and deadline policy, in one file: what every run may use and
// when it is stopped, for the judged test, the checker, the interactor,
// the build and each front (isolate, omegajail, the protocol's Run and
// Exec). Every function here only computes: the Runner applies the values
// (armed.go's watch, deadline.go's watcher, run.go's container spec).

import (
	"cmp"
	"time"

	"github.com/podjail/podjail/plugin/isolate"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
	"github.com/podjail/podjail/plugin/problem"
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

// Checker limits: a checker is trusted to be quick, not to be correct.
const (
	checkerTime   = 10 * time.Second
	checkerMemory = 512 << 20
	checkerOutput = 64 << 10 // of its message kept for the note
	checkerStdout = 1 << 20  // past it the checker is stopped
)

// Build limits besides the language's own time and memory.
const (
	buildOutputLimit = 4 << 20 // past it the build is stopped
	buildPids        = 128     // gcc runs cc1, as, collect2, ld
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
// decided on the program's own time against l (verdict.go).
func DeadlinesFor(l time.Duration) Deadlines {
	return Deadlines{CPU: l + 2*time.Second, Idle: 4*l + 4*time.Second, Wall: 5 * (l + 2*time.Second)}
}

// Limits are a run's resource limits, RunRequest's Limits group (the
// shape of envexec.Cmd's limits). Each field documents its zero value; a
// zero limit that has a default gets it in RunRequest.Check.
type Limits struct {
	// Time is the program's time limit L, for its judge: a caller that
	// wants a verdict asks RunVerdict, which judges the figures against
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

// Bounds are what the policy functions of this file give a run: its
// limits and its deadlines, one value. Set puts them on a request.
type Bounds struct {
	Limits
	Deadlines
}

// Set writes b into req's Limits and Wait.Deadlines, all of them (CPUSet
// too: a judge pins its runs after Set).
func (b Bounds) Set(req *RunRequest) {
	req.Limits, req.Wait.Deadlines = b.Limits, b.Deadlines
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

// WithDefaults is b with its limits' defaults filled in.
func (b Bounds) WithDefaults() Bounds {
	b.Limits = b.Limits.WithDefaults()
	return b
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

// memoryLimit is the memory a run asking for b gets: b, or the ceiling.
func (r *Runner) memoryLimit(b int64) int64 {
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

// TestTimeLimit is the limit L a problem's tests are judged against in
// language l: the problem's plus the language's extra time.
func TestTimeLimit(p *problem.Problem, l lang.Language) time.Duration {
	return p.TimeLimit + l.ExtraTime
}

// testLimits are a judged test's (the submission's run, batch or
// interactive): the problem's memory and output, one core, and the three
// deadlines from L. The verdict is the judge's (no Time: the run itself
// decides none).
func testLimits(p *problem.Problem, limit time.Duration) Bounds {
	return Bounds{Deadlines: DeadlinesFor(limit), Limits: Limits{Output: p.OutputBytes, Memory: p.MemoryBytes, CPUs: 1}}
}

// checkerLimits are a checker's run on one output.
func checkerLimits() Bounds {
	return Bounds{Limits: Limits{Output: checkerStdout, Memory: checkerMemory}, Deadlines: Deadlines{CPU: checkerTime, Wall: 3 * checkerTime}}
}

// interactorLimits are an interactor's, beside a test of limit L: it
// outlives the solution's absolute cap by its own processor time.
func interactorLimits(p *problem.Problem, limit time.Duration) Bounds {
	return Bounds{Limits: Limits{Output: p.OutputBytes, Memory: checkerMemory},
		Deadlines: Deadlines{CPU: checkerTime, Wall: DeadlinesFor(limit).Wall + checkerTime}}
}

// buildLimits are a build's: the language's compile time and memory, a
// bounded output, room for a compiler's processes.
func buildLimits(l lang.Language) Bounds {
	t, memory := l.BuildLimits()
	return Bounds{Limits: Limits{Output: buildOutputLimit, Memory: memory, Pids: buildPids},
		Deadlines: Deadlines{CPU: t, Wall: 3*t + 10*time.Second}}
}

// isolateUnlimitedPids stands for -p without a number, isolate's
// "unlimited": podjail keeps a ceiling all the same, a fork bomb's bound.
const isolateUnlimitedPids = 4096

// IsolateLimits are the isolate front's, from its options: -t, -x, -w,
// -p, -f, --cg-mem or -m, and -k.
func IsolateLimits(cmd isolate.Command) Bounds {
	l := Bounds{Limits: Limits{Time: cmd.Time, Pids: int64(cmd.Processes)}, Deadlines: Deadlines{Wall: cmd.WallTime}}
	if cmd.Processes == 0 {
		l.Pids = isolateUnlimitedPids
	}
	// isolate kills at -t, or -x later: so does the processor ceiling,
	// counted from the go on the run's cgroup (podjail's 2 s margin is
	// for judges, not for a caller that reads the time back, as CMS does).
	if cmd.Time > 0 {
		l.CPU = cmd.Time + cmd.ExtraTime
	}
	if l.Time <= 0 {
		l.Time = cmd.WallTime
	}
	if cmd.FsizeKiB > 0 {
		l.FileSize = int64(cmd.FsizeKiB) << 10 // CMS gives 1 GiB, Judge0 1-10 MiB
	}
	switch {
	case cmd.CGMemKiB > 0:
		l.Memory = int64(cmd.CGMemKiB) << 10
	case cmd.MemKiB > 0:
		l.Memory = int64(cmd.MemKiB) << 10
	}
	// isolate's RLIMIT_STACK; podjail's own rlimits cap it at the memory
	// limit. -k 0 (isolate: unlimited) leaves the stack = memory limit.
	l.Stack = int64(cmd.StackKiB) << 10
	return l
}

// OmegajailLimits are the omegajail front's run: -t as it is (no
// language's extra time: omegajail adds none; quark adds 1000 to a Java
// time limit, but in nanoseconds, and sends it in whole ms), else the wall
// time; the absolute cap from the go (the container's start is not
// counted); the memory and output limits as given.
func OmegajailLimits(req omegajail.Request) Bounds {
	l := Bounds{Deadlines: Deadlines{Wall: req.WallTimeLimit()}}
	if req.TimeLimitMs != nil {
		l.Time = time.Duration(*req.TimeLimitMs) * time.Millisecond
	}
	if l.Time == 0 {
		l.Time = req.WallTimeLimit()
	}
	if req.MemoryLimit != nil {
		l.Memory = int64(*req.MemoryLimit)
	}
	if req.OutputLimit != nil {
		l.Output = int64(*req.OutputLimit)
	}
	return l
}

// OmegajailBuildLanguage is l with the omegajail front's compile time
// limit (-t, when given) as its build time limit.
func OmegajailBuildLanguage(req omegajail.Request, l lang.Language) lang.Language {
	if req.TimeLimitMs != nil {
		l.BuildTimeLimit = time.Duration(*req.TimeLimitMs) * time.Millisecond
	}
	return l
}

// HandleLimits are the protocol's Run of a handle: its time is a
// processor ceiling, not a verdict's L (the caller judges from the
// figures), one core.
func HandleLimits(timeLimit, wall time.Duration, memory, output int64) Bounds {
	return Bounds{Limits: Limits{Output: output, Memory: memory, CPUs: 1}, Deadlines: Deadlines{CPU: timeLimit, Wall: wall}}
}
