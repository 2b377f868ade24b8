package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/internal/metrics"
	"github.com/podjail/podjail/plugin"
)

// scrapeMetrics gets /metrics from addr (a Unix socket path, or a TCP
// address) and parses it.
func scrapeMetrics(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := scrape(addr)
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

func scrape(addr string) (map[string]*dto.MetricFamily, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	url := "http://" + addr + metricsPath
	if metricsOnSocket(addr) {
		c.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", addr)
		}}
		url = "http://podjail" + metricsPath
	}
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/plain") {
		return nil, fmt.Errorf("GET %s: %s, %s; want 200 and the text format", url, resp.Status, ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// metricValue is the sum, over the series of name whose labels include
// every "name=value" of labels, of their values (a histogram's: its
// count); -1 when there is no such metric.
func metricValue(mfs map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	mf, ok := mfs[name]
	if !ok {
		return -1
	}
	sum := 0.0
series:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for _, l := range labels {
			k, v, _ := strings.Cut(l, "=")
			if have[k] != v {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum
}

func TestCheckMetricsAddr(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:9464", "127.0.0.2:9464", "[::1]:9464", "localhost:9464", "/run/podjail/metrics.sock", "./run/metrics.sock"} {
		if err := checkMetricsAddr(ok); err != nil {
			t.Errorf("--metrics %s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"0.0.0.0:9464", ":9464", "[::]:9464", "192.0.2.7:9464", "judge.example.org:9464"} {
		err := checkMetricsAddr(bad)
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:9464") || !strings.Contains(err.Error(), "Unix socket") || !strings.Contains(err.Error(), "proxy") {
			t.Errorf("--metrics %s: %v; want it refused, saying to bind localhost or a socket and put a proxy in front", bad, err)
		}
	}
	if err := checkMetricsAddr("9464"); err == nil {
		t.Error("--metrics 9464 (no host) taken")
	}
}

// The service refuses --metrics off localhost before it does anything.
func TestServeRefusesMetricsOffLocalhost(t *testing.T) {
	r := podjailHere("serve", "--metrics", "0.0.0.0:9464")
	if r.code != exitUsage || !strings.Contains(r.stderr, "proxy") {
		t.Errorf("serve --metrics 0.0.0.0:9464: exit %d, %q; want %d and what to do", r.code, r.stderr, exitUsage)
	}
}

// The metrics served on a Unix socket in a directory of the test's (mode
// 0600) and on localhost: a scrape reads what the Runner told them, in
// the text format; stopping removes the socket.
func TestMetricsServedOnUnixSocket(t *testing.T) {
	reg := metrics.NewRegistry()
	m, err := metrics.New(reg, metrics.Sources{Version: "test", ArmedReady: func() int { return 1 }})
	if err != nil {
		t.Fatal(err)
	}
	m.Judged(plugin.JudgeResult{Verdict: plugin.WA, Tests: []plugin.TestResult{{Verdict: plugin.AC, Critical: time.Second}, {Verdict: plugin.WA, Critical: 2 * time.Second}}}, nil)
	m.Phase(plugin.PhaseRun, 1500*time.Millisecond)
	m.Gauge(plugin.GaugeSlots, 2)

	sock := filepath.Join(t.TempDir(), "run", "metrics.sock")
	l, err := listenMetrics(sock, -1)
	if err != nil {
		t.Fatal(err)
	}
	stop := serveMetrics(l, reg, hclog.NewNullLogger())
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("the metrics socket: %v, %v; want a socket, mode 0600", fi.Mode(), err)
	}
	tcp, err := listenMetrics("127.0.0.1:0", -1)
	if err != nil {
		t.Fatal(err)
	}
	stopTCP := serveMetrics(tcp, reg, hclog.NewNullLogger())
	for _, addr := range []string{sock, tcp.Addr().String()} {
		mfs := scrapeMetrics(t, addr)
		for _, c := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"podjail_judges_total", []string{"verdict=WA"}, 1},
			{"podjail_judges_total", nil, 1},
			{"podjail_tests_total", []string{"verdict=AC"}, 1},
			{"podjail_tests_total", []string{"verdict=WA"}, 1},
			{"podjail_test_critical_path_seconds", nil, 2},
			{"podjail_container_phase_seconds", []string{"phase=run"}, 1},
			{"podjail_container_phase_seconds", []string{"phase=create"}, 0},
			{"podjail_slots_in_use", nil, 2},
			{"podjail_armed_ready", nil, 1},
			{"podjail_build_info", []string{"version=test"}, 1},
		} {
			if got := metricValue(mfs, c.name, c.labels...); got != c.want {
				t.Errorf("%s: %s%v = %v, want %v", addr, c.name, c.labels, got, c.want)
			}
		}
		for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
			if _, ok := mfs[name]; !ok {
				t.Errorf("%s: no %s", addr, name)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stop(ctx)
	stopTCP(ctx)
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the metrics socket is still there once stopped: %v", err)
	}
	if _, err := scrape(tcp.Addr().String()); err == nil {
		t.Error("the metrics are still served on TCP once stopped")
	}
}

// TestServeMetrics: a service with --metrics on a Unix socket judges one
// submission of three tests (AC, AC, RTE) and runs one command twice; its
// scrapes count exactly that: one judge RTE, the three tests by verdict,
// one build, no IE, every container phase once a test, the slots and live
// runs back to 0; then the first run armed its own (missed) and the
// second took the one armed behind it (taken), and one more is armed and
// ready, nothing wasted: five containers run and removed, six made and
// started. Stopping the service removes the socket.
func TestServeMetrics(t *testing.T) {
	env := hosttest.Podman(t)
	// execProblem's answers are not compared (its tests are the programs'
	// own): AC and RTE are the verdicts it gives.
	lines := []string{testProgram + " exit 0", testProgram + " exit 0", testProgram + " exit 3"}
	wantTests := []plugin.Verdict{plugin.AC, plugin.AC, plugin.RTE}
	dir, langs, src := execProblem(t, env, untimed, lines)
	msock := filepath.Join(t.TempDir(), "metrics.sock")
	sock, stop := startService(t, env, "--languages", langs, "--drain", "2s", "--metrics", msock)

	before := scrapeMetrics(t, msock)
	for _, name := range []string{"podjail_judges_total", "podjail_tests_total", "podjail_builds_total", "podjail_container_phase_seconds",
		"podjail_armed_taken_total", "podjail_armed_missed_total", "podjail_armed_ready", "podjail_live_runs", "podjail_slots_in_use"} {
		if v := metricValue(before, name); v != 0 {
			t.Errorf("before any call: %s = %v, want 0", name, v)
		}
	}
	for _, name := range []string{"podjail_dbus_reconnects_total", "podjail_orphans_swept_total", "podjail_internal_errors_total", "go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := before[name]; !ok {
			t.Errorf("no %s", name)
		}
	}

	res, _ := judgeJSON(t, env, "--service", sock, "--lang", "exec", dir, src)
	if len(res.Tests) != len(wantTests) || res.Verdict != plugin.RTE {
		t.Fatalf("judged %s with %d tests; want RTE with %d", res.Verdict, len(res.Tests), len(wantTests))
	}
	for i, w := range wantTests {
		if res.Tests[i].Verdict != w {
			t.Fatalf("test %d: %s, want %s", i+1, res.Tests[i].Verdict, w)
		}
	}
	n := float64(len(wantTests))
	after := scrapeMetrics(t, msock)
	expect := func(mfs map[string]*dto.MetricFamily, when, name string, want float64, labels ...string) {
		t.Helper()
		if got := metricValue(mfs, name, labels...); got != want {
			t.Errorf("%s: %s%v = %v, want %v", when, name, labels, got, want)
		}
	}
	const judged = "after the judge"
	expect(after, judged, "podjail_judges_total", 1)
	expect(after, judged, "podjail_judges_total", 1, "verdict=RTE")
	expect(after, judged, "podjail_tests_total", n)
	perVerdict := map[plugin.Verdict]float64{}
	for _, v := range wantTests {
		perVerdict[v]++
	}
	for v, k := range perVerdict {
		expect(after, judged, "podjail_tests_total", k, "verdict="+string(v))
	}
	expect(after, judged, "podjail_internal_errors_total", 0)
	expect(after, judged, "podjail_builds_total", 1)
	expect(after, judged, "podjail_builds_total", 1, "outcome=ok")
	expect(after, judged, "podjail_test_critical_path_seconds", n)
	for _, p := range plugin.Phases {
		expect(after, judged, "podjail_container_phase_seconds", n, "phase="+string(p))
	}
	expect(after, judged, "podjail_slots_in_use", 0)
	expect(after, judged, "podjail_live_runs", 0)
	// Its language builds nothing in a container: nothing armed ahead.
	expect(after, judged, "podjail_armed_taken_total", 0)
	expect(after, judged, "podjail_armed_missed_total", 0)
	expect(after, judged, "podjail_armed_ready", 0)

	// One command twice: the first arms its own, the second takes the
	// one armed behind it, and one more is armed behind that.
	for range 2 {
		if r, _ := runVia(t, env, sock, nil, []string{testProgram, "exit", "0"}); r.ExitCode != 0 {
			t.Fatalf("run through the service: exit %d", r.ExitCode)
		}
	}
	var runs map[string]*dto.MetricFamily
	deadline := time.Now().Add(3 * time.Minute)
	for {
		runs = scrapeMetrics(t, msock)
		settled := metricValue(runs, "podjail_armed_ready") == 1 && metricValue(runs, "podjail_live_runs") == 0 &&
			metricValue(runs, "podjail_container_phase_seconds", "phase=remove") == n+2
		if settled || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	const ran = "after the runs"
	expect(runs, ran, "podjail_armed_missed_total", 1)
	expect(runs, ran, "podjail_armed_taken_total", 1)
	expect(runs, ran, "podjail_armed_ready", 1)
	expect(runs, ran, "podjail_armed_wasted_total", 0)
	for p, want := range map[plugin.Phase]float64{plugin.PhaseCreate: n + 3, plugin.PhaseStart: n + 3, plugin.PhaseRun: n + 2, plugin.PhaseRemove: n + 2} {
		expect(runs, ran, "podjail_container_phase_seconds", want, "phase="+string(p))
	}
	expect(runs, ran, "podjail_live_runs", 0)
	expect(runs, ran, "podjail_slots_in_use", 0)
	expect(runs, ran, "podjail_judges_total", 1)
	expect(runs, ran, "podjail_tests_total", n)
	expect(runs, ran, "podjail_builds_total", 1)
	expect(runs, ran, "podjail_internal_errors_total", 0)
	t.Logf("reconnects to systemd %v, orphans swept %v, resident memory %.1f MiB", metricValue(runs, "podjail_dbus_reconnects_total"),
		metricValue(runs, "podjail_orphans_swept_total"), metricValue(runs, "process_resident_memory_bytes")/(1<<20))

	if code, log := stop(); code != 0 {
		t.Errorf("the service exited %d\n%s", code, log)
	}
	if _, err := os.Stat(msock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the metrics socket is still there after the service stopped: %v", err)
	}
}
