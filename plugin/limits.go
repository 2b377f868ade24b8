package plugin

// The limit and deadline policy, in one file: what every run may use and
// when it is stopped, for the judged test, the checker, the interactor,
// the build and each front (isolate, omegajail, the protocol's Run and
// Exec). Every function here only computes: the mechanism (plugin/runner)
// applies the values, and holds the request's groups and their defaults
// (plugin/runner/limits.go).

import (
	"time"

	"github.com/podjail/podjail/plugin/isolate"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
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

// Bounds are what the policy functions of this file give a run: its
// limits and its deadlines, one value. Set puts them on a request.
type Bounds struct {
	runner.Limits
	runner.Deadlines
}

// Set writes b into req's Limits and Wait.Deadlines, all of them (CPUSet
// too: a judge pins its runs after Set).
func (b Bounds) Set(req *runner.RunRequest) {
	req.Limits, req.Wait.Deadlines = b.Limits, b.Deadlines
}

// WithDefaults is b with its limits' defaults filled in.
func (b Bounds) WithDefaults() Bounds {
	b.Limits = b.Limits.WithDefaults()
	return b
}

// TestTimeLimit is the limit L a problem's tests are judged against in
// language l: the problem's plus the language's extra time.
func TestTimeLimit(p *problem.Problem, l lang.Language) time.Duration {
	return p.TimeLimit + l.ExtraTime
}

// testLimits are a judged test's (the submission's run, batch or
// interactive): the problem's memory and output, the language's stack
// (RunStack), one core, and the three deadlines from L. The verdict is the
// judge's (no Time: the run itself decides none).
func testLimits(p *problem.Problem, l lang.Language, limit time.Duration) Bounds {
	return Bounds{Deadlines: runner.DeadlinesFor(limit), Limits: runner.Limits{Output: p.OutputBytes, Memory: p.MemoryBytes,
		Stack: RunStack(l, p.MemoryBytes), CPUs: 1}}
}

// RunStack is the stack limit of a run of l under memory bytes of memory:
// the language's (lang.Language.StackBytes) when it has one, at most the
// memory; zero (the memory) otherwise.
func RunStack(l lang.Language, memory int64) int64 {
	if l.StackBytes == 0 {
		return 0
	}
	if memory > 0 {
		return min(l.StackBytes, memory)
	}
	return l.StackBytes
}

// checkerLimits are a checker's run on one output.
func checkerLimits() Bounds {
	return Bounds{Limits: runner.Limits{Output: checkerStdout, Memory: checkerMemory}, Deadlines: runner.Deadlines{CPU: checkerTime, Wall: 3 * checkerTime}}
}

// interactorLimits are an interactor's, beside a test of limit L: it
// outlives the solution's absolute cap by its own processor time.
func interactorLimits(p *problem.Problem, limit time.Duration) Bounds {
	return Bounds{Limits: runner.Limits{Output: p.OutputBytes, Memory: checkerMemory},
		Deadlines: runner.Deadlines{CPU: checkerTime, Wall: runner.DeadlinesFor(limit).Wall + checkerTime}}
}

// buildLimits are a build's: the language's compile time and memory, a
// bounded output, room for a compiler's processes.
func buildLimits(l lang.Language) Bounds {
	t, memory := l.BuildLimits()
	return Bounds{Limits: runner.Limits{Output: buildOutputLimit, Memory: memory, Pids: buildPids},
		Deadlines: runner.Deadlines{CPU: t, Wall: 3*t + 10*time.Second}}
}

// isolateUnlimitedPids stands for -p without a number, isolate's
// "unlimited": podjail keeps a ceiling all the same, a fork bomb's bound.
const isolateUnlimitedPids = 4096

// IsolateLimits are the isolate front's, from its options: -t, -x, -w,
// -p, -f, --cg-mem or -m, and -k. The deadlines are isolate's own
// (isolate.Command's CPUKill and WallKill) and nothing shorter: no
// no-progress window, no margin; the front decides TO from the figures as
// isolate does (Command.TimedOut), so the request has no Limits.Time.
func IsolateLimits(cmd isolate.Command) Bounds {
	l := Bounds{Limits: runner.Limits{Pids: int64(cmd.Processes)},
		Deadlines: runner.Deadlines{CPU: cmd.CPUKill(), Wall: cmd.WallKill()}}
	if cmd.Processes == 0 {
		l.Pids = isolateUnlimitedPids
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
// time; the processor ceiling where omegajail's RLIMIT_CPU stops the
// program (Request.CPUTimeLimit), counted on every process of the program;
// the absolute cap from the go (the container's start is not counted);
// the memory and output limits as given.
func OmegajailLimits(req omegajail.Request) Bounds {
	l := Bounds{Deadlines: runner.Deadlines{CPU: req.CPUTimeLimit(), Wall: req.WallTimeLimit()}}
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
	return Bounds{Limits: runner.Limits{Output: output, Memory: memory, CPUs: 1}, Deadlines: runner.Deadlines{CPU: timeLimit, Wall: wall}}
}
