// Package validator holds the protocols by which a problem's checker or
// interactor (its validator) is called and answers: how it is run on a
// test, and how its run becomes a verdict. A problem carries its protocol
// (problem.Problem.Protocol), chosen by the format that loaded it; the
// judge runs whichever it is given and knows no format.
//
// Two protocols exist: Testlib (podjail's plain layout, testlib's exit
// codes) and Kattis (the Kattis problem package format's output
// validators, also DOMjudge's).
package validator

import (
	"github.com/podjail/podjail/plugin/verdict"
)

// Files are where a validator finds one test's files inside its
// container.
type Files struct {
	Input  string // the test's input
	Answer string // the test's answer
	// Output is the submission's output as a file; a checker of a protocol
	// whose call has OutputOnStdin reads it on its stdin instead.
	Output string
	// Feedback is the validator's writable directory of its own, with a
	// trailing slash; "" for a protocol without one (Call.Feedback false).
	Feedback string
}

// Call is how a validator is run on one test.
type Call struct {
	// Args follow the validator's run command.
	Args []string
	// OutputOnStdin gives a checker the submission's output on its stdin
	// (Kattis); false: as the file Files.Output among Args (testlib).
	OutputOnStdin bool
}

// Judgement is a validator's answer on one test.
type Judgement struct {
	Verdict verdict.Verdict
	// Note is what the validator said, for the test's note: a judge
	// message, or the first line of its output.
	Note string
	// Points are a testlib checker's partial points (PA); 0 otherwise.
	Points float64
}

// Ended is how a validator's run ended, as the judge read it.
type Ended struct {
	ExitCode int
	// Output is the head of what it wrote on stdout and stderr (a
	// checker's; an interactor's stdout is the submission's input).
	Output string
	// FeedbackDir is the host directory that was its feedback directory,
	// "" when the protocol gives none.
	FeedbackDir string
}

// Protocol is a validator calling convention.
type Protocol interface {
	// Name is the protocol's name: "testlib", "kattis".
	Name() string
	// Feedback says the validator gets a writable feedback directory of
	// its own on every test (Files.Feedback).
	Feedback() bool
	// Checker is a checker's call on one test: after the submission ran,
	// with its whole output. args are the problem's and the test's extra
	// arguments for the validator.
	Checker(f Files, args []string) Call
	// Interactor is an interactor's call on one test: run beside the
	// submission, its stdin the submission's stdout and its stdout the
	// submission's stdin.
	Interactor(f Files, args []string) Call
	// Judge reads a validator's answer from how its run ended. A
	// validator that was stopped, killed or failed to run is the judge's
	// to report before this is asked.
	Judge(e Ended) Judgement
	// InteractorFirst says an interactor's judgement decides an
	// interactive test before the submission's own facts (its limits, its
	// exit): endedFirst says the interactor ended before the submission.
	InteractorFirst(j Judgement, endedFirst bool) bool
}
