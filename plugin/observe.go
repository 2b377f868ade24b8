package plugin

import (
	"context"
	"errors"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin/runner"
)

// Observer is told what a Runner does, for metrics (podjail serve
// --metrics: package internal/metrics). Its methods are called from the
// Runner's goroutines, many at once, and must return at once. A Runner
// whose Observer is nil tells nobody.
type Observer interface {
	// The mechanism's events: phases, gauges, armed runs, sweeps.
	runner.Observer
	// Judged says Judge ended with res, or with err (res then says
	// nothing); CauseOf(err) is "" for a request refused.
	Judged(res JudgeResult, err error)
	// Built says a build ended (BuildFiles: a submission's, a checker's,
	// a service's Compile): res, or err.
	Built(res BuildResult, err error)
}

// The mechanism's events (plugin/runner/observe.go).
type (
	Phase      = runner.Phase
	Gauge      = runner.Gauge
	ArmedEvent = runner.ArmedEvent
	Orphan     = runner.Orphan
)

// The mechanism's events, by name.
const (
	PhaseCreate     = runner.PhaseCreate
	PhaseStart      = runner.PhaseStart
	PhaseRun        = runner.PhaseRun
	PhaseRemove     = runner.PhaseRemove
	GaugeLiveRuns   = runner.GaugeLiveRuns
	GaugeSlots      = runner.GaugeSlots
	ArmedTaken      = runner.ArmedTaken
	ArmedMissed     = runner.ArmedMissed
	ArmedIdle       = runner.ArmedIdle
	ArmedEvicted    = runner.ArmedEvicted
	ArmedClosed     = runner.ArmedClosed
	ArmedReleased   = runner.ArmedReleased
	OrphanContainer = runner.OrphanContainer
	OrphanParent    = runner.OrphanParent
)

// Phases and ArmedWasted are the mechanism's.
var (
	Phases      = runner.Phases
	ArmedWasted = runner.ArmedWasted
)

// Cause says whose failure an internal error (IE) was: a small fixed set.
type Cause string

const (
	// CauseRuntime: the Podman service failed, or did not answer in time.
	CauseRuntime Cause = "runtime"
	// CauseHost: the host: a cgroup, systemd over D-Bus, an image
	// missing, a file of ours.
	CauseHost Cause = "host"
	// CauseShim: podjail-shim failed in the container, or never reported.
	CauseShim Cause = "shim"
	// CauseBuild: the submission's build failed for a reason of ours
	// (not a compile error).
	CauseBuild Cause = "build"
	// CauseChecker: the checker's or interactor's build or run failed
	// for a reason of ours.
	CauseChecker Cause = "checker"
	// CauseInterrupted: the judge was ended (the caller went away, the
	// service stopped).
	CauseInterrupted Cause = "interrupted"
	// CauseOther: anything else.
	CauseOther Cause = "other"
)

// Causes are every Cause.
var Causes = []Cause{CauseRuntime, CauseHost, CauseShim, CauseBuild, CauseChecker, CauseInterrupted, CauseOther}

// CauseOf says whose failure err is: "" for a request refused (the
// caller's), else one of the Causes.
func CauseOf(err error) Cause {
	var bad *runner.RequestError
	var missing *bindings.ImageMissingError
	var shimErr *runner.ShimError
	var unreachable *bindings.UnreachableError
	switch {
	case err == nil, errors.As(err, &bad):
		return ""
	case errors.Is(err, context.Canceled):
		return CauseInterrupted
	case errors.As(err, &shimErr):
		return CauseShim
	case errors.As(err, &missing), errors.Is(err, bindings.ErrTooOld), errors.Is(err, runner.ErrHost),
		errors.Is(err, cgroupdrv.ErrBusUnreachable), errors.Is(err, cgroupdrv.ErrJob), errors.Is(err, cgroupdrv.ErrBusy),
		errors.Is(err, cgroupdrv.ErrUnsupported), errors.Is(err, cgroupdrv.ErrNotUnified), errors.Is(err, cgroupdrv.ErrNoDelegation):
		return CauseHost
	case errors.As(err, &unreachable), errors.Is(err, bindings.ErrPodman), errors.Is(err, context.DeadlineExceeded):
		return CauseRuntime
	}
	return CauseOther
}

// ieCause is why a test decided from o was IE ("" for another verdict):
// the run's failure, or a run that never started (the runtime's).
func ieCause(v Verdict, o testOutcome) Cause {
	switch {
	case v != IE:
		return ""
	case o.err != nil:
		return CauseOf(o.err)
	}
	return CauseRuntime
}

// observe is the Runner's Observer, or one that is told nothing: the
// mechanism's Observer, when it is a plugin.Observer (Setup's is).
func (r *Runner) observe() Observer {
	if o, ok := r.Runner.Observer.(Observer); ok {
		return o
	}
	return nobody{runner.OrNobody(r.Runner.Observer)}
}

// orNobody is o, or for nil an Observer that is told nothing.
func orNobody(o Observer) Observer {
	if o == nil {
		return nobody{runner.OrNobody(nil)}
	}
	return o
}

// nobody is told none of the judging layer's events; the mechanism's go
// to its runner.Observer.
type nobody struct{ runner.Observer }

func (nobody) Judged(JudgeResult, error) {}
func (nobody) Built(BuildResult, error)  {}
