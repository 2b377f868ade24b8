package plugin

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/podjail/podjail/plugin/compare"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/verdict"
)

// Verdict is the leaf package's (plugin/verdict), aliased here so that
// plugin's callers (cmd/podjail, the service) keep compiling unchanged.
type Verdict = verdict.Verdict

// Verdicts, the leaf package's.
const (
	AC  = verdict.AC
	WA  = verdict.WA
	PE  = verdict.PE
	PA  = verdict.PA
	TLE = verdict.TLE
	MLE = verdict.MLE
	OLE = verdict.OLE
	RTE = verdict.RTE
	RFE = verdict.RFE
	CE  = verdict.CE
	IE  = verdict.IE
	CF  = verdict.CF
)

// Worse reports whether a is a worse verdict than b (verdict.Worse).
func Worse(a, b Verdict) bool { return verdict.Worse(a, b) }

// testOutcome is what a test's verdict is decided from.
type testOutcome struct {
	res     runner.RunResult
	err     error // a failure of the run itself (runtime, shim): IE
	limit   time.Duration
	diff    *compare.Diff
	matched bool // the comparator accepted (ignored when a checker decides)
	// memoryExit is the exit code by which the language's runtime says it
	// ran out of memory; 0 none.
	memoryExit int
}

// judgeTest is the one caller of decideVerdict: tr judged on o, with the
// run and the figures the verdict was decided on (a verdict always carries
// them). A batch test, an interactive test's solution and a run with a
// time limit (RunVerdict) are all judged here.
func judgeTest(tr TestResult, o testOutcome) TestResult {
	tr.Run, tr.Time, tr.Peak = o.res, o.res.Measure.Time, o.res.Measure.Peak
	tr.Verdict, tr.Note = decideVerdict(o)
	tr.Cause = ieCause(tr.Verdict, o)
	return tr
}

// RunVerdict judges one run of req against its Limits.Time and limits,
// the answer aside (AC: it ran within them): the verdict of the fronts'
// runs and the protocol's Exec, which ask it of the mechanism's result.
// Empty without a time limit.
func RunVerdict(req runner.RunRequest, res runner.RunResult) (Verdict, string) {
	if req.Limits.Time <= 0 {
		return "", ""
	}
	tr := judgeTest(TestResult{}, testOutcome{res: res, limit: req.Limits.Time, matched: true, memoryExit: req.MemoryExitCode})
	return tr.Verdict, tr.Note
}

// JudgedRun is a run with its verdict (RunVerdict): what the fronts and
// the protocol's Exec report. Its JSON is the RunResult's fields then
// "verdict" and "verdict_note", both left out when empty.
type JudgedRun struct {
	runner.RunResult
	// Verdict and VerdictNote judge the run against the request's
	// Limits.Time and limits (the answer is not looked at: AC means it
	// ran within them). Empty without a time limit.
	Verdict     Verdict `json:"verdict,omitempty"`
	VerdictNote string  `json:"verdict_note,omitempty"`
}

// JudgeRun is res with its verdict against req (RunVerdict).
func JudgeRun(req runner.RunRequest, res runner.RunResult) JudgedRun {
	v, note := RunVerdict(req, res)
	return JudgedRun{RunResult: res, Verdict: v, VerdictNote: note}
}

// decideVerdict applies the rules, in order: a failure of ours is IE; a
// deadline is TLE unless the program never used processor time (then it
// never ran: IE); the memory limit (the cgroup's, or a runtime's own heap
// by its exit code) is MLE; a charged time over the limit is TLE whatever
// else the run did after (as isolate, Kattis and DOMjudge judge it: a
// program that spends 1.5 s of a 1 s limit and then crashes timed out);
// then output, system call, signal and exit code; then the answer.
func decideVerdict(o testOutcome) (Verdict, string) {
	r := o.res
	m := r.Measure
	if o.err != nil {
		var se *runner.ShimError
		if errors.As(o.err, &se) {
			return IE, "the shim failed: " + se.Error()
		}
		return IE, o.err.Error()
	}
	st := r.Status()
	switch st {
	case runner.StatusNeverStarted:
		// The go never reached the shim, or the program never got a
		// processor: a host too busy, or a runtime that failed under it.
		return IE, fmt.Sprintf("the run never started: %s with no processor time recorded (%s); is the host overloaded, or did its container runtime fail?", r.Killed, r.KilledNote)
	case runner.StatusTime:
		return TLE, fmt.Sprintf("%s: %s", deadlineName(r.Killed), r.KilledNote)
	}
	// The memory limit before the time: a program pressing on its limit
	// is charged the kernel's reclaim (system time) or its runtime's
	// collections, which the limit itself causes.
	switch {
	case st == runner.StatusMemory:
		return MLE, fmt.Sprintf("memory limit hit (%s); peak %s", m.MemoryFrom, bytesText(m.Peak))
	case st == runner.StatusExited && o.memoryExit != 0 && int(r.ExitCode) == o.memoryExit:
		// A runtime with a heap of its own (a JVM) stops at its heap's
		// limit, below the cgroup's, and says so only by its exit code.
		return MLE, fmt.Sprintf("the runtime ran out of memory (exit code %d); peak %s", r.ExitCode, bytesText(m.Peak))
	}
	if t := chargedTime(r); t > o.limit {
		note := fmt.Sprintf("time %.3f s over the limit %.3f s", t.Seconds(), o.limit.Seconds())
		if after := endText(o); after != "" {
			note += ", then " + after
		}
		return TLE, note
	}
	switch st {
	case runner.StatusExited:
		if r.ExitCode != 0 {
			return RTE, fmt.Sprintf("exit code %d", r.ExitCode)
		}
	case runner.StatusOutput:
		return OLE, r.KilledNote
	case runner.StatusSyscall:
		if r.Syscall != "" {
			return RFE, "killed by SIGSYS: " + r.Syscall + ", which the policy refuses"
		}
		return RFE, "killed by SIGSYS: a system call the policy refuses (which one: " + r.SyscallUnknown + ")"
	case runner.StatusSignalled:
		return RTE, "killed by " + r.Signal
	}
	if o.diff != nil {
		return WA, o.diff.String()
	}
	if !o.matched {
		return WA, "output differs"
	}
	return AC, ""
}

// endText says how a run that went over its time limit ended, for the
// TLE's note: "" when it exited 0 or podjail stopped it at the answer.
func endText(o testOutcome) string {
	r := o.res
	switch r.Status() {
	case runner.StatusOutput:
		return "passed the output limit"
	case runner.StatusSyscall, runner.StatusSignalled:
		return "killed by " + r.Signal
	case runner.StatusExited:
		if r.ExitCode != 0 {
			return fmt.Sprintf("exit code %d", r.ExitCode)
		}
	}
	return ""
}

// chargedTime is the time judged against the limit. A run stopped at the
// answer's first difference (its signal and exit code are podjail's stop:
// the answer decides) is charged what it used until the stop was decided;
// what it ran on while its container was being killed (seconds on a busy
// host) is podjail's latency, not the program's.
func chargedTime(r runner.RunResult) time.Duration {
	if r.Status() == runner.StatusStopped && r.TimeAtStop > 0 && r.TimeAtStop < r.Measure.Time {
		return r.TimeAtStop
	}
	return r.Measure.Time
}

func deadlineName(killed runner.KillReason) string {
	switch killed {
	case runner.KilledCPULimit:
		return "processor ceiling"
	case runner.KilledIdle:
		return "no progress"
	default:
		return "absolute cap"
	}
}

func bytesText(b int64) string {
	if b < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// stopNotes joins what says a helper's run (a checker's, an
// interactor's) did not end on its own, "" when it did.
func stopNotes(res runner.RunResult) string {
	var why []string
	if res.Killed != runner.NotKilled {
		why = append(why, res.Killed.String())
	}
	if res.Measure.MemoryExceeded {
		why = append(why, "memory limit exceeded")
	}
	if res.Signal != "" {
		why = append(why, "killed by "+res.Signal)
	}
	return strings.Join(why, ", ")
}
