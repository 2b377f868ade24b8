package main

import (
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// Programs of the test image built from testdata/progs (make vm-payload).
const (
	tprog   = "/tprog"
	trivial = "/trivial"
)

// leftParents lists per-run parents still on the host: cgroup directories
// named with cgroupdrv.Prefix anywhere under the mount (of env's pass), and
// systemd units of that name known to the manager podjail talks to.
func leftParents(t testing.TB, env hosttest.Env) []string {
	t.Helper()
	var left []string
	_ = filepath.WalkDir(cgroupdrv.DefaultRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel := strings.TrimPrefix(path, cgroupdrv.DefaultRoot)
		if rel == "/"+userSlice && !env.Rootless {
			return fs.SkipDir // the rootless pass's
		}
		if strings.HasPrefix(d.Name(), cgroupdrv.Prefix) && inThisPass(env, rel) {
			left = append(left, path)
			return fs.SkipDir
		}
		return nil
	})
	args := []string{"list-units", "--all", "--plain", "--no-legend", cgroupdrv.Prefix + "*"}
	if env.Rootless {
		args = append([]string{"--user"}, args...)
	}
	out, err := exec.Command("systemctl", args...).CombinedOutput()
	if err != nil {
		t.Errorf("systemctl %v: %v\n%s", args, err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			left = append(left, "unit "+line)
		}
	}
	return left
}

// bareRusage runs tprog burn MS outside any container and returns the
// rusage it printed.
func bareRusage(t testing.TB, env hosttest.Env, ms int) time.Duration {
	t.Helper()
	if env.Progs == "" {
		t.Fatal("PODJAIL_PAYLOAD is unset: cannot run the test programs directly")
	}
	out, err := exec.Command(filepath.Join(env.Progs, "tprog"), "burn", strconv.Itoa(ms)).Output()
	if err != nil {
		t.Fatalf("bare burn: %v", err)
	}
	return parseRusage(t, out)
}

func parseRusage(t testing.TB, out []byte) time.Duration {
	t.Helper()
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "rusage_us=")
	us, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		t.Fatalf("burn printed %q", out)
	}
	return time.Duration(us) * time.Microsecond
}

func logMeasure(t testing.TB, res plugin.JudgedRun) {
	t.Helper()
	m := res.Measure
	t.Logf("time %v (%s); shim %v; container cpu %v, own cost %v; peak %d (%s); container peak %d; MLE %t (%s)",
		m.Time, m.TimeFrom, m.ShimTime, m.ContainerCPU, m.ContainerCost, m.Peak, m.PeakFrom, m.ContainerPeak, m.MemoryExceeded, m.MemoryFrom)
}

func TestMeasureBurnIsTheProgramsTimeOnly(t *testing.T) {
	env := hosttest.Podman(t)
	bare := bareRusage(t, env, 1000)
	res, out := runArgvJSON(t, env, nil, tprog, "burn", "1000")
	logMeasure(t, res)
	inside := parseRusage(t, out)
	m := res.Measure
	t.Logf("bare rusage %v, the program's own rusage inside %v, reported %v, ratio %.4f; the container's own cost %v (%s manager)",
		bare, inside, m.Time, float64(m.Time)/float64(bare), m.ContainerCost, env.CgroupManager)
	if !res.Shimmed || res.Report == nil || res.Cgroup == nil {
		t.Fatalf("want a shimmed run with a report and a parent reading: %+v", res)
	}
	if d := math.Abs(float64(m.Time - bare)); d > 0.01*float64(bare) {
		t.Errorf("reported %v is not within 1%% of the bare run's %v", m.Time, bare)
	}
	if m.ContainerCPU < m.ShimTime {
		t.Errorf("parent cgroup total %v below the program's own %v: the parent does not hold the run", m.ContainerCPU, m.ShimTime)
	}
}

func TestMeasureTrivialPeak(t *testing.T) {
	env := hosttest.Podman(t)
	res, _ := runArgvJSON(t, env, nil, trivial)
	logMeasure(t, res)
	m := res.Measure
	if res.ExitCode != 0 || m.Peak <= 0 || m.Peak > 2<<20 {
		t.Errorf("trivial program: exit %d, peak %d bytes; want exit 0 and a peak of at most 2 MiB", res.ExitCode, m.Peak)
	}
	if m.ContainerPeak <= m.Peak {
		t.Errorf("container peak %d not above the program's %d", m.ContainerPeak, m.Peak)
	}
	if m.MemoryExceeded {
		t.Errorf("MLE for a trivial program: %s", m.MemoryFrom)
	}
}

func TestMeasureMemoryHogIsMLE(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runArgvJSON(t, env, []string{"--memory", "64M"}, tprog, "hog", "200")
	logMeasure(t, res)
	m := res.Measure
	if !m.MemoryExceeded || !strings.Contains(m.MemoryFrom, "memory.events") {
		t.Errorf("hog past 64 MiB: MLE %t from %q; want MLE from the parent's memory.events (output %q)", m.MemoryExceeded, m.MemoryFrom, out)
	}
	if res.Signal != "SIGKILL" {
		t.Errorf("signal %q, want SIGKILL from the OOM killer", res.Signal)
	}
}

func TestMeasureChildOOMIsMLE(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runArgvJSON(t, env, []string{"--memory", "64M"}, tprog, "childoom", "200")
	logMeasure(t, res)
	if res.ExitCode != 0 || !strings.Contains(string(out), "child: signal 9") {
		t.Fatalf("exit %d, output %q; want the parent to exit 0 after its child was killed", res.ExitCode, out)
	}
	if !res.Measure.MemoryExceeded {
		t.Errorf("a child OOM-killed while the main process exits 0 must still be MLE: %s", res.Measure.MemoryFrom)
	}
}

func TestMeasureDaemonDiesWithTheRun(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runArgvJSON(t, env, nil, tprog, "daemon")
	if res.ExitCode != 0 || string(out) != "parent done\n" {
		t.Errorf("exit %d, output %q; want exit 0 and no line from the daemon", res.ExitCode, out)
	}
	if res.Report == nil || res.Report.Reaped < 1 {
		t.Errorf("the shim reaped no daemon: %+v", res.Report)
	}
}

func TestMeasureForgedReportIsIgnored(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runArgvJSON(t, env, nil, tprog, "forge")
	t.Logf("forger's output:\n%s", out)
	if strings.Contains(string(out), "/proc/1/fd/2: opened") {
		t.Error("the program opened the shim's stderr")
	}
	if res.Report == nil || res.ExitCode != 0 || res.Report.TimeUs == 1 || res.Report.PeakBytes == 1 {
		t.Errorf("the forged report was taken: exit %d, report %+v", res.ExitCode, res.Report)
	}
}

func TestMeasureWithoutShimWarnsAndUsesTheCgroup(t *testing.T) {
	env := hosttest.Podman(t)
	outFile := filepath.Join(t.TempDir(), "stdout")
	r := podjail(t, env, "run", "--shim", "none", "--image", env.Image, "--output", outFile, "--", trivial)
	if r.code != 0 || !strings.Contains(r.stderr, "running without the shim") || !strings.Contains(r.stderr, "parent cgroup cpu.stat") {
		t.Errorf("exit %d, stderr:\n%s\nwant a warning and the time from the parent cgroup", r.code, r.stderr)
	}
	assertNothingLeft(t, env, "")
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestRunPhasesAreLogged shows where a trivial run's elapsed time goes
// (hclog's timestamps at debug level).
func TestRunPhasesAreLogged(t *testing.T) {
	env := hosttest.Podman(t)
	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	start := time.Now()
	r := podjail(t, env, "run", "--image", env.Image, "--output", os.DevNull, "--", trivial)
	t.Logf("trivial run took %v, exit %d:\n%s", time.Since(start), r.code, r.stderr)
	for _, phase := range []string{"parent cgroup made", "container created", "container started", "armed", "go sent", "container stopped", "container removed", "parent cgroup removed"} {
		if !strings.Contains(r.stderr, phase) {
			t.Errorf("no %q in the debug log", phase)
		}
	}
	assertNothingLeft(t, env, "")
}
