// Package metrics is podjail serve's Prometheus metrics (serve --metrics):
// what the Runner tells its plugin.Observer, counted on a registry of the
// caller's (never the client library's global one), and read at each
// scrape from what holds it. Nothing is made or registered until New.
//
// Every name is podjail_..., with its unit (_seconds, _total); every label
// takes a small fixed set of values, all of them present from the start
// (at 0):
//
//	podjail_judges_total{verdict}                   judges that ended with a verdict
//	podjail_tests_total{verdict}                    tests judged
//	podjail_internal_errors_total{cause}            IEs of judges, by plugin.Cause
//	podjail_builds_total{outcome}                   builds: ok, compile_error, internal_error
//	podjail_test_critical_path_seconds              a test's turn to its verdict (histogram)
//	podjail_container_phase_seconds{phase}          create, start, run (go to report), remove (histogram)
//	podjail_armed_ready                             runs armed ahead, waiting for a caller
//	podjail_armed_taken_total                       calls that took a run armed ahead
//	podjail_armed_missed_total                      calls that found none armed ahead
//	podjail_armed_wasted_total{reason}              runs armed ahead and removed unused
//	podjail_live_runs                               runs between the go and their end
//	podjail_slots_in_use                            slots of the judges under way
//	podjail_dbus_reconnects_total                   connections to systemd made again
//	podjail_orphans_swept_total{kind}               containers and run parents of dead instances removed
//	podjail_build_info{version}                     1
//
// and the Go runtime's (go_*) and the process's (process_*) own, under
// their usual names, from NewRegistry.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/podjail/podjail/plugin"
)

// Verdicts are the values of the verdict label: every plugin.Verdict, and
// "other" for one this package does not know.
var Verdicts = []plugin.Verdict{plugin.AC, plugin.WA, plugin.PE, plugin.PA, plugin.TLE, plugin.MLE, plugin.OLE,
	plugin.RTE, plugin.RFE, plugin.CE, plugin.IE, plugin.CF, other}

// The values of the outcome label of podjail_builds_total.
const (
	BuildOK            = "ok"
	BuildCompileError  = "compile_error"
	BuildInternalError = "internal_error"
)

// other is the label value of anything outside a label's fixed set.
const other = "other"

// Buckets are the histograms' upper bounds, in seconds: a container's
// phase takes from milliseconds (create, on a fast host) to minutes (a
// test's run up to its absolute cap).
var Buckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120}

// Sources are what the metrics read at each scrape. A nil function reads
// as 0.
type Sources struct {
	// Version is podjail_build_info's version label.
	Version string
	// ArmedReady is how many runs are armed ahead and wait for their
	// caller (engine.Lazy.ArmedReady).
	ArmedReady func() int
	// BusReconnects is how many times the connection to systemd was made
	// again (engine.Lazy.BusReconnects).
	BusReconnects func() uint64
}

// Metrics are podjail's metrics, registered on one registry. They are the
// Runner's plugin.Observer (engine.Options.Observer): safe for
// concurrent use, every method returns at once. Make them with New.
type Metrics struct {
	judges, tests, internalErrors, builds *prometheus.CounterVec
	critical                              prometheus.Histogram
	phases                                map[plugin.Phase]prometheus.Observer
	taken, missed                         prometheus.Counter
	wasted                                *prometheus.CounterVec
	liveRuns, slots                       prometheus.Gauge
	swept                                 *prometheus.CounterVec
}

var _ plugin.Observer = (*Metrics)(nil)

// NewRegistry is a registry holding the Go runtime's and the process's
// collectors, for New.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// New makes podjail's metrics and registers them on reg, with those read
// from src at each scrape.
func New(reg prometheus.Registerer, src Sources) (*Metrics, error) {
	counter := func(name, help string, label string, values ...string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{label})
		for _, x := range values {
			v.WithLabelValues(x)
		}
		return v
	}
	verdicts := make([]string, len(Verdicts))
	for i, v := range Verdicts {
		verdicts[i] = string(v)
	}
	causes := []string{}
	for _, c := range plugin.Causes {
		causes = append(causes, string(c))
	}
	var wasted []string
	for _, e := range plugin.ArmedWasted {
		wasted = append(wasted, string(e))
	}
	m := &Metrics{
		judges: counter("podjail_judges_total", "Judges that ended with a verdict, by the submission's verdict (a judge that failed with an error counts in podjail_internal_errors_total only).", "verdict", verdicts...),
		tests:  counter("podjail_tests_total", "Tests judged, by verdict.", "verdict", verdicts...),
		internalErrors: counter("podjail_internal_errors_total",
			"Internal errors of judges, by cause: each test judged IE, each judge that ended IE before its tests (build, checker, interrupted), and each that failed with an error of ours (runtime, host).",
			"cause", causes...),
		builds: counter("podjail_builds_total", "Builds (a submission's, a checker's, Compile's), by outcome: ok, compile_error (the submission's), internal_error (ours).",
			"outcome", BuildOK, BuildCompileError, BuildInternalError),
		critical: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "podjail_test_critical_path_seconds",
			Help: "A test's critical path: from its turn (its slot free) to its verdict.", Buckets: Buckets}),
		phases: map[plugin.Phase]prometheus.Observer{},
		taken: prometheus.NewCounter(prometheus.CounterOpts{Name: "podjail_armed_taken_total",
			Help: "Calls (runs, builds) that took a container armed ahead of them."}),
		missed: prometheus.NewCounter(prometheus.CounterOpts{Name: "podjail_armed_missed_total",
			Help: "Calls of a shape kept armed that found no container armed ahead (the first of a shape, calls at once, the spare gone) and armed their own or ran cold."}),
		wasted: counter("podjail_armed_wasted_total",
			"Containers armed ahead and removed unused, by reason: idle (no caller within 90 s), evicted (another shape), closed (the service stopped), released (the caller went away).",
			"reason", wasted...),
		liveRuns: prometheus.NewGauge(prometheus.GaugeOpts{Name: "podjail_live_runs", Help: "Runs whose program was started (the go sent) and has not ended yet."}),
		slots:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "podjail_slots_in_use", Help: "Slots of the judges under way: tests each may run at once."}),
		swept: counter("podjail_orphans_swept_total",
			"Containers and run parents (cgroups) left by podjail instances that are gone, or by missed cleanups, removed by the sweeps at start and stop.",
			"kind", string(plugin.OrphanContainer), string(plugin.OrphanParent)),
	}
	phases := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "podjail_container_phase_seconds",
		Help:    "Phases of a run's container: create, start (to the shim armed), run (from the go to the shim's report), remove.",
		Buckets: Buckets}, []string{"phase"})
	for _, p := range plugin.Phases {
		m.phases[p] = phases.WithLabelValues(string(p))
	}
	ready := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "podjail_armed_ready",
		Help: "Containers armed ahead (created, started, the shim waiting for the go) that wait for their caller."},
		func() float64 {
			if src.ArmedReady == nil {
				return 0
			}
			return float64(src.ArmedReady())
		})
	reconnects := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "podjail_dbus_reconnects_total",
		Help: "Connections to systemd (over D-Bus, for the runs' slices) made again after the bus closed one or a call found it broken."},
		func() float64 {
			if src.BusReconnects == nil {
				return 0
			}
			return float64(src.BusReconnects())
		})
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "podjail_build_info", Help: "1, labelled with podjail's version.",
		ConstLabels: prometheus.Labels{"version": src.Version}})
	info.Set(1)
	for _, c := range []prometheus.Collector{m.judges, m.tests, m.internalErrors, m.builds, m.critical, phases,
		m.taken, m.missed, m.wasted, ready, m.liveRuns, m.slots, reconnects, m.swept, info} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Handler serves what g gathers in Prometheus's text format (or
// OpenMetrics, if asked for).
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, MaxRequestsInFlight: 4, Timeout: 30 * time.Second})
}

func verdict(v plugin.Verdict) string {
	for _, w := range Verdicts {
		if v == w {
			return string(v)
		}
	}
	return other
}

func (m *Metrics) internalError(c plugin.Cause) {
	for _, w := range plugin.Causes {
		if c == w {
			m.internalErrors.WithLabelValues(string(c)).Inc()
			return
		}
	}
	m.internalErrors.WithLabelValues(string(plugin.CauseOther)).Inc()
}

// Judged counts a judge, its tests and its internal errors.
func (m *Metrics) Judged(res plugin.JudgeResult, err error) {
	if err != nil {
		if c := plugin.CauseOf(err); c != "" {
			m.internalError(c)
		}
		return
	}
	m.judges.WithLabelValues(verdict(res.Verdict)).Inc()
	testIE := false
	for _, t := range res.Tests {
		m.tests.WithLabelValues(verdict(t.Verdict)).Inc()
		m.critical.Observe(t.Critical.Seconds())
		if t.Verdict == plugin.IE {
			testIE = true
			m.internalError(t.Cause)
		}
	}
	if res.Verdict == plugin.IE && !testIE {
		m.internalError(res.Cause)
	}
}

// Built counts a build by its outcome; a request refused is not counted.
func (m *Metrics) Built(res plugin.BuildResult, err error) {
	switch {
	case err != nil && plugin.CauseOf(err) == "":
	case err != nil:
		m.builds.WithLabelValues(BuildInternalError).Inc()
	case !res.OK:
		m.builds.WithLabelValues(BuildCompileError).Inc()
	default:
		m.builds.WithLabelValues(BuildOK).Inc()
	}
}

// Phase observes one phase of a container.
func (m *Metrics) Phase(p plugin.Phase, d time.Duration) {
	if h, ok := m.phases[p]; ok {
		h.Observe(d.Seconds())
	}
}

// Gauge moves podjail_live_runs or podjail_slots_in_use.
func (m *Metrics) Gauge(g plugin.Gauge, delta int) {
	switch g {
	case plugin.GaugeLiveRuns:
		m.liveRuns.Add(float64(delta))
	case plugin.GaugeSlots:
		m.slots.Add(float64(delta))
	}
}

// Armed counts what became of a call, or of a run armed ahead.
func (m *Metrics) Armed(e plugin.ArmedEvent) {
	switch e {
	case plugin.ArmedTaken:
		m.taken.Inc()
	case plugin.ArmedMissed:
		m.missed.Inc()
	default:
		for _, w := range plugin.ArmedWasted {
			if e == w {
				m.wasted.WithLabelValues(string(e)).Inc()
			}
		}
	}
}

// Swept counts what a sweep removed.
func (m *Metrics) Swept(o plugin.Orphan, n int) {
	if n > 0 && (o == plugin.OrphanContainer || o == plugin.OrphanParent) {
		m.swept.WithLabelValues(string(o)).Add(float64(n))
	}
}
