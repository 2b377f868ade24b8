package runner

import (
	"fmt"

	"github.com/podjail/podjail/plugin/killed"
)

// KillReason says why podjail stopped a run; NotKilled: it did not (the
// program ended on its own, or the runtime ended it). Its text is what
// RunResult's JSON "killed" field and the protocol's KillReason carry.
type KillReason uint8

// Reasons for RunResult.Killed.
const (
	NotKilled         KillReason = iota
	KilledOutputLimit            // stdout passed the request's Limits.Output
	KilledWallLimit              // the absolute cap (Wait.Wall) passed
	KilledCPULimit               // the processor ceiling (Wait.CPU) was reached
	KilledIdle                   // no progress for Wait.Idle
	KilledByCaller               // the request's Wait.Stop was closed
)

var killText = [...]string{
	NotKilled:         "",
	KilledOutputLimit: killed.OutputLimit,
	KilledWallLimit:   killed.WallLimit,
	KilledCPULimit:    killed.CPULimit,
	KilledIdle:        killed.Idle,
	KilledByCaller:    killed.ByCaller,
}

func (k KillReason) String() string {
	if int(k) < len(killText) {
		return killText[k]
	}
	return fmt.Sprintf("KillReason(%d)", uint8(k))
}

// Deadline says whether k is one of the three deadlines.
func (k KillReason) Deadline() bool {
	return k == KilledCPULimit || k == KilledIdle || k == KilledWallLimit
}

// MarshalText writes k's text, as the open string it replaces did.
func (k KillReason) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a text MarshalText wrote (a service's report).
func (k *KillReason) UnmarshalText(b []byte) error {
	for i, t := range killText {
		if t == string(b) {
			*k = KillReason(i)
			return nil
		}
	}
	return fmt.Errorf("unknown kill reason %q", b)
}

// Status says, in one word, how a run ended: the shape of go-sandbox's
// runner.Status, in the order the verdict looks at them. It is a fact of
// the run, not a verdict: a judge decides from it and its figures.
type Status uint8

// Statuses, each a RunResult's Status().
const (
	// StatusExited: the program exited on its own; ExitCode says how.
	StatusExited Status = iota
	// StatusSignalled: a signal ended it (Signal), not one of podjail's
	// stops.
	StatusSignalled
	// StatusTime: one of the three deadlines stopped it (Killed).
	StatusTime
	// StatusMemory: it hit its memory limit (Measure.MemoryExceeded).
	StatusMemory
	// StatusOutput: its stdout passed the output limit.
	StatusOutput
	// StatusSyscall: the seccomp filter killed it (SIGSYS; Syscall).
	StatusSyscall
	// StatusStopped: the caller stopped it (the request's Wait.Stop).
	StatusStopped
	// StatusNeverStarted: a deadline passed with no processor time
	// recorded at all: the program never ran (the go never reached the
	// shim, the stream to the Podman service was cut).
	StatusNeverStarted
)

var statusText = [...]string{
	StatusExited:       "exited",
	StatusSignalled:    "signalled",
	StatusTime:         "time",
	StatusMemory:       "memory",
	StatusOutput:       "output",
	StatusSyscall:      "syscall",
	StatusStopped:      "stopped",
	StatusNeverStarted: "never started",
}

func (s Status) String() string {
	if int(s) < len(statusText) {
		return statusText[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Status classifies how the run ended, first match wins: a deadline
// (never started when the program used no processor time), the memory
// limit, the output limit, the caller's stop, a forbidden system call,
// another signal, else the program's own exit.
func (r RunResult) Status() Status {
	switch {
	case r.Killed.Deadline() && r.Measure.Time <= 0:
		return StatusNeverStarted
	case r.Killed.Deadline():
		return StatusTime
	case r.Measure.MemoryExceeded:
		return StatusMemory
	case r.Killed == KilledOutputLimit:
		return StatusOutput
	case r.Killed == KilledByCaller:
		return StatusStopped
	case r.Signal == "SIGSYS":
		return StatusSyscall
	case r.Signal != "":
		return StatusSignalled
	}
	return StatusExited
}
