package isolate

import (
	"fmt"
	"strings"
)

// The constructors below give the Meta isolate writes for each way a
// run ends (box_keeper and check_timeout in isolate.c), messages
// included, so the wiring only says what happened.

// Exited is a program that exited by itself with code: exitcode, and for
// a non-zero code status RE.
func Exited(s Stats, code int) Meta {
	m := Meta{Stats: &s, ExitCode: &code}
	if code != 0 {
		m.Status, m.Message = StatusRE, fmt.Sprintf("Exited with error status %d", code)
	}
	return m
}

// Signaled is a program a signal ended (the OOM killer's SIGKILL
// included; set Stats.CgOOMKilled for that).
func Signaled(s Stats, sig int) Meta {
	return Meta{Stats: &s, ExitSig: sig, Status: StatusSG, Message: fmt.Sprintf("Caught fatal signal %d", sig)}
}

// TimedOut is a program over its processor time limit, or with wall
// over its wall-clock limit. killed says the sandbox killed it while it
// ran; else it ended by itself and was found over the limit afterwards,
// which isolate checks before the exit status.
func TimedOut(s Stats, wall, killed bool) Meta {
	msg := "Time limit exceeded"
	if wall {
		msg += " (wall clock)"
	}
	return Meta{Stats: &s, Killed: killed, Status: StatusTO, Message: msg}
}

// Failed is an error of the sandbox before the program ran: status XX
// and the message isolate also prints on stderr, on one line (a meta
// field ends at its newline; a judge reading a cut message, or none, could
// take the run for one that ended well).
func Failed(message string) Meta {
	return Meta{Status: StatusXX, Message: strings.Join(strings.Fields(message), " ")}
}

// NotExecutable is a program that could not be executed (no such file,
// not executable, a bad interpreter): isolate's child exits 127 after its
// failed execve, so a judge sees RE with exit code 127, not a sandbox
// error.
func NotExecutable(s Stats) Meta { return Exited(s, 127) }

// ExitCode is isolate's exit status for a run that wrote m: ExitOK with
// no status, ExitFailed for RE, SG and TO, ExitSandbox for XX (and any
// status isolate does not write).
func ExitCode(m Meta) int {
	switch m.Status {
	case StatusOK:
		return ExitOK
	case StatusRE, StatusSG, StatusTO:
		return ExitFailed
	}
	return ExitSandbox
}
