package metrics

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
)

func newMetrics(t *testing.T, src Sources) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := NewRegistry()
	m, err := New(reg, src)
	if err != nil {
		t.Fatal(err)
	}
	return m, reg
}

// histogramCount is the sample count of the histogram name (with the
// label pair label=value, if label is not "").
func histogramCount(t *testing.T, reg prometheus.Gatherer, name, label, value string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if label == "" || l.GetName() == label && l.GetValue() == value {
					return m.GetHistogram().GetSampleCount()
				}
			}
			if label == "" {
				return m.GetHistogram().GetSampleCount()
			}
		}
	}
	t.Fatalf("no histogram %s{%s=%q}", name, label, value)
	return 0
}

func test(v plugin.Verdict, cause plugin.Cause, critical time.Duration) plugin.TestResult {
	return plugin.TestResult{Verdict: v, Cause: cause, Critical: critical}
}

// Fake events, as the Runner tells them: every count is what they make.
func TestMetricsCountWhatTheRunnerTells(t *testing.T) {
	ready, reconnects := 2, uint64(3)
	m, reg := newMetrics(t, Sources{Version: "v9", ArmedReady: func() int { return ready }, BusReconnects: func() uint64 { return reconnects }})

	// A judge WA with three tests; one IE for the runtime; one that
	// failed before its tests (its build, for a reason of ours); one
	// interrupted with an IE test (counted once); one CE; a refusal
	// (not counted); one that failed with Podman gone.
	m.Judged(plugin.JudgeResult{Verdict: plugin.WA, Tests: []plugin.TestResult{
		test(plugin.AC, "", time.Second), test(plugin.WA, "", 2*time.Second), test(plugin.AC, "", 300*time.Millisecond)}}, nil)
	m.Judged(plugin.JudgeResult{Verdict: plugin.IE, Cause: plugin.CauseRuntime, Tests: []plugin.TestResult{
		test(plugin.AC, "", time.Second), test(plugin.IE, plugin.CauseRuntime, time.Second)}}, nil)
	m.Judged(plugin.JudgeResult{Verdict: plugin.IE, Cause: plugin.CauseBuild}, nil)
	m.Judged(plugin.JudgeResult{Verdict: plugin.IE, Cause: plugin.CauseInterrupted, Tests: []plugin.TestResult{
		test(plugin.IE, plugin.CauseInterrupted, time.Second)}}, nil)
	m.Judged(plugin.JudgeResult{Verdict: plugin.CE}, nil)
	m.Judged(plugin.JudgeResult{}, &runner.RequestError{Field: "judge", Err: errors.New("no source")})
	m.Judged(plugin.JudgeResult{}, &bindings.UnreachableError{Socket: "unix:///x", Err: errors.New("refused")})

	m.Built(plugin.BuildResult{OK: true}, nil)
	m.Built(plugin.BuildResult{OK: true}, nil)
	m.Built(plugin.BuildResult{}, nil)
	m.Built(plugin.BuildResult{}, fmt.Errorf("build: %w", bindings.ErrPodman))
	m.Built(plugin.BuildResult{}, &runner.RequestError{Field: "files", Err: errors.New("bad name")})

	for range 3 {
		for _, p := range plugin.Phases {
			m.Phase(p, 100*time.Millisecond)
		}
	}
	m.Phase(plugin.PhaseCreate, time.Millisecond)
	m.Phase("unknown", time.Second)

	m.Gauge(plugin.GaugeLiveRuns, 1)
	m.Gauge(plugin.GaugeLiveRuns, 1)
	m.Gauge(plugin.GaugeLiveRuns, -1)
	m.Gauge(plugin.GaugeSlots, 4)

	for _, e := range []plugin.ArmedEvent{plugin.ArmedMissed, plugin.ArmedTaken, plugin.ArmedTaken, plugin.ArmedIdle,
		plugin.ArmedClosed, plugin.ArmedClosed, "unknown"} {
		m.Armed(e)
	}
	m.Swept(plugin.OrphanContainer, 2)
	m.Swept(plugin.OrphanParent, 0)
	m.Swept(plugin.OrphanParent, 1)

	for i, c := range []struct {
		c    prometheus.Collector
		want float64
	}{
		{m.judges.WithLabelValues("WA"), 1},
		{m.judges.WithLabelValues("IE"), 3},
		{m.judges.WithLabelValues("CE"), 1},
		{m.judges.WithLabelValues("AC"), 0},
		{m.tests.WithLabelValues("AC"), 3},
		{m.tests.WithLabelValues("WA"), 1},
		{m.tests.WithLabelValues("IE"), 2},
		{m.internalErrors.WithLabelValues("runtime"), 2},
		{m.internalErrors.WithLabelValues("build"), 1},
		{m.internalErrors.WithLabelValues("interrupted"), 1},
		{m.internalErrors.WithLabelValues("host"), 0},
		{m.internalErrors.WithLabelValues("other"), 0},
		{m.builds.WithLabelValues(BuildOK), 2},
		{m.builds.WithLabelValues(BuildCompileError), 1},
		{m.builds.WithLabelValues(BuildInternalError), 1},
		{m.liveRuns, 1},
		{m.slots, 4},
		{m.taken, 2},
		{m.missed, 1},
		{m.wasted.WithLabelValues("idle"), 1},
		{m.wasted.WithLabelValues("closed"), 2},
		{m.wasted.WithLabelValues("evicted"), 0},
		{m.swept.WithLabelValues("container"), 2},
		{m.swept.WithLabelValues("parent"), 1},
	} {
		if got := testutil.ToFloat64(c.c); got != c.want {
			t.Errorf("case %d, %s = %v, want %v", i, describe(c.c), got, c.want)
		}
	}
	if n := histogramCount(t, reg, "podjail_test_critical_path_seconds", "", ""); n != 6 {
		t.Errorf("critical path: %d samples, want 6 (one a test)", n)
	}
	for _, p := range plugin.Phases {
		want := uint64(3)
		if p == plugin.PhaseCreate {
			want = 4
		}
		if n := histogramCount(t, reg, "podjail_container_phase_seconds", "phase", string(p)); n != want {
			t.Errorf("phase %s: %d samples, want %d", p, n, want)
		}
	}

	// Read at each scrape.
	want := `
# HELP podjail_armed_ready Containers armed ahead (created, started, the shim waiting for the go) that wait for their caller.
# TYPE podjail_armed_ready gauge
podjail_armed_ready 2
# HELP podjail_build_info 1, labelled with podjail's version.
# TYPE podjail_build_info gauge
podjail_build_info{version="v9"} 1
# HELP podjail_dbus_reconnects_total Connections to systemd (over D-Bus, for the runs' slices) made again after the bus closed one or a call found it broken.
# TYPE podjail_dbus_reconnects_total counter
podjail_dbus_reconnects_total 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "podjail_armed_ready", "podjail_dbus_reconnects_total", "podjail_build_info"); err != nil {
		t.Error(err)
	}
	ready, reconnects = 0, 4
	if err := testutil.GatherAndCompare(reg, strings.NewReader(strings.NewReplacer("ready 2", "ready 0", "total 3", "total 4").Replace(want)),
		"podjail_armed_ready", "podjail_dbus_reconnects_total", "podjail_build_info"); err != nil {
		t.Error(err)
	}
}

// describe is what c describes itself as.
func describe(c prometheus.Collector) string {
	ch := make(chan *prometheus.Desc, 8)
	c.Describe(ch)
	close(ch)
	return (<-ch).String()
}

// Every metric is there from the start, labels and all, named as
// Prometheus's conventions want; the Go runtime's and the process's too;
// nothing is on the client library's global registry.
func TestMetricsFromTheStart(t *testing.T) {
	_, reg := newMetrics(t, Sources{})
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]int{}
	for _, mf := range mfs {
		series[mf.GetName()] = len(mf.GetMetric())
		if strings.HasPrefix(mf.GetName(), "podjail_") && mf.GetHelp() == "" {
			t.Errorf("%s has no help", mf.GetName())
		}
	}
	for name, n := range map[string]int{
		"podjail_judges_total": len(Verdicts), "podjail_tests_total": len(Verdicts),
		"podjail_internal_errors_total": len(plugin.Causes), "podjail_builds_total": 3,
		"podjail_test_critical_path_seconds": 1, "podjail_container_phase_seconds": len(plugin.Phases),
		"podjail_armed_ready": 1, "podjail_armed_taken_total": 1, "podjail_armed_missed_total": 1,
		"podjail_armed_wasted_total": len(plugin.ArmedWasted), "podjail_live_runs": 1, "podjail_slots_in_use": 1,
		"podjail_dbus_reconnects_total": 1, "podjail_orphans_swept_total": 2, "podjail_build_info": 1,
		"go_goroutines": 1, "process_start_time_seconds": 1,
	} {
		if series[name] != n {
			t.Errorf("%s: %d series, want %d", name, series[name], n)
		}
	}
	global, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range global {
		if strings.HasPrefix(mf.GetName(), "podjail_") {
			t.Errorf("%s is on the global registry", mf.GetName())
		}
	}
	// A second set on the same registry is refused, not a panic.
	if _, err := New(reg, Sources{}); err == nil {
		t.Error("New registered twice on one registry")
	}
}
