package plugin

import (
	"context"
	"errors"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
)

// Observer is told what a Runner does, for metrics (podjail serve
// --metrics: package internal/metrics). Its methods are called from the
// Runner's goroutines, many at once, and must return at once. A Runner
// whose Observer is nil tells nobody.
type Observer interface {
	// Judged says Judge ended with res, or with err (res then says
	// nothing); CauseOf(err) is "" for a request refused.
	Judged(res JudgeResult, err error)
	// Built says a build ended (BuildFiles: a submission's, a checker's,
	// a service's Compile): res, or err.
	Built(res BuildResult, err error)
	// Phase says one phase of one container's life took d.
	Phase(p Phase, d time.Duration)
	// Gauge says what g counts changed by delta.
	Gauge(g Gauge, delta int)
	// Armed says what Warm did with a run it armed (the service's runs
	// armed ahead), or for one caller of a shape it keeps.
	Armed(e ArmedEvent)
	// Swept says n things left by podjail instances that are gone (or,
	// at Close, by this one's missed cleanups) were removed.
	Swept(o Orphan, n int)
}

// Phase is a phase of a container's life, as the debug log shows them
// (TestRunPhasesAreLogged).
type Phase string

// The phases an Observer is told of.
const (
	// PhaseCreate is the container's create.
	PhaseCreate Phase = "create"
	// PhaseStart is its start until the shim is armed (without the
	// shim: the start, at the go).
	PhaseStart Phase = "start"
	// PhaseRun is from the go to the shim's report (without one, the
	// container's exit): the program's run and what the runtime adds.
	PhaseRun Phase = "run"
	// PhaseRemove is the container's removal.
	PhaseRemove Phase = "remove"
)

// Phases are the phases, in order.
var Phases = []Phase{PhaseCreate, PhaseStart, PhaseRun, PhaseRemove}

// Gauge names a count of what is under way.
type Gauge string

const (
	// GaugeLiveRuns counts the runs whose go was sent and that have not
	// ended yet.
	GaugeLiveRuns Gauge = "live_runs"
	// GaugeSlots counts the slots of the judges under way (tests they
	// may run at once: JudgeResult.Parallel each).
	GaugeSlots Gauge = "slots"
)

// ArmedEvent is what became of a run Warm armed, or of a call of a shape
// it keeps.
type ArmedEvent string

const (
	// ArmedTaken: a call took a run armed ahead of it.
	ArmedTaken ArmedEvent = "taken"
	// ArmedMissed: a call of a shape Warm keeps found no run armed ahead
	// (the first of its shape, calls at once, the spare gone or failed)
	// and armed its own, or ran cold.
	ArmedMissed ArmedEvent = "missed"
	// The wasted: a run armed and removed unused, because no caller came
	// within warmIdle, another shape pushed it out, Warm closed, or its
	// caller went away (or could not give it its files).
	ArmedIdle     ArmedEvent = "idle"
	ArmedEvicted  ArmedEvent = "evicted"
	ArmedClosed   ArmedEvent = "closed"
	ArmedReleased ArmedEvent = "released"
)

// ArmedWasted are the events of a run armed and removed unused.
var ArmedWasted = []ArmedEvent{ArmedIdle, ArmedEvicted, ArmedClosed, ArmedReleased}

// Orphan is a kind of thing the sweeps remove.
type Orphan string

const (
	OrphanContainer Orphan = "container"
	OrphanParent    Orphan = "parent"
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

// errHost marks a failure of the host's (markHost).
var errHost = errors.New("host failure")

type hostError struct{ err error }

func (e *hostError) Error() string   { return e.err.Error() }
func (e *hostError) Unwrap() []error { return []error{e.err, errHost} }

// markHost marks err as the host's failure (CauseOf), its message
// unchanged.
func markHost(err error) error {
	if err == nil {
		return nil
	}
	return &hostError{err}
}

// CauseOf says whose failure err is: "" for a request refused (the
// caller's), else one of the Causes.
func CauseOf(err error) Cause {
	var bad *RequestError
	var missing *bindings.ImageMissingError
	var shimErr *ShimError
	var unreachable *bindings.UnreachableError
	switch {
	case err == nil, errors.As(err, &bad):
		return ""
	case errors.Is(err, context.Canceled):
		return CauseInterrupted
	case errors.As(err, &shimErr):
		return CauseShim
	case errors.As(err, &missing), errors.Is(err, bindings.ErrTooOld), errors.Is(err, errHost),
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

// observe is the Runner's Observer, or one that is told nothing.
func (r *Runner) observe() Observer { return orNobody(r.Observer) }

// orNobody is o, or for nil an Observer that is told nothing.
func orNobody(o Observer) Observer {
	if o == nil {
		return nobody{}
	}
	return o
}

// phase tells the Observer that p took since its start.
func (r *Runner) phase(p Phase, start time.Time) {
	r.observe().Phase(p, time.Since(start))
}

// BusReconnects is how many times the connection to systemd the runs'
// slices are started over was made again (0 without one).
func (r *Runner) BusReconnects() uint64 {
	if b, ok := r.Cgroups.(interface{ Reconnects() uint64 }); ok {
		return b.Reconnects()
	}
	return 0
}

type nobody struct{}

func (nobody) Judged(JudgeResult, error)  {}
func (nobody) Built(BuildResult, error)   {}
func (nobody) Phase(Phase, time.Duration) {}
func (nobody) Gauge(Gauge, int)           {}
func (nobody) Armed(ArmedEvent)           {}
func (nobody) Swept(Orphan, int)          {}
