// Package killed holds the texts of the reasons podjail stops a run,
// written once: the mechanism's KillReason (plugin/runner) writes them into
// RunResult's JSON "killed" field and the protocol's KillReason, and the
// protocol's client (plugin/sandbox) names them in its Killed* constants.
// It imports nothing, so both take it without pulling in the other.
package killed

// The reasons' texts; none (the run was not stopped) is "".
const (
	OutputLimit = "output limit exceeded"         // stdout passed the output limit
	WallLimit   = "wall time limit exceeded"      // the absolute cap passed
	CPULimit    = "processor time limit exceeded" // the processor ceiling was reached
	Idle        = "no progress"                   // no progress for the idle deadline
	ByCaller    = "stopped by the caller"         // the caller stopped the run
)
