package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/sandbox"
)

// benchReport is what podjail bench measured, all in one boot.
type benchReport struct {
	Image   string `json:"image"`
	Program string `json:"program"`
	// PodmanRun is the median elapsed time of `podman run --rm` of the
	// program, the yardstick of every ratio.
	PodmanRun time.Duration `json:"podman_run_ns"`
	// PodjailRun is the median elapsed time of a whole `podjail run`
	// process (its setup, the run, the removal).
	PodjailRun time.Duration `json:"podjail_run_ns"`
	// Setup is the median time a runner takes to set up in the caller's
	// process (connect, sweeps, host info, seccomp profile), what every
	// CLI call without a service pays; ServiceDial the median time to
	// reach a running service instead (connect and a Capabilities call).
	// Zero: not measured (no --service).
	Setup       time.Duration `json:"runner_setup_ns,omitempty"`
	ServiceDial time.Duration `json:"service_dial_ns,omitempty"`
	// PodjailRunServiceFirst is the elapsed time of the first whole
	// `podjail run` process through the service (its container armed
	// when asked for); PodjailRunServiceBackToBack the median of the ones
	// right after it, each coming while the service still arms its
	// container and removes the last one; PodjailRunService the median of
	// the ones after a pause (benchPause), each taking the container the
	// service armed behind the one before. Zero: not measured.
	PodjailRunServiceFirst      time.Duration `json:"podjail_run_service_first_ns,omitempty"`
	PodjailRunServiceBackToBack time.Duration `json:"podjail_run_service_back_to_back_ns,omitempty"`
	PodjailRunService           time.Duration `json:"podjail_run_service_ns,omitempty"`
	// IsolateRun is the median wall time of a whole `isolate --run`
	// through the isolate front in process; IsolateRunService through the
	// service, each call after a pause. Zero: not measured (no --service).
	IsolateRun        time.Duration `json:"isolate_run_ns,omitempty"`
	IsolateRunService time.Duration `json:"isolate_run_service_ns,omitempty"`
	// Stream is the stdout rate of --stream; nil: not measured.
	Stream *benchStream `json:"stream,omitempty"`
	// BuildLang is the language of the timed builds of a trivial program
	// (--build-lang); BuildInProcess their median in the caller's process,
	// BuildService through the service, each after a pause (armed ahead
	// but the first). Zero: not measured.
	BuildLang      string        `json:"build_lang,omitempty"`
	BuildInProcess time.Duration `json:"build_in_process_ns,omitempty"`
	BuildService   time.Duration `json:"build_service_ns,omitempty"`
	// BuildFront is the same build as a front asks it of the service (Exec
	// with the source in and the artefacts back: omegajail's compile).
	BuildFront time.Duration `json:"build_front_ns,omitempty"`
	Judges     []benchJudge  `json:"judges"`
	Burners    []benchBurner `json:"burners,omitempty"`
	// SpecSteps build podjail's run container up from the bare one, a
	// part at a time, at P = 1 (--spec-steps). Nil: not measured.
	SpecSteps []specStep `json:"spec_steps,omitempty"`
	// Procs sets a judge's test beside a bare lifecycle and the last spec
	// step kept, by command, at P = 1 (--by-process). Nil: not measured.
	Procs *benchProcs `json:"by_process,omitempty"`
}

// benchJudge is one judge of the trivial problem.
type benchJudge struct {
	Parallel int `json:"parallel"`
	Tests    int `json:"tests"`
	// Critical is the median of the tests' critical paths (a test's turn
	// to its verdict); CriticalMax the slowest.
	Critical    time.Duration `json:"critical_median_ns"`
	CriticalMax time.Duration `json:"critical_max_ns"`
	// Fired is the median from a test's go to the end of its run: its
	// critical path when it was armed by its turn.
	Fired time.Duration `json:"fired_median_ns"`
	// Peak is the median of the program's peak memory.
	Peak int64 `json:"peak_median_bytes"`
	// RunCgroup is the median processor time of a run's own parent
	// cgroup (the shim, its probe, the program): gone with the run, it is
	// in HostCPU but in none of Top. Zero: no parent cgroups.
	RunCgroup time.Duration `json:"run_cgroup_cpu_median_ns,omitempty"`
	// TestsWall is from the end of the build to the last verdict; Wall
	// the whole judge, setup of the runner aside.
	TestsWall   time.Duration `json:"tests_wall_ns"`
	Wall        time.Duration `json:"wall_ns"`
	TestsPerSec float64       `json:"tests_per_second"`
	Verdict     string        `json:"verdict"`
	// HostCPU is the processor time the whole host used during the judge,
	// per test (/proc/stat): the container's own cost is what bounds the
	// judge once the program's is trivial. Top lists the cgroups that
	// used most of it, per test.
	HostCPU time.Duration `json:"host_cpu_per_test_ns"`
	Top     []cgroupCPU   `json:"top_cgroups_per_test"`
	// Floor is the host's processor time per bare REST lifecycle of the
	// same program at the same P (benchFloor), Podman's share that no
	// setting removes; OverFloor is HostCPU over it, podjail's whole
	// cost per test as a multiple of Podman's. Zero: not measured.
	Floor     time.Duration `json:"bare_lifecycle_host_cpu_ns,omitempty"`
	OverFloor float64       `json:"host_cpu_over_bare_lifecycle,omitempty"`
	// FloorAttached is the same bare lifecycle with the container's stdout
	// attached before the start, as podjail's runs are; less Floor, it is
	// the attach's own cost. Zero: not measured.
	FloorAttached time.Duration `json:"bare_attached_lifecycle_host_cpu_ns,omitempty"`
	// FloorAlive is the bare lifecycle again with Alive idle containers
	// running beside, as many as the judge keeps armed ahead (--idle):
	// less Floor, what Podman's work per container owes to the containers
	// alive. Zero: not measured.
	FloorAlive time.Duration `json:"bare_lifecycle_alive_host_cpu_ns,omitempty"`
	Alive      int           `json:"bare_lifecycle_alive,omitempty"`
	// Rounds are HostCPU over the floor again, each of a pair timed back
	// to back, bare lifecycles then a judge, the pairs one after another
	// (--rounds): a slow drift of the host under the bench moves both of
	// a pair alike, so their ratio is steadier than one floor's.
	// RoundsMedian is their median. Nil: one pair only (OverFloor).
	Rounds       []float64 `json:"rounds_host_cpu_over_bare_lifecycle,omitempty"`
	RoundsMedian float64   `json:"rounds_median,omitempty"`
	CriticalFrac float64   `json:"critical_over_podman_run"`
	WallFrac     float64   `json:"tests_wall_over_sequential_podman_runs"`
}

// benchBurner compares the time a judge charges a CPU burner with the
// burner's rusage when run bare on the host.
type benchBurner struct {
	Parallel int           `json:"parallel"`
	Bare     time.Duration `json:"bare_rusage_ns"`
	Reported []float64     `json:"reported_over_bare"`
}

func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer, log hclog.Logger) int {
	fs := newCommand("bench", "--image IMAGE", 0,
		"Measures, in this boot: `podman run --rm` of a trivial program, one whole `podjail run`, and `podjail judge` of a problem of that program one test at a time and on every core.")
	url := urlFlag(fs.FlagSet)
	image := fs.String("image", "", "`image` holding the programs (required)")
	program := fs.String("program", "/trivial", "absolute `path` in the image of a trivial static program")
	tests := fs.Int("tests", 20, "`number` of tests of the judged problem")
	repeat := fs.Int("repeat", 5, "`times` each of podman run and podjail run is timed (the median is kept)")
	podman := fs.String("podman", "podman", "the podman `command` timed as a user runs it")
	burner := fs.String("burner", "", "`argv` (in the image, space-separated) of a CPU burner judged as 3 tests with P = 1 and P = 2, e.g. \"/tprog burn 1000\"")
	burnerBare := fs.String("burner-bare", "", "host `path` of the same burner binary, run bare for its rusage")
	stream := fs.String("stream", "", "`argv` (in the image, space-separated) of a program writing much to stdout, run once and its rate compared with a bare pipe's, e.g. \"/tprog write 64\"")
	streamBare := fs.String("stream-bare", "", "host `path` of the same stream program, run bare into a pipe")
	idle := fs.String("idle", "", "`argv` (in the image, space-separated) of a program that waits, e.g. \"/tprog sleep 3600\": the bare lifecycles are timed again with as many of it alive beside as a judge keeps armed ahead")
	parallel := fs.Int("parallel", 0, "the `P` timed beside P = 1 (0: every core podjail is given); above the cores, runs share them in turn, which a judge never does: on a one-processor VM, what a second slot costs")
	rounds := fs.Int("rounds", 1, "`pairs` of the bare lifecycles and a judge, timed one after the other at each P; above 1, their ratios and the median of them are printed")
	byProc := fs.Bool("by-process", false, "at P = 1, split the host's processor time by command (BSD process accounting: root only; it takes the host's accounting file until the bench ends)")
	specSteps := fs.Int("spec-steps", 0, "at P = 1, also time `n` lifecycles for each step of podjail's run container built up from the bare one a part at a time (its settings, seccomp, mounts, parent cgroup; aside, the attach); 0: not")
	shimFlag := fs.String("shim", "", "host `path` of podjail-shim (default: $PODJAIL_SHIM, else beside podjail)")
	asJSON := fs.Bool("json", false, "print the figures as JSON on stdout")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process's judges (podjail's own share of a test) to `file`, for go tool pprof")
	buildLang := fs.String("build-lang", "", "`language` (c or cpp) whose build of a trivial program is timed in process and, with --service, through the service")
	service := fs.String("service", "", "Unix socket `path` of a running podjail service: also time reaching it against setting up a runner in process")
	if code, done := fs.parse(args, stdout, stderr); done {
		return code
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "podjail bench: %v\n", err)
		return code
	}
	switch {
	case *image == "":
		return fail(exitUsage, errors.New("--image is required: the image holding the programs"))
	case *tests < 1 || *repeat < 1 || *rounds < 1 || *parallel < 0:
		return fail(exitUsage, errors.New("--tests, --repeat and --rounds must be at least 1, --parallel at least 0 (every core)"))
	case *specSteps < 0:
		return fail(exitUsage, errors.New("--spec-steps takes a number of lifecycles per step, 0 for none"))
	case (*burner == "") != (*burnerBare == ""):
		return fail(exitUsage, errors.New("--burner and --burner-bare go together: the same program in the image and on the host"))
	case (*stream == "") != (*streamBare == ""):
		return fail(exitUsage, errors.New("--stream and --stream-bare go together: the same program in the image and on the host"))
	}
	shimPath, err := findShim(*shimFlag)
	if err == nil && shimPath == "" {
		err = errors.New("bench needs podjail-shim: put it beside podjail or pass --shim")
	}
	if err != nil {
		return fail(exitUsage, err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(exitFailure, err)
	}
	rep := benchReport{Image: *image, Program: *program}
	say := func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }

	say("timing %d × `%s run --rm --network=none %s %s`", *repeat, *podman, *image, *program)
	if rep.PodmanRun, err = medianWall(ctx, *repeat, *podman, "run", "--rm", "--network=none", *image, *program); err != nil {
		return fail(exitFailure, err)
	}
	say("timing %d × `podjail run`", *repeat)
	runArgs := []string{"run", "--image", *image, "--shim", shimPath, "--output", os.DevNull, "--service", "none"}
	if *url != "" {
		runArgs = append(runArgs, "--url", *url)
	}
	if rep.PodjailRun, err = medianWall(ctx, *repeat, self, append(runArgs, "--", *program)...); err != nil {
		return fail(exitFailure, err)
	}

	if *service != "" {
		say("timing %d × a runner's setup in process and %d × reaching the service at %s", *repeat, *repeat, *service)
		if rep.Setup, rep.ServiceDial, err = benchService(ctx, *repeat, *url, shimPath, *service); err != nil {
			return fail(exitFailure, err)
		}
		say("timing 1 + %d + %d × `podjail run --service %s` (the last %d after a pause of %s each)", *repeat, *repeat, *service, *repeat, benchPause(rep.PodmanRun))
		viaService := []string{"run", "--image", *image, "--output", os.DevNull, "--service", *service, "--", *program}
		if rep.PodjailRunServiceFirst, err = medianWall(ctx, 1, self, viaService...); err != nil {
			return fail(exitFailure, err)
		}
		if rep.PodjailRunServiceBackToBack, err = medianWall(ctx, *repeat, self, viaService...); err != nil {
			return fail(exitFailure, err)
		}
		if rep.PodjailRunService, err = medianWallPaused(ctx, *repeat, benchPause(rep.PodmanRun), self, viaService...); err != nil {
			return fail(exitFailure, err)
		}
		say("timing %d × `isolate --run` in process and %d × through the service (after a pause of %s each)", *repeat, *repeat, benchPause(rep.PodmanRun))
		if rep.IsolateRun, rep.IsolateRunService, err = benchIsolate(ctx, self, *image, *service, []string{*program}, *repeat, benchPause(rep.PodmanRun)); err != nil {
			return fail(exitFailure, err)
		}
	}
	runner, err := newRunner(ctx, *url, shimPath, log)
	if err != nil {
		return fail(exitFailure, err)
	}
	defer runner.Close(context.WithoutCancel(ctx))
	if *buildLang != "" {
		say("timing %d builds of a trivial %s program in process, and %d through the service and %d as a front through it (after a pause of %s each)", *repeat, *buildLang, *repeat, *repeat, benchPause(rep.PodmanRun))
		if err := benchBuilds(ctx, &rep, runner, *buildLang, *service, *repeat, benchPause(rep.PodmanRun)); err != nil {
			return fail(exitFailure, err)
		}
	}
	parallels := []int{1}
	if p := cmp.Or(*parallel, len(runner.Cores)); p > 1 {
		parallels = append(parallels, p)
		if runner.Cores, err = sharedCores(runner.Cores, p); err != nil {
			return fail(exitUsage, err)
		}
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return fail(exitUsage, err)
		}
		defer stop()
	}
	var meter *procMeter
	if *byProc {
		if meter, err = startProcMeter(); err != nil {
			return fail(exitFailure, fmt.Errorf("--by-process: %w", err))
		}
		defer meter.stop()
	}
	for _, p := range parallels {
		m := meter
		if p != 1 {
			m = nil
		}
		say("timing %d bare REST lifecycles (create, start, wait, remove) of %s, then %d with stdout attached, %d at a time", *tests, *program, *tests, p)
		if *idle != "" {
			say("... then %d more with %d idle containers of %q alive beside", *tests, plugin.Lookahead*p, *idle)
		}
		settle := func(what string) error { return settleHost(ctx, what, say) }
		if err := settle("the bare lifecycles"); err != nil {
			return fail(exitFailure, err)
		}
		floor, err := benchFloors(ctx, runner.Runtime, *image, []string{*program}, strings.Fields(*idle), *tests, p, m)
		if err != nil {
			return fail(exitFailure, err)
		}
		if *specSteps > 0 && p == 1 {
			say("... then %d more for each step, one at a time, podjail's run container built up a part at a time", *specSteps)
			if rep.SpecSteps, err = benchSpecSteps(ctx, runner, *image, []string{*program}, *specSteps, say, m); err != nil {
				return fail(exitFailure, err)
			}
		}
		say("judging %d tests of %s with P = %d", *tests, *program, p)
		if err := settle("the judge"); err != nil {
			return fail(exitFailure, err)
		}
		if err := m.begin(); err != nil {
			return fail(exitFailure, err)
		}
		j, err := benchJudgeOnce(ctx, runner, *image, []string{*program}, *tests, p)
		if err != nil {
			return fail(exitFailure, err)
		}
		if m != nil {
			if rep.Procs, err = procsBeside(m, *tests, floor, rep.SpecSteps); err != nil {
				return fail(exitFailure, err)
			}
		}
		j.FloorAttached, j.FloorAlive, j.Alive = floor.Attached, floor.Alive, floor.AliveCount
		if j.Floor = floor.Bare; j.Floor > 0 {
			j.OverFloor = j.HostCPU.Seconds() / j.Floor.Seconds()
			for i, c := range j.Top {
				j.Top[i].Floor, j.Top[i].FloorAlive = floor.Cgroups[c.Path], floor.AliveCgroups[c.Path]
			}
		}
		if *rounds > 1 && j.Floor > 0 {
			say("... then %d more pairs of %d bare lifecycles and a judge of %d tests, P = %d", *rounds-1, *tests, *tests, p)
			if j.Rounds, err = benchRounds(ctx, runner, *image, []string{*program}, *tests, p, *rounds-1, settle); err != nil {
				return fail(exitFailure, err)
			}
			j.Rounds = append([]float64{j.OverFloor}, j.Rounds...)
			j.RoundsMedian = medianOfRatios(j.Rounds)
		}
		j.CriticalFrac = j.Critical.Seconds() / rep.PodmanRun.Seconds()
		j.WallFrac = j.TestsWall.Seconds() / (float64(j.Tests) * rep.PodmanRun.Seconds())
		rep.Judges = append(rep.Judges, j)
	}
	if *burner != "" {
		argv := strings.Fields(*burner)
		bare, err := hostRusage(ctx, 3, *burnerBare, argv[1:]...)
		if err != nil {
			return fail(exitFailure, err)
		}
		for _, p := range parallels[:min(2, len(parallels))] {
			p = min(p, 2)
			say("judging the burner %q as 3 tests with P = %d", *burner, p)
			res, err := judgeTrivial(ctx, runner, *image, argv, 3, p)
			if err != nil {
				return fail(exitFailure, err)
			}
			b := benchBurner{Parallel: p, Bare: bare}
			for _, t := range res.Tests {
				b.Reported = append(b.Reported, t.Time.Seconds()/bare.Seconds())
			}
			rep.Burners = append(rep.Burners, b)
		}
	}
	if *stream != "" {
		say("running %q once through the runner and bare on the host into a pipe", *stream)
		st, err := benchStreamRate(ctx, runner, *image, strings.Fields(*stream), *streamBare)
		if err != nil {
			return fail(exitFailure, err)
		}
		rep.Stream = &st
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printBench(stdout, rep)
	}
	return exitOK
}

// benchPause is the idle time before each call timed "after a pause":
// twice a whole container's life, time for the service to remove the last
// run and arm the next.
func benchPause(podmanRun time.Duration) time.Duration { return 2 * podmanRun }

// benchService times, median of n each, a runner's setup in this process
// and reaching the service at path.
func benchService(ctx context.Context, n int, url, shimPath, path string) (setup, dial time.Duration, err error) {
	var setups, dials []time.Duration
	for range n {
		// Not closed: it made nothing, and a Close sweeps this process's
		// own runs.
		t0 := time.Now()
		if _, err := newRunner(ctx, url, shimPath, nil); err != nil {
			return 0, 0, err
		}
		setups = append(setups, time.Since(t0))
		t0 = time.Now()
		_, closeFn, err := sandbox.Dial(ctx, path)
		if err != nil {
			return 0, 0, err
		}
		dials = append(dials, time.Since(t0))
		_ = closeFn()
	}
	slices.Sort(setups)
	slices.Sort(dials)
	return setups[n/2], dials[n/2], nil
}

// benchJudgeOnce judges the trivial problem and sums it up.
func benchJudgeOnce(ctx context.Context, r *plugin.Runner, image string, argv []string, n, parallel int) (benchJudge, error) {
	cpu0, cg0 := hostCPU(), cgroupUsage()
	began := time.Now()
	res, err := judgeTrivial(ctx, r, image, argv, n, parallel)
	if err != nil {
		return benchJudge{}, err
	}
	j := benchJudge{Parallel: res.Parallel, Tests: len(res.Tests), TestsWall: res.TestsWall, Wall: time.Since(began), Verdict: string(res.Verdict)}
	if cpu0 >= 0 {
		j.HostCPU = (hostCPU() - cpu0) / time.Duration(n)
	}
	j.Top = topCgroups(cg0, cgroupUsage(), n, 6)
	if res.Verdict != plugin.AC {
		return j, fmt.Errorf("the trivial problem was judged %s (%s), not AC: the figures would mean nothing", res.Verdict, res.Note)
	}
	var crit, fired, runs []time.Duration
	var peaks []int64
	for _, t := range res.Tests {
		crit = append(crit, t.Critical)
		fired = append(fired, t.Run.Wall)
		peaks = append(peaks, t.Peak)
		if t.Run.Cgroup != nil {
			runs = append(runs, t.Run.Cgroup.CPU)
		}
	}
	j.RunCgroup = median(runs)
	slices.Sort(peaks)
	j.Peak = peaks[len(peaks)/2]
	slices.Sort(crit)
	j.Critical, j.CriticalMax = crit[len(crit)/2], crit[len(crit)-1]
	j.Fired = median(fired)
	j.TestsPerSec = float64(j.Tests) / res.TestsWall.Seconds()
	return j, nil
}

// judgeTrivial judges n tests of an empty input and answer, each running
// argv, on a problem made for it in a temporary directory.
func judgeTrivial(ctx context.Context, r *plugin.Runner, image string, argv []string, n, parallel int) (plugin.JudgeResult, error) {
	dir, err := os.MkdirTemp("", "podjail-bench-")
	if err != nil {
		return plugin.JudgeResult{}, err
	}
	defer os.RemoveAll(dir)
	files := map[string]string{"problem.yaml": "name: bench\ntime_limit: 2\nmemory_limit: 64M\n"}
	for i := range n {
		files[fmt.Sprintf("tests/%02d.in", i+1)] = ""
		files[fmt.Sprintf("tests/%02d.ans", i+1)] = ""
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return plugin.JudgeResult{}, err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return plugin.JudgeResult{}, err
		}
	}
	for _, d := range []string{dir, filepath.Join(dir, "tests")} {
		if err := os.Chmod(d, 0o755); err != nil {
			return plugin.JudgeResult{}, err
		}
	}
	prob, err := problem.Load(dir)
	if err != nil {
		return plugin.JudgeResult{}, err
	}
	// Nothing to build: the program is in the image, the source unused.
	l := lang.Language{ID: "bench", Name: "bench", RunImage: image, Source: "unused", Run: argv}
	return r.Judge(ctx, plugin.JudgeRequest{Problem: prob, Lang: l, Source: []byte("unused\n"), Parallel: parallel})
}

// median is the middle of ds (the upper one of an even count), 0 for
// none; ds is sorted in place.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// medianWall runs name args times times and gives the median elapsed time;
// any run that fails fails the bench.
func medianWall(ctx context.Context, times int, name string, args ...string) (time.Duration, error) {
	return medianWallPaused(ctx, times, 0, name, args...)
}

// medianOf is the median elapsed time of n calls of f, each after an idle
// pause (not counted): what the service does between calls (arming the
// next run, removing the last) is then off the call's path, as on a judge
// host whose calls do not come back to back.
func medianOf(n int, pause time.Duration, f func() error) (time.Duration, error) {
	var walls []time.Duration
	for range n {
		time.Sleep(pause)
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		walls = append(walls, time.Since(start))
	}
	slices.Sort(walls)
	return walls[len(walls)/2], nil
}

// medianWallPaused is medianWall with an idle pause before each call
// (medianOf).
func medianWallPaused(ctx context.Context, times int, pause time.Duration, name string, args ...string) (time.Duration, error) {
	return medianOf(times, pause, func() error {
		out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
		}
		return nil
	})
}

// hostRusage runs the program bare on the host and gives the median of its
// processor time (user + system, wait4's rusage).
func hostRusage(ctx context.Context, times int, path string, args ...string) (time.Duration, error) {
	var cpus []time.Duration
	for range times {
		cmd := exec.CommandContext(ctx, path, args...)
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("bare %s: %w", path, err)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpus = append(cpus, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
	}
	slices.Sort(cpus)
	return cpus[len(cpus)/2], nil
}

func printBench(w io.Writer, r benchReport) {
	ms := benchMS
	fmt.Fprintf(w, "trivial program %s in %s\n", r.Program, r.Image)
	fmt.Fprintf(w, "podman run --rm (median)        %10s  1.00 ×\n", ms(r.PodmanRun))
	fmt.Fprintf(w, "podjail run, whole (median)     %10s  %.2f ×\n", ms(r.PodjailRun), r.PodjailRun.Seconds()/r.PodmanRun.Seconds())
	if r.Setup > 0 {
		fmt.Fprintf(w, "runner setup in process (median) %9s  %.3f × (what a CLI call pays without a service)\n", ms(r.Setup), r.Setup.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "reaching the service (median)   %10s  %.3f × (what it pays with one)\n", ms(r.ServiceDial), r.ServiceDial.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "podjail run through the service, first %10s  %.2f × (armed when asked)\n", ms(r.PodjailRunServiceFirst), r.PodjailRunServiceFirst.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  again, back to back (median)  %10s  %.2f × (each while the last is removed and its own armed)\n", ms(r.PodjailRunServiceBackToBack), r.PodjailRunServiceBackToBack.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  again, after a pause (median) %10s  %.2f × (armed ahead by the service)\n", ms(r.PodjailRunService), r.PodjailRunService.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "isolate --run in process (median) %8s  %.2f ×\n", ms(r.IsolateRun), r.IsolateRun.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  through the service, after a pause (median) %s  %.2f × (armed ahead, the box copied in and back)\n", ms(r.IsolateRunService), r.IsolateRunService.Seconds()/r.PodmanRun.Seconds())
	}
	if r.BuildInProcess > 0 {
		fmt.Fprintf(w, "build of a trivial %s program, in process (median) %10s  %.2f ×\n", r.BuildLang, ms(r.BuildInProcess), r.BuildInProcess.Seconds()/r.PodmanRun.Seconds())
	}
	if r.BuildService > 0 {
		fmt.Fprintf(w, "  through the service, after a pause (median) %10s  %.2f × (armed ahead, the sources unpacked by the shim)\n", ms(r.BuildService), r.BuildService.Seconds()/r.PodmanRun.Seconds())
	}
	if r.BuildFront > 0 {
		fmt.Fprintf(w, "  as a front through the service, after a pause %8s  %.2f × (Exec: the source in, the artefacts back on the call)\n", ms(r.BuildFront), r.BuildFront.Seconds()/r.PodmanRun.Seconds())
	}
	for _, j := range r.Judges {
		fmt.Fprintf(w, "judge %d tests, P = %d (the program's peak memory, median: %d KiB):\n", j.Tests, j.Parallel, j.Peak>>10)
		fmt.Fprintf(w, "  per-test critical path median %10s  %.3f × podman run (max %s)\n", ms(j.Critical), j.CriticalFrac, ms(j.CriticalMax))
		fmt.Fprintf(w, "  go to end of run, median       %10s  %.3f × podman run\n", ms(j.Fired), j.Fired.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  tests wall (build end→verdict) %10s  %.3f × %d sequential podman runs\n", ms(j.TestsWall), j.WallFrac, j.Tests)
		fmt.Fprintf(w, "  judge wall (build included)   %10s  %.1f tests/s\n", ms(j.Wall), j.TestsPerSec)
		fmt.Fprintf(w, "  host CPU per test             %10s  (bound on tests wall: %s on %d cores)\n", ms(j.HostCPU), ms(j.HostCPU*time.Duration(j.Tests)/time.Duration(runtime.NumCPU())), runtime.NumCPU())
		if j.RunCgroup > 0 {
			fmt.Fprintf(w, "  of it the run's own cgroup    %10s  (median: the shim, its probe, the program; gone with the run, in no cgroup below)\n", ms(j.RunCgroup))
		}
		if j.Floor > 0 {
			fmt.Fprintf(w, "  bare REST lifecycle, same P   %10s  host CPU per test %.2f × it (Podman's own work: the floor)\n", ms(j.Floor), j.OverFloor)
		}
		if len(j.Rounds) > 1 {
			parts := make([]string, len(j.Rounds))
			for i, x := range j.Rounds {
				parts[i] = fmt.Sprintf("%.2f", x)
			}
			fmt.Fprintf(w, "  the same, by pair (floor, then judge) %s: median %.2f ×\n", strings.Join(parts, " "), j.RoundsMedian)
		}
		if j.Floor > 0 && j.FloorAttached > 0 {
			fmt.Fprintf(w, "  the same, stdout attached     %10s  the attach %s, %.2f × the floor\n", ms(j.FloorAttached),
				benchMSDiff(j.FloorAttached-j.Floor), j.FloorAttached.Seconds()/j.Floor.Seconds())
		}
		if j.FloorAlive > 0 {
			fmt.Fprintf(w, "  the same, %d idle alive beside %10s  %.2f × the floor; host CPU per test %.2f × it\n", j.Alive, ms(j.FloorAlive),
				j.FloorAlive.Seconds()/j.Floor.Seconds(), j.HostCPU.Seconds()/j.FloorAlive.Seconds())
		}
		printTop(w, j)
		if j.Parallel == 1 {
			printSpecSteps(w, r.SpecSteps, j)
		}
	}
	printProcs(w, r.Procs)
	printStream(w, r.Stream)
	for _, b := range r.Burners {
		parts := make([]string, len(b.Reported))
		for i, x := range b.Reported {
			parts[i] = fmt.Sprintf("%.4f", x)
		}
		fmt.Fprintf(w, "burner, P = %d: reported/bare rusage (bare %s) %s\n", b.Parallel, ms(b.Bare), strings.Join(parts, " "))
	}
}
