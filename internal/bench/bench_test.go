package bench

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTopCgroupsLeafMost: the breakdown names where the time went, not
// every parent above it, and divides by the number of tests.
func TestTopCgroupsLeafMost(t *testing.T) {
	before := map[string]time.Duration{"system.slice": time.Second, "system.slice/podman.service": 0, "init.scope": 0}
	after := map[string]time.Duration{"system.slice": 5 * time.Second, "system.slice/podman.service": 4 * time.Second, "init.scope": time.Second, "gone": 0}
	top := topCgroups(before, after, 2, 5)
	want := []cgroupCPU{{Path: "system.slice/podman.service", CPU: 2 * time.Second}, {Path: "init.scope", CPU: time.Second / 2}}
	if !slices.Equal(top, want) {
		t.Errorf("got %v, want %v", top, want)
	}
	if hostCPU() <= 0 {
		t.Error("no processor time read from /proc/stat")
	}
}

// TestQuietHost: a tenth of one core over the window is the line, whatever
// the window's length.
func TestQuietHost(t *testing.T) {
	for _, c := range []struct {
		busy, wall time.Duration
		want       bool
	}{
		{0, time.Second, true},
		{99 * time.Millisecond, time.Second, true},
		{100 * time.Millisecond, time.Second, false},
		{1500 * time.Millisecond, time.Second, false}, // two cores busy
		{190 * time.Millisecond, 2 * time.Second, true},
	} {
		if got := quietHost(c.busy, c.wall); got != c.want {
			t.Errorf("quietHost(%v, %v) = %v, want %v", c.busy, c.wall, got, c.want)
		}
	}
}

// TestPerRunFloorByCgroup: the floor's breakdown is per lifecycle, and a
// cgroup that used nothing over the loop is not in it.
func TestPerRunFloorByCgroup(t *testing.T) {
	before := map[string]time.Duration{"system.slice/podman.service": time.Second, "init.scope": time.Second}
	after := map[string]time.Duration{"system.slice/podman.service": 7 * time.Second, "init.scope": time.Second, "new": 3 * time.Second}
	got := perRun(before, after, 3)
	want := map[string]time.Duration{"system.slice/podman.service": 2 * time.Second, "new": time.Second}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestPrintRounds: with pairs of floor and judge, each pair's ratio is
// printed and their median named, of an even count the mean of the two
// middle ones.
func TestPrintRounds(t *testing.T) {
	j := benchJudge{Parallel: 2, Tests: 4, Floor: time.Second, OverFloor: 1.3, Rounds: []float64{1.3, 1.1, 1.2, 1.5}}
	j.RoundsMedian = medianOfRatios(j.Rounds)
	var b strings.Builder
	printBench(&b, benchReport{PodmanRun: time.Second, Judges: []benchJudge{j}})
	if want := "by pair (floor, then judge) 1.30 1.10 1.20 1.50: median 1.25 ×"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q in\n%s", want, b.String())
	}
	if !slices.Equal(j.Rounds, []float64{1.3, 1.1, 1.2, 1.5}) {
		t.Errorf("the median reordered the rounds: %v", j.Rounds)
	}
}

// TestPrintSpecStepsRunnerRun: the runner's run alone is aside (the
// judge's test is still set against the last step kept) and its cgroups
// are printed beside that step's.
func TestPrintSpecStepsRunnerRun(t *testing.T) {
	const svc = "system.slice/podman.service"
	steps := []specStep{
		{Name: "podjail's container", HostCPU: 3 * time.Second, Cgroups: map[string]time.Duration{svc: 2 * time.Second}},
		{Name: "+ removed right after its start", HostCPU: 5 * time.Second, Aside: true},
		{Name: "a runner's run, one at a time", HostCPU: 3500 * time.Millisecond, Aside: true, Runner: "a runner's run alone", Cgroups: map[string]time.Duration{svc: 2300 * time.Millisecond}},
		{Name: "the same, the next 2 armed ahead", HostCPU: 3900 * time.Millisecond, Aside: true, Runner: "runner's runs armed ahead", Cgroups: map[string]time.Duration{svc: 2600 * time.Millisecond}},
	}
	j := benchJudge{Floor: 2 * time.Second, HostCPU: 4 * time.Second, Top: []cgroupCPU{{Path: svc, CPU: 2800 * time.Millisecond}}}
	var b strings.Builder
	printSpecSteps(&b, steps, j)
	for _, want := range []string{
		"a judge's test (against the last step kept)",
		"per run, by cgroup: a runner's run alone, the last step kept, the difference",
		"2300.0 ms", "+300.0 ms",
		"per run, by cgroup: runner's runs armed ahead, the last step kept, the difference", "+600.0 ms",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if !strings.Contains(b.String(), "+1000.0 ms)  a judge's test") {
		t.Errorf("the judge's test not set against the last step kept (3000 ms):\n%s", b.String())
	}
}

func TestSharedCores(t *testing.T) {
	for _, c := range []struct {
		cores []int
		p     int
		want  []int
	}{
		{[]int{0, 1}, 2, []int{0, 1}},
		{[]int{0, 1, 2, 3}, 2, []int{0, 1, 2, 3}}, // a judge takes the first p
		{[]int{0}, 2, []int{0, 0}},
		{[]int{2, 5}, 5, []int{2, 5, 2, 5, 2}},
	} {
		got, err := sharedCores(c.cores, c.p)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("sharedCores(%v, %d) = %v, %v; want %v", c.cores, c.p, got, err, c.want)
		}
	}
	if _, err := sharedCores(nil, 2); err == nil {
		t.Error("sharedCores of no core gave no error")
	}
}
