package plugin

// The run mechanism lives in plugin/runner (how to run: the request, the
// armed runs, the warm pool, the result with its typed status); this
// package is the judging layer on top of it. Callers (cmd/podjail, the
// service) import plugin/runner for the mechanism's names; the ones
// aliased below are those this package's own code still names unqualified.

import (
	"context"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin/runner"
)

// The mechanism's types.
type (
	RunRequest   = runner.RunRequest
	RunResult    = runner.RunResult
	Limits       = runner.Limits
	Wait         = runner.Wait
	Deadlines    = runner.Deadlines
	KillReason   = runner.KillReason
	Measure      = runner.Measure
	ShimError    = runner.ShimError
	RequestError = runner.RequestError
	Armed        = runner.Armed
	Instance     = runner.Instance
)

// Why a run was stopped (runner.KillReason).
const (
	NotKilled         = runner.NotKilled
	KilledOutputLimit = runner.KilledOutputLimit
	KilledWallLimit   = runner.KilledWallLimit
	KilledCPULimit    = runner.KilledCPULimit
	KilledIdle        = runner.KilledIdle
	KilledByCaller    = runner.KilledByCaller
)

// How a run ended (runner.Status).
const (
	StatusExited       = runner.StatusExited
	StatusSignalled    = runner.StatusSignalled
	StatusTime         = runner.StatusTime
	StatusMemory       = runner.StatusMemory
	StatusOutput       = runner.StatusOutput
	StatusSyscall      = runner.StatusSyscall
	StatusStopped      = runner.StatusStopped
	StatusNeverStarted = runner.StatusNeverStarted
)

// DeadlinesFor is runner.DeadlinesFor: the three deadlines from L.
func DeadlinesFor(l time.Duration) Deadlines { return runner.DeadlinesFor(l) }

// Self is runner.Self.
func Self() (Instance, error) { return runner.Self() }

// HandBack is runner.HandBack.
func HandBack(ctx context.Context, dirs []string) error { return runner.HandBack(ctx, dirs) }

// SweepParents is runner.SweepParents.
func SweepParents(ctx context.Context, d cgroupdrv.Driver, self Instance) ([]string, error) {
	return runner.SweepParents(ctx, d, self)
}

// Runner is the mechanism's Runner with what judging adds: the cores tests
// are pinned to and the warm pool builds take their runs from.
type Runner struct {
	runner.Runner
	// Cores are the cores runs may be pinned to, one run on each, for
	// judging tests side by side (JudgeRequest.Parallel). Zero value:
	// tests run one at a time.
	Cores []int

	builds *runner.Warm // NewWarm's, which builds are then armed ahead by; nil: none
}

// NewWarm keeps armed runs of r (runner.NewWarm); r's builds (Build,
// BuildFiles, Judge's) and RunFiles take its armed runs from then on.
func NewWarm(r *Runner, dir string, shapes int) *runner.Warm {
	w := runner.NewWarm(&r.Runner, dir, shapes)
	r.builds = w
	return w
}

// Sweep is runner.Sweep.
func Sweep(ctx context.Context, rt bindings.Runtime, self Instance) ([]string, error) {
	return runner.Sweep(ctx, rt, self)
}

// WorkDir is runner.WorkDir.
func WorkDir(parent string, self Instance) (string, error) { return runner.WorkDir(parent, self) }

// SweepWorkDirs is runner.SweepWorkDirs.
func SweepWorkDirs(ctx context.Context, parent string, self Instance) ([]string, error) {
	return runner.SweepWorkDirs(ctx, parent, self)
}
