package plugin

// The run mechanism lives in plugin/runner (how to run: the request, the
// armed runs, the warm pool, the result with its typed status); this
// package is the judging layer on top of it. Callers (cmd/podjail, the
// service) and this package name the mechanism's types, constants and
// functions as plugin/runner's: nothing of it is re-exported here.

import (
	"github.com/podjail/podjail/plugin/runner"
)

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
