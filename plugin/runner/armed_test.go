package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/policy"
	"github.com/podjail/podjail/shim"
)

var testSelf = Instance{BootID: "boot-test", PID: 4242, Start: 987654, Host: "judge-test"}

// fakeRunner is a Runner on the fake runtime and cgroups, with the shim.
func fakeRunner(t *testing.T, prog func(bindings.Spec) runnertest.Program) (*Runner, *runnertest.Runtime, *runnertest.Cgroups) {
	t.Helper()
	cg := runnertest.NewCgroups(t)
	rt := runnertest.NewRuntime(cg)
	rt.SetProgram(prog)
	return &Runner{Runtime: rt, Self: testSelf, Cgroups: cg, Shim: "/usr/libexec/podjail/podjail-shim"}, rt, cg
}

func one(p runnertest.Program) func(bindings.Spec) runnertest.Program {
	return func(bindings.Spec) runnertest.Program { return p }
}

func TestRunAcceptedRun(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Stdout: []byte("hello\n"), CPU: 300 * time.Millisecond, SetupCPU: 200 * time.Millisecond, Peak: 5 << 20}))
	var out bytes.Buffer
	res, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/bin/prog", "arg"}, Output: &out, Limits: Limits{Time: time.Second, Memory: 64 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.ContainerExitCode != 0 || res.Signal != "" || res.Killed != NotKilled || !res.Shimmed {
		t.Errorf("ended %d/%d %q %q shimmed %t", res.ExitCode, res.ContainerExitCode, res.Signal, res.Killed, res.Shimmed)
	}
	if out.String() != "hello\n" || res.OutputBytes != 6 || res.FirstOutput < 0 || res.Wall <= 0 {
		t.Errorf("output %q, %d bytes, first after %v, wall %v", out.String(), res.OutputBytes, res.FirstOutput, res.Wall)
	}
	if res.Report == nil || res.Report.TimeUs != 300_000 || res.Cgroup == nil || res.Cgroup.CPU != 500*time.Millisecond {
		t.Fatalf("report %+v, cgroup %+v", res.Report, res.Cgroup)
	}
	m := res.Measure
	if m.Time != 300*time.Millisecond || m.SetupCPU != 200*time.Millisecond || m.ShimTime != 300*time.Millisecond || m.Peak != 5<<20 || m.ContainerPeak != 6<<20 || m.MemoryExceeded {
		t.Errorf("measure %+v", m)
	}
	if res.Status() != StatusExited || res.OOMKilledFlag {
		t.Errorf("status %s, oom flag %t", res.Status(), res.OOMKilledFlag)
	}
	s := rt.State()
	if len(s.Created) != 1 || res.ContainerID != s.Created[0] || !slices.Equal(s.Goes, s.Created) || len(s.Kills) != 0 {
		t.Errorf("id %s; runtime saw %+v", res.ContainerID, s)
	}
	// The container: the shim armed, its nonce in the environment, the
	// program after "--", the limits with the shim's headroom.
	spec := rt.Container(res.ContainerID).Spec
	nonce := spec.Env[shim.NonceEnv]
	if len(nonce) != 32 || strings.Contains(strings.Join(spec.Command, " "), nonce) {
		t.Errorf("nonce %q (command %q)", nonce, spec.Command)
	}
	if spec.Command[0] != bindings.ShimPath || !slices.Contains(spec.Command, "--armed") || !slices.Equal(spec.Command[len(spec.Command)-3:], []string{"--", "/bin/prog", "arg"}) {
		t.Errorf("command %q", spec.Command)
	}
	if spec.MemoryBytes != 64<<20+shimMemoryHeadroom || spec.ShimFile != r.Shim || spec.Stdin || spec.CgroupParent == "" || spec.Name != res.Container {
		t.Errorf("spec %+v", spec)
	}
	// The go came down the control pipe, not the attach's stdin (Podman's
	// detach keys), the output up the stdout pipe, and the pipes are gone
	// with the run.
	if i := slices.Index(spec.Command, "--control"); i < 0 || spec.Command[i+1] != bindings.ControlPath || spec.ControlPipe == "" {
		t.Errorf("no control pipe: command %q, pipe %q", spec.Command, spec.ControlPipe)
	}
	if i := slices.Index(spec.Command, "--stdout"); i < 0 || spec.Command[i+1] != bindings.StdoutPath || filepath.Dir(spec.StdoutPipe) != filepath.Dir(spec.ControlPipe) {
		t.Errorf("no stdout pipe: command %q, pipe %q", spec.Command, spec.StdoutPipe)
	}
	if _, err := os.Stat(filepath.Dir(spec.ControlPipe)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the control pipe's directory is left after the run: %v", err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestRunExitCodesAndSignals(t *testing.T) {
	cases := []struct {
		prog   runnertest.Program
		code   int32
		signal string
		status Status
	}{
		{runnertest.Program{Exit: 3, CPU: time.Millisecond}, 3, "", StatusExited},
		{runnertest.Program{Signal: "SIGSEGV", Exit: -1, CPU: time.Millisecond}, 139, "SIGSEGV", StatusSignalled},
		{runnertest.Program{OOMKill: true, CPU: time.Millisecond}, 137, "SIGKILL", StatusMemory},
		{runnertest.Program{Signal: "SIGSYS", Exit: -1, CPU: time.Millisecond}, 159, "SIGSYS", StatusSyscall},
		{runnertest.Program{CPU: 1500 * time.Millisecond}, 0, "", StatusExited},
	}
	for _, c := range cases {
		r, rt, cg := fakeRunner(t, one(c.prog))
		r.SeccompLogs = []string{filepath.Join(t.TempDir(), "no-kern.log")}
		res, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, Limits: Limits{Time: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if c.signal == "SIGSYS" && (res.Syscall != "" || res.SyscallUnknown == "") {
			t.Errorf("SIGSYS with no kernel log: syscall %q, unknown %q", res.Syscall, res.SyscallUnknown)
		}
		if res.ExitCode != c.code || res.Signal != c.signal || res.Status() != c.status {
			t.Errorf("%+v: exit %d %q %s; want %d %q %s", c.prog, res.ExitCode, res.Signal, res.Status(), c.code, c.signal, c.status)
		}
		if c.prog.OOMKill && (!res.Measure.MemoryExceeded || !strings.Contains(res.Measure.MemoryFrom, "memory.events")) {
			t.Errorf("OOM kill not read from memory.events: %+v", res.Measure)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

func TestRunOutputLimitStopsTheRun(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Stdout: bytes.Repeat([]byte("x"), 1000), Repeat: 10, Hang: true, CPU: time.Millisecond}))
	var out bytes.Buffer
	res, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, Output: &out, Limits: Limits{Output: 2500, Time: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Killed != KilledOutputLimit || !strings.Contains(res.KilledNote, "2500") || res.Signal != "SIGKILL" || res.Status() != StatusOutput {
		t.Errorf("killed %q %q, signal %q, status %s", res.Killed, res.KilledNote, res.Signal, res.Status())
	}
	if out.Len() != 2500 || res.OutputBytes < 2501 || res.StoppedAt <= 0 {
		t.Errorf("kept %d bytes, counted %d, stopped at %v", out.Len(), res.OutputBytes, res.StoppedAt)
	}
	// Under the shim the run is stopped by SIGTERM to the shim, which
	// still reports.
	if s := rt.State(); !slices.Equal(s.Kills, []string{res.ContainerID + " TERM"}) || res.Report == nil {
		t.Errorf("kills %v, report %+v", s.Kills, res.Report)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestRunShimFailures(t *testing.T) {
	for name, c := range map[string]struct {
		prog runnertest.Program
		step string
		goes int
	}{
		"fails before arming": {runnertest.Program{FailStep: shim.StepProbe}, "probe", 0},
		"dies without report": {runnertest.Program{NoReport: true, CPU: time.Millisecond}, "report", 1},
		// Seen by a look at the container (armCheckEvery), not in 2 min.
		"dies before its status pipe": {runnertest.Program{DiesAtStart: true}, "report", 0},
	} {
		r, rt, cg := fakeRunner(t, one(c.prog))
		_, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, Limits: Limits{Time: time.Second}})
		var se *ShimError
		if !errors.As(err, &se) || se.Step != c.step {
			t.Errorf("%s: err %v, want a ShimError at step %s", name, err, c.step)
		}
		if s := rt.State(); len(s.Goes) != c.goes {
			t.Errorf("%s: %d goes", name, len(s.Goes))
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

// TestRunStatusLost: the status pipe ends before the armed line while the
// shim lives on, silent. The run is an error of the host's at once, not a
// run held to its absolute cap (a build's wall cap would blame the
// submission), and nothing of it is left.
func TestRunStatusLost(t *testing.T) {
	t.Parallel()
	r, rt, cg := fakeRunner(t, one(runnertest.Program{StatusLost: true}))
	_, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, Limits: Limits{Time: time.Second},
		Wait: Wait{Deadlines: Deadlines{Wall: time.Hour}}})
	if !errors.Is(err, ErrHost) || !strings.Contains(fmt.Sprint(err), "status pipe ended before its armed line") {
		t.Errorf("error %v; want the host's, the status pipe named", err)
	}
	if s := rt.State(); len(s.Goes) != 0 {
		t.Errorf("the go was sent to a shim never heard armed: %+v", s)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestRunImageMissingLeavesNothing(t *testing.T) {
	r, rt, cg := fakeRunner(t, nil)
	rt.SetMissing("absent:1")
	_, err := r.Run(context.Background(), RunRequest{Image: "absent:1", Command: []string{"/p"}})
	var missing *bindings.ImageMissingError
	if !errors.As(err, &missing) || missing.Image != "absent:1" || !errors.Is(err, bindings.ErrNotFound) {
		t.Fatalf("err %v, want ImageMissingError", err)
	}
	if made, destroyed, _ := cg.Counts(); len(rt.State().Created) != 0 || made != destroyed {
		t.Errorf("created %v; %d parents made, %d destroyed", rt.State().Created, made, destroyed)
	}
}

func TestRunRefusesBadRequestBeforeTheRuntime(t *testing.T) {
	r, rt, _ := fakeRunner(t, nil)
	_, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"relative"}})
	var re *RequestError
	if !errors.As(err, &re) || len(rt.State().Created) != 0 {
		t.Fatalf("err %v, created %v", err, rt.State().Created)
	}
}

func TestRunCancelledRemovesEverything(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Hang: true, CPU: time.Millisecond}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt.SetOnGo(func(*runnertest.Container) { cancel() })
	_, err := r.Run(ctx, RunRequest{Image: "img", Command: []string{"/p"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if s := rt.State(); len(s.Goes) != 1 || len(s.Removed) != 1 {
		t.Errorf("runtime saw %+v", s)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestRunParentFailureCreatesNoContainer(t *testing.T) {
	r, rt, cg := fakeRunner(t, nil)
	cg.FailCreate(errors.New("no room"))
	_, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}})
	if err == nil || !strings.Contains(err.Error(), "fake driver") || len(rt.State().Created) != 0 {
		t.Fatalf("err %v, created %v", err, rt.State().Created)
	}
}

func TestArmThenDiscardRunsNothing(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Stdout: []byte("never"), CPU: time.Second}))
	r.Levels = policy.NewLevelPool() // disabled off SELinux: Reserve gives ""
	var out bytes.Buffer
	a, err := r.Arm(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	s := rt.State()
	if len(s.Started) != 1 || len(s.Goes) != 0 || len(s.Removed) != 0 {
		t.Fatalf("armed: %+v", s)
	}
	if made, _, _ := cg.Counts(); made != 1 {
		t.Fatalf("%d parents made", made)
	}
	select {
	case <-a.Done():
		t.Fatal("done before discarded")
	default:
	}
	a.Discard(context.Background())
	<-a.Done()
	a.Discard(context.Background()) // twice is harmless
	s = rt.State()
	if len(s.Goes) != 0 || out.Len() != 0 {
		t.Errorf("the program ran: goes %v, output %q", s.Goes, out.String())
	}
	if r.Levels.Len() != 0 {
		t.Errorf("%d SELinux levels still held", r.Levels.Len())
	}
	runnertest.AssertNothingLeft(t, rt, cg)
	if _, err := a.Fire(context.Background()); err == nil {
		t.Error("a discarded run fired")
	}
	if s := rt.State(); len(s.Goes) != 0 {
		t.Errorf("goes %v after firing a discarded run", s.Goes)
	}
}

func TestArmedFiresOnce(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{CPU: time.Millisecond}))
	a, err := r.Arm(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Fire(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Fire(context.Background()); err == nil {
		t.Error("fired twice")
	}
	a.Discard(context.Background()) // waits for the cleanup of the fired run
	if s := rt.State(); len(s.Goes) != 1 {
		t.Errorf("goes %v", s.Goes)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestRunDeadlines(t *testing.T) {
	stop := make(chan struct{})
	cases := []struct {
		name   string
		prog   runnertest.Program
		req    RunRequest
		killed KillReason
	}{
		{"processor ceiling", runnertest.Program{CPU: 3 * time.Second, Hang: true}, RunRequest{Wait: Wait{Deadlines: Deadlines{CPU: 2 * time.Second}}}, KilledCPULimit},
		{"no progress", runnertest.Program{Hang: true}, RunRequest{Wait: Wait{Deadlines: Deadlines{Idle: 150 * time.Millisecond}}}, KilledIdle},
		{"absolute cap", runnertest.Program{CPU: 100 * time.Millisecond, Hang: true}, RunRequest{Wait: Wait{Deadlines: Deadlines{Wall: 50 * time.Millisecond}}}, KilledWallLimit},
		{"caller's stop", runnertest.Program{Hang: true}, RunRequest{Wait: Wait{Stop: stop}}, KilledByCaller},
	}
	close(stop)
	for _, c := range cases {
		r, rt, cg := fakeRunner(t, one(c.prog))
		c.req.Image, c.req.Command = "img", []string{"/p"}
		res, err := r.Run(context.Background(), c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Killed != c.killed || res.Signal != "SIGKILL" || res.StoppedAt <= 0 {
			t.Errorf("%s: killed %q (%s), signal %q, stopped at %v", c.name, res.Killed, res.KilledNote, res.Signal, res.StoppedAt)
		}
		if c.killed == KilledWallLimit && !strings.Contains(res.KilledNote, "0.100 s of processor time by then") {
			t.Errorf("%s: the note %q does not say the processor time used by the cap", c.name, res.KilledNote)
		}
		// The processor time at the stop is read from the parent cgroup.
		if wantCPU := c.prog.CPU; res.TimeAtStop != wantCPU {
			t.Errorf("%s: time at stop %v, want the parent's %v", c.name, res.TimeAtStop, wantCPU)
		}
		// The program was killed from the host before Podman was asked.
		if s := rt.State(); !slices.Equal(s.HostKills, []string{res.ContainerID}) || len(s.Kills) == 0 {
			t.Errorf("%s: program's cgroup killed from the host in %v, stops %v; want %s in both", c.name, s.HostKills, s.Kills, res.ContainerID)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

func TestRunWithoutShimOrParent(t *testing.T) {
	cg := runnertest.NewCgroups(t)
	rt := runnertest.NewRuntime(cg)
	rt.SetProgram(one(runnertest.Program{Echo: true, Exit: 4, CPU: 20 * time.Millisecond}))
	r := &Runner{Runtime: rt, Self: testSelf, Cgroups: cg}
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, []byte("1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, InputFile: in, Output: &out, Limits: Limits{Time: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	// Without the shim the input is streamed, the exit code is the
	// container's and the time the parent cgroup's.
	if out.String() != "1 2 3\n" || res.ExitCode != 4 || res.Shimmed || res.Report != nil || res.Measure.Time != 20*time.Millisecond || res.Status() != StatusExited {
		t.Errorf("output %q, exit %d, shimmed %t, report %v, measure %+v, status %s", out.String(), res.ExitCode, res.Shimmed, res.Report, res.Measure, res.Status())
	}
	if spec := rt.Container(res.ContainerID).Spec; spec.Command[0] != "/p" || len(spec.Env) != 0 || spec.ShimFile != "" {
		t.Errorf("spec %+v", spec)
	}
	runnertest.AssertNothingLeft(t, rt, cg)

	// No parent cgroup: the figures are the shim's alone.
	r2, rt2, _ := fakeRunner(t, one(runnertest.Program{CPU: 40 * time.Millisecond, OOMKill: true}))
	r2.Cgroups = nil
	res, err = r2.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cgroup != nil || res.Measure.Time != 40*time.Millisecond || !res.Measure.MemoryExceeded || !strings.Contains(res.Measure.MemoryFrom, "shim report") {
		t.Errorf("cgroup %v, measure %+v", res.Cgroup, res.Measure)
	}
	runnertest.AssertNothingLeft(t, rt2, nil)
}

// A run whose context ended before its turn must not start its program:
// the pipeline cancels the tests after a failure, and a slot that took a
// test's turn just before the cutoff then fires it with that context.
func TestFireWithEndedContextStartsNothing(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Hang: true}))
	a, err := r.Arm(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.Fire(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("fired with an ended context: %v", err)
	}
	<-a.Done()
	if s := rt.State(); len(s.Goes) != 0 {
		t.Errorf("the program got its go with the context already ended: %v", s.Goes)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// slowCreate is a runtime whose Create is carried out by the service even
// when the caller gives up waiting, as Podman does: the caller then never
// learns the container's id unless it waited.
type slowCreate struct {
	*runnertest.Runtime
	entered, release chan struct{}
}

func (s slowCreate) Create(ctx context.Context, spec bindings.Spec) (string, error) {
	close(s.entered)
	<-s.release
	id, err := s.Runtime.Create(context.WithoutCancel(ctx), spec)
	if ctx.Err() != nil {
		return "", ctx.Err() // the answer was lost with the request
	}
	return id, err
}

// TestArmCancelledDuringCreateLeavesNothing: a judge that ends while a
// test's container is being created (its cutoff, Ctrl-C) must still
// remove that container; found in the VM as containers left "created".
func TestArmCancelledDuringCreateLeavesNothing(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{}))
	slow := slowCreate{rt, make(chan struct{}), make(chan struct{})}
	r.Runtime = slow
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := r.Arm(ctx, RunRequest{Image: "img", Command: []string{"/p"}})
		errc <- err
	}()
	<-slow.entered
	cancel()
	close(slow.release)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Arm after its caller ended: %v, want context.Canceled", err)
	}
	if s := rt.State(); len(s.Created) != 1 || len(s.Goes) != 0 {
		t.Fatalf("%+v: want the one container created, never fired", s)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// TestRunEndsAtTheReport: a program that ended well within its limits,
// its report on the stream, while the end of the attach stream lags (a
// busy host, Podman's attach behind the container's exit) past its
// absolute cap or its no-progress limit: issue 27's wrong TLE through the
// service. The run ends at the report: AC, the output whole (what came
// after the report too), no stop sent to the container, the wall time
// the program's; cold and taken armed ahead (the service's Warm).
func TestRunEndsAtTheReport(t *testing.T) {
	cases := []struct {
		name string
		lag  time.Duration
		req  RunRequest
	}{
		{"absolute cap", 300 * time.Millisecond, RunRequest{Wait: Wait{Deadlines: Deadlines{Wall: 50 * time.Millisecond}}}},
		{"no progress", 600 * time.Millisecond, RunRequest{Wait: Wait{Deadlines: Deadlines{Idle: 150 * time.Millisecond}}}},
	}
	for _, c := range cases {
		for _, warm := range []bool{false, true} {
			name := fmt.Sprintf("%s, warm %t", c.name, warm)
			prog := runnertest.Program{Stdout: []byte("4"), LateStdout: []byte("2\n"), CPU: 10 * time.Millisecond, StreamLag: c.lag}
			r, rt, cg := fakeRunner(t, one(prog))
			run := r.Run
			var w *Warm
			if warm {
				w = NewWarm(r, t.TempDir(), 0)
				run = w.Run
			}
			for i := range 2 { // a warm Run's second is armed ahead
				var out bytes.Buffer
				req := c.req
				req.Image, req.Command, req.Output, req.Limits.Time = "img", []string{"/p"}, &out, time.Second
				res, err := run(context.Background(), req)
				if err != nil {
					t.Fatalf("%s, run %d: %v", name, i, err)
				}
				if res.Status() != StatusExited || res.ExitCode != 0 || res.Killed != NotKilled || res.Signal != "" || out.String() != "42\n" || res.OutputBytes != 3 || res.Wall >= c.lag {
					t.Errorf("%s, run %d: status %s, exit %d, killed %q, signal %q, output %q (%d bytes), wall %v; want exited 0, not killed, 42, within %v",
						name, i, res.Status(), res.ExitCode, res.Killed, res.Signal, out.String(), res.OutputBytes, res.Wall, c.lag)
				}
			}
			if w != nil {
				if err := w.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if s := rt.State(); len(s.Kills) != 0 {
				t.Errorf("%s: stops sent to containers that had ended: %v", name, s.Kills)
			}
			runnertest.AssertNothingLeft(t, rt, cg)
		}
	}
}

// TestRunRemovesOnceExited: a run ends at the shim's report, but its
// container exits a moment later; it is removed once it has exited, not
// killed by a forced removal while it still runs.
func TestRunRemovesOnceExited(t *testing.T) {
	const lag = 300 * time.Millisecond
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Stdout: []byte("42\n"), ExitLag: lag}))
	var out bytes.Buffer
	a, err := r.Arm(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, Output: &out, Limits: Limits{Time: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Fire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status() != StatusExited || out.String() != "42\n" || res.Wall >= lag {
		t.Errorf("status %s, output %q, wall %v; want exited, 42, ended at the report (within %v)", res.Status(), out.String(), res.Wall, lag)
	}
	<-a.Done()
	s := rt.State()
	if !slices.Equal(s.Removed, s.Created) || len(s.Forced) != 0 || len(s.Kills) != 0 {
		t.Errorf("runtime saw %+v; want the container removed once it had exited, never killed", s)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// TestRunDeadlineAfterTheProgramEnded: the program ended on its own within
// its limits, but its report reached the host after the absolute cap (a
// busy host): the stop found nothing to kill and the shim reported a
// normal exit. Not a TLE.
func TestRunDeadlineAfterTheProgramEnded(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Stdout: []byte("42\n"), CPU: 10 * time.Millisecond, ReportLag: 300 * time.Millisecond}))
	var out bytes.Buffer
	res, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, Output: &out, Limits: Limits{Time: time.Second}, Wait: Wait{Deadlines: Deadlines{Wall: 50 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status() != StatusExited || res.ExitCode != 0 || res.Killed != NotKilled || res.Signal != "" || out.String() != "42\n" {
		t.Errorf("status %s, exit %d, killed %q, signal %q, output %q; want exited 0, not killed", res.Status(), res.ExitCode, res.Killed, res.Signal, out.String())
	}
	if s := rt.State(); len(s.Kills) != 1 {
		t.Errorf("kills %v, want the cap's one stop", s.Kills)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}
