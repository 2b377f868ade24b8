package runner

import (
	"errors"
	"time"
)

// Observer is told what the mechanism does, for metrics (podjail serve
// --metrics: package internal/metrics; plugin.Observer adds the judging
// layer's events). Its methods are called from the Runner's goroutines,
// many at once, and must return at once. A Runner whose Observer is nil
// tells nobody.
type Observer interface {
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

// ErrHost marks a failure of the host's (markHost).
var ErrHost = errors.New("host failure")

type hostError struct{ err error }

func (e *hostError) Error() string   { return e.err.Error() }
func (e *hostError) Unwrap() []error { return []error{e.err, ErrHost} }

// MarkHost marks err as the host's failure (plugin.CauseOf), its message
// unchanged.
func MarkHost(err error) error {
	if err == nil {
		return nil
	}
	return &hostError{err}
}

// observe is the Runner's Observer, or one that is told nothing.
func (r *Runner) observe() Observer { return OrNobody(r.Observer) }

// OrNobody is o, or for nil an Observer that is told nothing.
func OrNobody(o Observer) Observer {
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

func (nobody) Phase(Phase, time.Duration) {}
func (nobody) Gauge(Gauge, int)           {}
func (nobody) Armed(ArmedEvent)           {}
func (nobody) Swept(Orphan, int)          {}
