// Package verdict holds the Verdict type, defined once: the judging layer
// (package plugin) decides verdicts, the protocol (package sandbox) carries
// them, and both import this leaf, which imports nothing of podjail.
package verdict

// Verdict is the judgement of one test or one job.
type Verdict string

// Verdicts. IE and CF are never the submission's fault.
const (
	AC  Verdict = "AC"  // accepted
	WA  Verdict = "WA"  // wrong answer
	PE  Verdict = "PE"  // presentation error (a checker says so)
	PA  Verdict = "PA"  // partially accepted (a checker gives points)
	TLE Verdict = "TLE" // time limit exceeded (which deadline in the note)
	MLE Verdict = "MLE" // memory limit exceeded
	OLE Verdict = "OLE" // output limit exceeded
	RTE Verdict = "RTE" // runtime error: non-zero exit code or a signal
	RFE Verdict = "RFE" // restricted function: a syscall the policy kills
	CE  Verdict = "CE"  // compilation error
	IE  Verdict = "IE"  // internal error: the run never started, the runtime or host failed
	CF  Verdict = "CF"  // checker (or interactor) failed or hit a limit
)

// All lists every verdict, in the order of the protocol's enum.
func All() []Verdict {
	return []Verdict{AC, WA, PE, PA, TLE, MLE, OLE, RTE, RFE, CE, IE, CF}
}

// severity orders verdicts for a job: the job's verdict is its worst
// test's. Failures of ours come first (they void the judgement), then the
// submission's, hardest first: a limit verdict says more than the wrong
// answer that usually follows it.
var severity = map[Verdict]int{
	IE: 11, CF: 10, CE: 9, RFE: 8, MLE: 7, TLE: 6, OLE: 5, RTE: 4, WA: 3, PE: 2, PA: 1, AC: 0,
}

// Worse reports whether a is a worse verdict than b.
func Worse(a, b Verdict) bool { return severity[a] > severity[b] }
