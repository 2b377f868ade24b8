package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/lang"
)

// TestPodjailBench runs `podjail bench` once in this boot and logs its
// figures: podman run --rm, a whole podjail run, a judge with one
// test at a time and on every core, each beside as many bare REST
// lifecycles of the program at the same P (Podman's own work: the floor its
// host CPU per test is a ratio to), and the 1 s burner's reported/bare
// ratio with P = 1 and P = 2, a runner's setup in process against
// reaching a running `podjail serve`, `podjail run` through it (first,
// back to back, after a pause), `isolate --run` through the isolate front
// in process and through it, and a C build in process, through it and as
// a front asks it (omegajail's compile), the bare lifecycle again with
// stdout attached (the attach's own cost), podjail's run container built
// up from the bare one a part at a time (--spec-steps) and a runner's runs
// beside them (alone, and armed ahead as a judge's slot), and a 64 MiB
// stdout's rate through the runner against a bare pipe's. The targets are read from its
// output, never asserted on time; what is asserted is that it ran and
// every judge it made was AC (bench fails otherwise).
func TestPodjailBench(t *testing.T) {
	env := hosttest.Podman(t)
	sock, stop := startService(t, env)
	args := []string{"bench", "--image", env.Image, "--program", trivial,
		"--burner", tprog + " spin 1000", "--burner-bare", filepath.Join(env.Progs, "tprog"), "--service", sock, "--build-lang", "c",
		"--stream", tprog + " write 64", "--stream-bare", filepath.Join(env.Progs, "tprog"), "--cpuprofile", benchProfile(t, env)}
	args = append(args, benchSmokeArgs...)
	if !env.Rootless {
		args = append(args, "--by-process") // process accounting is root's
	}
	// The figures to read (make bench-vm, or by hand: hack/testvm/README.md):
	// more tests, repeats, lifecycles per step and rounds, given in the
	// payload's testenv (the last of a repeated flag counts).
	args = append(args, strings.Fields(os.Getenv("PODJAIL_BENCH_ARGS"))...)
	r := podjail(t, env, args...)
	t.Logf("podjail bench: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	if r.code != 0 {
		t.Fatal("podjail bench failed")
	}
	if !strings.Contains(r.stdout, "isolate --run in process") || !strings.Contains(r.stdout, "through the service, after a pause") {
		t.Error("the bench did not time isolate --run in process and through the service")
	}
	if !strings.Contains(r.stderr, "before the bare lifecycles after") || !strings.Contains(r.stderr, "before the judge after") {
		t.Error("the bench did not wait for a quiet host before timing the floor and the judge")
	}
	if strings.Count(r.stdout, "bare REST lifecycle, same P") < 1 {
		t.Error("the bench did not time Podman's bare lifecycle beside its judges (the floor)")
	}
	if !strings.Contains(r.stdout, "+ stdout and stderr attached before the start") || !strings.Contains(r.stdout, "a judge's test (against the last step kept)") {
		t.Error("the bench did not build podjail's run container up from the bare one, part by part")
	}
	if !strings.Contains(r.stdout, "per run, by cgroup: a runner's run alone, the last step kept, the difference") ||
		!strings.Contains(r.stdout, "per run, by cgroup: runner's runs armed ahead, the last step kept, the difference") {
		t.Error("the bench did not time a runner's runs alone and armed ahead beside the spec steps and the judge's test")
	}
	if !env.Rootless && !strings.Contains(r.stdout, "by process, P = 1, per lifecycle or test") {
		t.Error("the bench did not split the host's time by process (--by-process, as root)")
	}
	if !strings.Contains(r.stdout, "per test, by cgroup: the judge, the last step kept, the difference") {
		t.Error("the bench did not compare the judge's cgroups with those of the container podjail runs")
	}
	if !strings.Contains(r.stdout, "per test, by cgroup: the judge, a bare lifecycle, the difference") {
		t.Error("the bench did not compare the judge's cgroups with the bare lifecycle's")
	}
	if strings.Count(r.stdout, "the same, stdout attached") < 1 {
		t.Error("the bench did not time the bare lifecycle with stdout attached (the attach's own cost)")
	}
	if !strings.Contains(r.stdout, "stdout of 64 MiB: the runner read it at") {
		t.Error("the bench did not compare a 64 MiB stdout's rate with a bare pipe's")
	}
	if !strings.Contains(r.stdout, "as a front through the service") {
		t.Error("the bench did not time a build as a front asks it of the service")
	}
	// The service keeps a run armed ahead until it stops. Its C builds
	// after the first take containers armed ahead for them.
	c, err := lang.Default().Lookup("c")
	if err != nil {
		t.Fatal(err)
	}
	code, log := stop()
	if code != 0 {
		t.Errorf("service: exit %d\n%s", code, log)
	}
	if !slices.ContainsFunc(strings.Split(log, "\n"), func(l string) bool {
		return strings.Contains(l, "running armed") && strings.Contains(l, "ahead=true") && strings.Contains(l, "image="+c.BuildImage)
	}) {
		t.Errorf("no build of the service was taken armed ahead (no \"running armed\" line with ahead=true and image=%s):\n%s", c.BuildImage, log)
	}
	assertNothingLeft(t, env, "")
}

// benchSmokeArgs are the bench's counts in `make test-vm`, whose ratios are
// not figures to read: the fewest that still run every part of the bench
// and print every table the test looks for.
//   - --repeat 2: the service's second C build is the first one it can
//     take armed ahead (a Compile's and a front's Exec build are runs of
//     different shapes, each armed behind its own first), which the test
//     asserts from the service's log; each timed call runs twice.
//   - --tests 2: the floors and the judges at P = 1 and on both cores (two
//     tests at once), each test AC (the bench fails otherwise); at P = 1
//     the second test is armed ahead of its turn.
//   - --spec-steps 2: every step of the run container built up runs; the
//     runner's armed-ahead step takes a run armed while the one before it
//     ran and removes that one beside (with 1 nothing would be ahead).
//   - --rounds 1: one pair of floor and judge; more pairs only repeat it.
//
// The burner's three tests at P = 1 and 2, the 64 MiB stream (as many
// bytes through the runner as through a bare pipe) and nothing left after
// it all do not depend on these counts.
var benchSmokeArgs = []string{"--repeat", "2", "--tests", "2", "--spec-steps", "2", "--rounds", "1"}

// benchProfile is where the bench's CPU profile goes: the VM's output
// directory when there is one (PODJAIL_OUT, brought back to the host for
// go tool pprof), else the test's own.
func benchProfile(t *testing.T, env hosttest.Env) string {
	dir := os.Getenv("PODJAIL_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	mode := "root"
	if env.Rootless {
		mode = "rootless"
	}
	return filepath.Join(dir, "bench-"+mode+".pprof")
}
