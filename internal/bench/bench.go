// Package bench is podjail bench: it measures podjail against podman run
// on this host (docs/performance.md reads its figures).
package bench

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

// Options are podjail bench's flags (podjail bench --help says what each
// does).
type Options struct {
	URL, Image, Program, Podman, Shim, Service string
	Tests, Repeat, Parallel, Rounds, SpecSteps int
	// Burner, Stream and Idle are argvs in the image, space-separated;
	// BurnerBare and StreamBare host paths of the same programs.
	Burner, BurnerBare, Stream, StreamBare, Idle string
	ByProcess                                    bool
	CPUProfile, BuildLang                        string
	JSON                                         bool
}

// Defaults are the options a bench takes unless told otherwise.
func Defaults() Options {
	return Options{Program: "/trivial", Tests: 20, Repeat: 5, Podman: "podman", Rounds: 1}
}

// usageError is a mistake in the options or the command line: podjail
// bench exits 2 for it, 1 for any other error.
type usageError struct{ error }

// IsUsage says err is the caller's mistake, not the host's.
func IsUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

// check refuses options that cannot make a bench.
func (o Options) check() error {
	switch {
	case o.Image == "":
		return usageError{errors.New("--image is required: the image holding the programs")}
	case o.Tests < 1 || o.Repeat < 1 || o.Rounds < 1 || o.Parallel < 0:
		return usageError{errors.New("--tests, --repeat and --rounds must be at least 1, --parallel at least 0 (every core)")}
	case o.SpecSteps < 0:
		return usageError{errors.New("--spec-steps takes a number of lifecycles per step, 0 for none")}
	case (o.Burner == "") != (o.BurnerBare == ""):
		return usageError{errors.New("--burner and --burner-bare go together: the same program in the image and on the host")}
	case (o.Stream == "") != (o.StreamBare == ""):
		return usageError{errors.New("--stream and --stream-bare go together: the same program in the image and on the host")}
	}
	return nil
}

// Run measures, in this boot: podman run --rm of a trivial program, one
// whole podjail run, and podjail judge of a problem of that program one
// test at a time and on every core; it prints the figures on stdout, its
// progress on stderr. Every judge must be AC.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer, log hclog.Logger) error {
	if err := o.check(); err != nil {
		return err
	}
	shimPath, err := plugin.FindShim(o.Shim)
	if err == nil && shimPath == "" {
		err = errors.New("bench needs podjail-shim: put it beside podjail or pass --shim")
	}
	if err != nil {
		return usageError{err}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	rep := benchReport{Image: o.Image, Program: o.Program}
	say := func(format string, a ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", a...) }

	if err := timeWholeRuns(ctx, o, &rep, self, shimPath, say); err != nil {
		return err
	}
	runner, err := newRunner(ctx, o.URL, shimPath, log)
	if err != nil {
		return err
	}
	defer runner.Close(context.WithoutCancel(ctx))
	if o.BuildLang != "" {
		say("timing %d builds of a trivial %s program in process, and %d through the service and %d as a front through it (after a pause of %s each)", o.Repeat, o.BuildLang, o.Repeat, o.Repeat, benchPause(rep.PodmanRun))
		if err := benchBuilds(ctx, &rep, runner, o.BuildLang, o.Service, o.Repeat, benchPause(rep.PodmanRun)); err != nil {
			return err
		}
	}
	parallels := []int{1}
	if p := cmp.Or(o.Parallel, len(runner.Cores)); p > 1 {
		parallels = append(parallels, p)
		if runner.Cores, err = sharedCores(runner.Cores, p); err != nil {
			return usageError{err}
		}
	}
	if o.CPUProfile != "" {
		stop, err := startCPUProfile(o.CPUProfile)
		if err != nil {
			return usageError{err}
		}
		defer stop()
	}
	var meter *procMeter
	if o.ByProcess {
		if meter, err = startProcMeter(); err != nil {
			return fmt.Errorf("--by-process: %w", err)
		}
		defer meter.stop()
	}
	for _, p := range parallels {
		m := meter
		if p != 1 {
			m = nil
		}
		j, err := judgeAt(ctx, o, runner, &rep, p, m, say)
		if err != nil {
			return err
		}
		rep.Judges = append(rep.Judges, j)
	}
	if o.Burner != "" {
		if rep.Burners, err = timeBurner(ctx, o, runner, parallels, say); err != nil {
			return err
		}
	}
	if o.Stream != "" {
		say("running %q once through the runner and bare on the host into a pipe", o.Stream)
		st, err := benchStreamRate(ctx, runner, o.Image, strings.Fields(o.Stream), o.StreamBare)
		if err != nil {
			return err
		}
		rep.Stream = &st
	}
	if o.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printBench(stdout, rep)
	}
	return nil
}

// timeWholeRuns times whole processes: podman run, podjail run in
// process and, with a service, podjail run and isolate --run through it.
func timeWholeRuns(ctx context.Context, o Options, rep *benchReport, self, shimPath string, say func(string, ...any)) (err error) {
	say("timing %d × `%s run --rm --network=none %s %s`", o.Repeat, o.Podman, o.Image, o.Program)
	if rep.PodmanRun, err = medianWall(ctx, o.Repeat, o.Podman, "run", "--rm", "--network=none", o.Image, o.Program); err != nil {
		return err
	}
	say("timing %d × `podjail run`", o.Repeat)
	runArgs := []string{"run", "--image", o.Image, "--shim", shimPath, "--output", os.DevNull, "--service", "none"}
	if o.URL != "" {
		runArgs = append(runArgs, "--url", o.URL)
	}
	if rep.PodjailRun, err = medianWall(ctx, o.Repeat, self, append(runArgs, "--", o.Program)...); err != nil {
		return err
	}
	if o.Service == "" {
		return nil
	}
	say("timing %d × a runner's setup in process and %d × reaching the service at %s", o.Repeat, o.Repeat, o.Service)
	if rep.Setup, rep.ServiceDial, err = benchService(ctx, o.Repeat, o.URL, shimPath, o.Service); err != nil {
		return err
	}
	say("timing 1 + %d + %d × `podjail run --service %s` (the last %d after a pause of %s each)", o.Repeat, o.Repeat, o.Service, o.Repeat, benchPause(rep.PodmanRun))
	viaService := []string{"run", "--image", o.Image, "--output", os.DevNull, "--service", o.Service, "--", o.Program}
	if rep.PodjailRunServiceFirst, err = medianWall(ctx, 1, self, viaService...); err != nil {
		return err
	}
	if rep.PodjailRunServiceBackToBack, err = medianWall(ctx, o.Repeat, self, viaService...); err != nil {
		return err
	}
	if rep.PodjailRunService, err = medianWallPaused(ctx, o.Repeat, benchPause(rep.PodmanRun), self, viaService...); err != nil {
		return err
	}
	say("timing %d × `isolate --run` in process and %d × through the service (after a pause of %s each)", o.Repeat, o.Repeat, benchPause(rep.PodmanRun))
	if rep.IsolateRun, rep.IsolateRunService, err = benchIsolate(ctx, self, o.Image, o.Service, []string{o.Program}, o.Repeat, benchPause(rep.PodmanRun)); err != nil {
		return err
	}
	return nil
}

// judgeAt times P = p: the bare lifecycles (the floor), at P = 1 the spec
// steps, then a judge of the trivial problem, and the rounds after it.
func judgeAt(ctx context.Context, o Options, runner *plugin.Runner, rep *benchReport, p int, m *procMeter, say func(string, ...any)) (benchJudge, error) {
	say("timing %d bare REST lifecycles (create, start, wait, remove) of %s, then %d with stdout attached, %d at a time", o.Tests, o.Program, o.Tests, p)
	if o.Idle != "" {
		say("... then %d more with %d idle containers of %q alive beside", o.Tests, plugin.Lookahead*p, o.Idle)
	}
	settle := func(what string) error { return settleHost(ctx, what, say) }
	if err := settle("the bare lifecycles"); err != nil {
		return benchJudge{}, err
	}
	floor, err := benchFloors(ctx, runner.Runtime, o.Image, []string{o.Program}, strings.Fields(o.Idle), o.Tests, p, m)
	if err != nil {
		return benchJudge{}, err
	}
	if o.SpecSteps > 0 && p == 1 {
		say("... then %d more for each step, one at a time, podjail's run container built up a part at a time", o.SpecSteps)
		if rep.SpecSteps, err = benchSpecSteps(ctx, runner, o.Image, []string{o.Program}, o.SpecSteps, say, m); err != nil {
			return benchJudge{}, err
		}
	}
	say("judging %d tests of %s with P = %d", o.Tests, o.Program, p)
	if err := settle("the judge"); err != nil {
		return benchJudge{}, err
	}
	if err := m.begin(); err != nil {
		return benchJudge{}, err
	}
	j, err := benchJudgeOnce(ctx, runner, o.Image, []string{o.Program}, o.Tests, p)
	if err != nil {
		return benchJudge{}, err
	}
	if m != nil {
		if rep.Procs, err = procsBeside(m, o.Tests, floor, rep.SpecSteps); err != nil {
			return benchJudge{}, err
		}
	}
	j.FloorAttached, j.FloorAlive, j.Alive = floor.Attached, floor.Alive, floor.AliveCount
	if j.Floor = floor.Bare; j.Floor > 0 {
		j.OverFloor = j.HostCPU.Seconds() / j.Floor.Seconds()
		for i, c := range j.Top {
			j.Top[i].Floor, j.Top[i].FloorAlive = floor.Cgroups[c.Path], floor.AliveCgroups[c.Path]
		}
	}
	if o.Rounds > 1 && j.Floor > 0 {
		say("... then %d more pairs of %d bare lifecycles and a judge of %d tests, P = %d", o.Rounds-1, o.Tests, o.Tests, p)
		if j.Rounds, err = benchRounds(ctx, runner, o.Image, []string{o.Program}, o.Tests, p, o.Rounds-1, settle); err != nil {
			return benchJudge{}, err
		}
		j.Rounds = append([]float64{j.OverFloor}, j.Rounds...)
		j.RoundsMedian = medianOfRatios(j.Rounds)
	}
	j.CriticalFrac = j.Critical.Seconds() / rep.PodmanRun.Seconds()
	j.WallFrac = j.TestsWall.Seconds() / (float64(j.Tests) * rep.PodmanRun.Seconds())
	return j, nil
}

// timeBurner judges the burner as 3 tests at P = 1 and 2 and sets the
// time charged against its bare rusage.
func timeBurner(ctx context.Context, o Options, runner *plugin.Runner, parallels []int, say func(string, ...any)) ([]benchBurner, error) {
	var burners []benchBurner
	argv := strings.Fields(o.Burner)
	bare, err := hostRusage(ctx, 3, o.BurnerBare, argv[1:]...)
	if err != nil {
		return nil, err
	}
	for _, p := range parallels[:min(2, len(parallels))] {
		p = min(p, 2)
		say("judging the burner %q as 3 tests with P = %d", o.Burner, p)
		res, err := judgeTrivial(ctx, runner, o.Image, argv, 3, p)
		if err != nil {
			return nil, err
		}
		b := benchBurner{Parallel: p, Bare: bare}
		for _, t := range res.Tests {
			b.Reported = append(b.Reported, t.Time.Seconds()/bare.Seconds())
		}
		burners = append(burners, b)
	}
	return burners, nil
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

// newRunner sets up a runner as podjail run does (its memory ceiling from
// the environment).
func newRunner(ctx context.Context, url, shimPath string, log hclog.Logger) (*plugin.Runner, error) {
	ceiling, err := plugin.MemoryCeilingFromEnv()
	if err != nil {
		return nil, err
	}
	return plugin.NewRunner(ctx, plugin.Setup{URL: url, Shim: shimPath, Log: log, MemoryCeiling: ceiling})
}
