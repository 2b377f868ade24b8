package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/shim"
)

func TestDecideTime(t *testing.T) {
	rep := &shim.Report{TimeUs: 1_000_000, PeakBytes: 1 << 20}
	orphans := &shim.Report{TimeUs: 10_000, CgroupUs: 1_600_000, PeakBytes: 1 << 20}
	cases := []struct {
		name    string
		rep     *shim.Report
		cpu     time.Duration
		shimmed bool
		setup   time.Duration
		want    time.Duration
		from    string
	}{
		{"shim above floor", rep, 1300 * time.Millisecond, true, 0, time.Second, "shim"},
		{"floor above shim: CPU hidden from wait4", rep, 3 * time.Second, true, 0, 2 * time.Second, "above the shim"},
		{"no report: floor", nil, 3 * time.Second, true, 0, 2 * time.Second, "no shim report"},
		{"no report, tiny total: zero, not negative", nil, 200 * time.Millisecond, true, 0, 0, "no shim report"},
		{"no shim: total as it is", nil, 300 * time.Millisecond, false, 0, 300 * time.Millisecond, "no shim"},
		{"setup before the go is not the program's", rep, 3 * time.Second, true, 1500 * time.Millisecond, time.Second, "shim"},
		{"hidden CPU after a slow setup still counts", rep, 4 * time.Second, true, 1500 * time.Millisecond, 1500 * time.Millisecond, "since the go"},
		{"setup above the total (clock skew): zero floor", nil, time.Second, true, 2 * time.Second, 0, "no shim report"},
		// A child never waited for reaches no rusage; its cgroup counts it.
		{"program cgroup above rusage: a child never waited for", orphans, 2 * time.Second, true, 0, 1600 * time.Millisecond, "every process"},
		{"program cgroup below rusage (rounding): rusage", &shim.Report{TimeUs: 1_000_000, CgroupUs: 999_000}, 1300 * time.Millisecond, true, 0, time.Second, "wait4"},
		{"floor above both", orphans, 4 * time.Second, true, 0, 3 * time.Second, "above the shim's 1.6s"},
		{"an older shim's report without cpu.stat: rusage", rep, 1300 * time.Millisecond, true, 0, time.Second, "wait4"},
	}
	for _, c := range cases {
		m := decide(c.rep, &cgroupdrv.Counters{CPU: c.cpu, Peak: 8 << 20}, c.shimmed, c.setup)
		if m.Time != c.want || !strings.Contains(m.TimeFrom, c.from) {
			t.Errorf("%s: time %v from %q, want %v from %q", c.name, m.Time, m.TimeFrom, c.want, c.from)
		}
	}
}

func TestDecideMemoryOnlyFromMemoryEvents(t *testing.T) {
	// The shim reports a SIGKILL and OOM counts of its own; only the
	// parent's memory.events decide.
	rep := &shim.Report{Signal: "SIGKILL", OOMKill: 1}
	m := decide(rep, &cgroupdrv.Counters{}, true, 0)
	if m.MemoryExceeded {
		t.Errorf("MLE without memory.events: %s", m.MemoryFrom)
	}
	for _, c := range []cgroupdrv.Counters{{OOM: 1}, {OOMKill: 1}} {
		m := decide(&shim.Report{ExitCode: 0}, &c, true, 0)
		if !m.MemoryExceeded || !strings.Contains(m.MemoryFrom, "memory.events") {
			t.Errorf("%+v: MLE %t from %q", c, m.MemoryExceeded, m.MemoryFrom)
		}
	}
}

func TestDecidePeaks(t *testing.T) {
	m := decide(&shim.Report{PeakBytes: 300 << 10, TimeUs: 5}, &cgroupdrv.Counters{CPU: 50 * time.Millisecond, Peak: 9 << 20}, true, 0)
	if m.Peak != 300<<10 || m.ContainerPeak != 9<<20 || m.ContainerCost != 50*time.Millisecond-5*time.Microsecond {
		t.Errorf("got %+v", m)
	}
	m = decide(nil, nil, true, 0)
	if m.Peak != -1 || m.ContainerPeak != -1 || m.ShimTime != -1 || m.TimeFrom != "no reading" {
		t.Errorf("nothing read: %+v", m)
	}
}

func TestTailBufferKeepsWholeLastLines(t *testing.T) {
	tb := &tailBuffer{keep: 32}
	for i := 0; i < 100; i++ {
		_, _ = tb.Write([]byte("noise noise noise\n"))
	}
	_, _ = tb.Write([]byte("podjail-report n {}\n"))
	got := string(tb.Bytes())
	if !strings.HasSuffix(got, "podjail-report n {}\n") || len(got) > 32 || !strings.HasPrefix(got, "noise") && !strings.HasPrefix(got, "podjail") {
		t.Errorf("kept %q", got)
	}
}
