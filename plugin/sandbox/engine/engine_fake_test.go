package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/plugin/sandbox"
	"github.com/podjail/podjail/shim"
)

// The engine's calls over the fake runtime of plugin/runner/runnertest:
// what each protocol call asks of the Runner, and how its results and
// errors come back.

const testShim = "/usr/libexec/podjail/podjail-shim"

// fakeEngine is an Engine on the fakes, with the default language table;
// warm keeps runs armed ahead as Options.Warm does.
func fakeEngine(t *testing.T, prog func(bindings.Spec) runnertest.Program, warm bool) (*Engine, *runnertest.Runtime, *runnertest.Cgroups) {
	t.Helper()
	cg := runnertest.NewCgroups(t)
	rt := runnertest.NewRuntime(cg)
	rt.SetProgram(prog)
	r := &plugin.Runner{Runner: runner.Runner{Runtime: rt, Self: runner.Instance{BootID: "boot-test", PID: 4242, Start: 987654, Host: "engine-test"},
		Cgroups: cg, Shim: testShim}}
	e := &Engine{runner: r, langs: lang.Default(), tmpDir: t.TempDir()}
	if warm {
		e.warm = plugin.NewWarm(r, e.tmpDir, 0)
		t.Cleanup(func() {
			if err := e.warm.Close(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	return e, rt, cg
}

func one(p runnertest.Program) func(bindings.Spec) runnertest.Program {
	return func(bindings.Spec) runnertest.Program { return p }
}

func TestEngineCapabilities(t *testing.T) {
	e, _, _ := fakeEngine(t, nil, false)
	c, err := e.Capabilities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := runnertest.GoodHost
	if c.Host.PodmanVersion != h.Version || c.Host.CgroupManager != h.CgroupManager || !c.Host.Shim || c.Host.Rootless {
		t.Errorf("host %+v, want the runtime's %+v with the shim", c.Host, h)
	}
	if c.Version == "" || len(c.Languages) != len(lang.Default().IDs()) {
		t.Errorf("version %q, %d languages", c.Version, len(c.Languages))
	}
	e.runner.Shim = ""
	if c, _ := e.Capabilities(context.Background()); c.Host.Shim {
		t.Error("Capabilities says there is a shim when the runner has none")
	}
}

func TestEngineRun(t *testing.T) {
	for _, warm := range []bool{false, true} {
		cases := []struct {
			name   string
			prog   runnertest.Program
			limits sandbox.Limits
			exit   int32
			signal string
			killed string
			out    string
		}{
			{"exits", runnertest.Program{Stdout: []byte("42\n"), Exit: 3, CPU: 30 * time.Millisecond}, sandbox.Limits{Time: time.Second}, 3, "", "", "42\n"},
			{"signalled", runnertest.Program{Signal: "SIGSEGV", Exit: -1}, sandbox.Limits{}, 139, "SIGSEGV", "", ""},
			{"over its processor time", runnertest.Program{CPU: 3 * time.Second, Hang: true}, sandbox.Limits{Time: 100 * time.Millisecond}, 137, "SIGKILL", runner.KilledCPULimit.String(), ""},
			{"over its output", runnertest.Program{Stdout: make([]byte, 4096), Hang: true}, sandbox.Limits{Output: 1000}, 137, "SIGKILL", runner.KilledOutputLimit.String(), string(make([]byte, 1000))},
		}
		for _, c := range cases {
			e, rt, cg := fakeEngine(t, one(c.prog), warm)
			art := t.TempDir()
			var out bytes.Buffer
			res, err := e.Run(context.Background(), sandbox.Execution{Artefacts: sandbox.Artefacts{Language: "py", Dir: art}, Limits: c.limits, Output: &out})
			if err != nil {
				t.Fatalf("warm %t, %s: %v", warm, c.name, err)
			}
			if res.ExitCode != c.exit || res.Signal != c.signal || res.Killed != c.killed || (c.out != "" && out.String() != c.out) {
				t.Errorf("warm %t, %s: exit %d %q killed %q (%s), output %d bytes; want %d %q %q %q", warm, c.name, res.ExitCode, res.Signal, res.Killed, res.KilledNote, out.Len(), c.exit, c.signal, c.killed, c.out)
			}
			if c.name == "exits" && res.Time != 30*time.Millisecond {
				t.Errorf("warm %t: time %v, want the program's 30ms", warm, res.Time)
			}
			py, _ := lang.Default().Lookup("python3")
			spec := rt.Container(rt.State().Created[0]).Spec
			if spec.Image != py.RunImage || runnertest.ProgramPath(spec) != py.Run[0] || len(spec.Binds) != 1 || spec.Binds[0].Source != art || spec.Binds[0].Destination != lang.ArtefactDir {
				t.Errorf("warm %t, %s: spec %+v", warm, c.name, spec)
			}
			if !warm {
				runnertest.AssertNothingLeft(t, rt, cg)
			}
		}
	}
	e, _, _ := fakeEngine(t, nil, false)
	if _, err := e.Run(context.Background(), sandbox.Execution{Artefacts: sandbox.Artefacts{Language: "cobol"}}); err == nil || !strings.Contains(err.Error(), "cobol") {
		t.Errorf("unknown language: %v", err)
	}
}

func TestEngineRunMissingImage(t *testing.T) {
	e, rt, _ := fakeEngine(t, nil, false)
	py, _ := lang.Default().Lookup("python3")
	rt.SetMissing(py.RunImage)
	_, err := e.Run(context.Background(), sandbox.Execution{Artefacts: sandbox.Artefacts{Language: "python3", Dir: t.TempDir()}})
	if !errors.Is(err, sandbox.ErrFailedPrecondition) {
		t.Errorf("a language whose image is missing: %v, want FailedPrecondition (the host's setup)", err)
	}
}

func TestEngineBuild(t *testing.T) {
	py, _ := lang.Default().Lookup("python3")
	builds := func(s bindings.Spec) runnertest.Program {
		return runnertest.Program{CPU: 50 * time.Millisecond, Files: map[string][]byte{lang.BuildDir + "/main.py": []byte("print(1)")}}
	}
	e, rt, cg := fakeEngine(t, builds, false)
	b, dir, err := e.Build(context.Background(), "py", []byte("print(1)"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "main.py")); !b.OK || err != nil || string(data) != "print(1)" || b.Time != 50*time.Millisecond {
		t.Errorf("build %+v in %s: artefact %q %v", b, dir, data, err)
	}
	if spec := rt.Container(rt.State().Created[0]).Spec; spec.Image != py.BuildImage {
		t.Errorf("built in %s, want %s", spec.Image, py.BuildImage)
	}
	runnertest.AssertNothingLeft(t, rt, cg)

	fails := one(runnertest.Program{Stdout: []byte("SyntaxError\n"), Exit: 1})
	e, _, _ = fakeEngine(t, fails, false)
	b, _, err = e.Build(context.Background(), "python3", []byte("print("), t.TempDir())
	if err != nil || b.OK || !strings.Contains(b.Output, "SyntaxError") || !strings.Contains(b.Note, "exited with code 1") {
		t.Errorf("failed build: %+v, %v", b, err)
	}
	if _, _, err := e.Build(context.Background(), "cobol", nil, t.TempDir()); err == nil {
		t.Error("an unknown language built")
	}
	e, rt, _ = fakeEngine(t, builds, false)
	rt.SetMissing(py.BuildImage)
	if _, _, err := e.Build(context.Background(), "python3", []byte("x"), t.TempDir()); !errors.Is(err, sandbox.ErrFailedPrecondition) {
		t.Errorf("build image missing: %v, want FailedPrecondition", err)
	}
}

func TestEngineExec(t *testing.T) {
	cases := []struct {
		name    string
		prog    runnertest.Program
		req     sandbox.ExecRequest
		exit    int32
		verdict sandbox.Verdict
		files   map[string][]byte
	}{
		{"no time limit, no verdict", runnertest.Program{Stdout: []byte("hi"), Exit: 2}, sandbox.ExecRequest{}, 2, "", nil},
		{"accepted", runnertest.Program{Stdout: []byte("hi"), CPU: 10 * time.Millisecond}, sandbox.ExecRequest{Limits: sandbox.Limits{Time: time.Second}}, 0, sandbox.AC, nil},
		{"runtime error", runnertest.Program{Exit: 1}, sandbox.ExecRequest{Limits: sandbox.Limits{Time: time.Second}}, 1, sandbox.RTE, nil},
		{"time limit", runnertest.Program{CPU: 30 * time.Second, Hang: true}, sandbox.ExecRequest{Limits: sandbox.Limits{Time: 100 * time.Millisecond}}, 137, sandbox.TLE, nil},
		{"memory limit", runnertest.Program{OOMKill: true}, sandbox.ExecRequest{Limits: sandbox.Limits{Time: time.Second, Memory: 64 << 20}}, 137, sandbox.MLE, nil},
		{"files in and out", runnertest.Program{Files: map[string][]byte{"/w/out.txt": []byte("made")}},
			sandbox.ExecRequest{WorkDir: "/w", Files: map[string][]byte{"in.txt": []byte("given")}, Collect: []string{"out.txt", "never.txt"}}, 0, "", map[string][]byte{"out.txt": []byte("made")}},
	}
	for _, c := range cases {
		e, rt, cg := fakeEngine(t, one(c.prog), false)
		req := c.req
		req.Image, req.Command = "img", []string{"/p"}
		var out bytes.Buffer
		res, err := e.Exec(context.Background(), req, &out)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Run.ExitCode != c.exit || res.Verdict != c.verdict || (len(c.prog.Stdout) > 0 && !c.prog.Hang && out.String() != string(c.prog.Stdout)) {
			t.Errorf("%s: exit %d, verdict %q (%s), output %q; want %d %q", c.name, res.Run.ExitCode, res.Verdict, res.VerdictNote, out.String(), c.exit, c.verdict)
		}
		if len(res.Files) != len(c.files) || (c.files != nil && string(res.Files["out.txt"]) != string(c.files["out.txt"])) {
			t.Errorf("%s: collected %q, want %q", c.name, res.Files, c.files)
		}
		var report map[string]any
		if err := json.Unmarshal(res.Report, &report); err != nil || (c.verdict != "" && !strings.Contains(string(res.Report), `"`+string(c.verdict)+`"`)) {
			t.Errorf("%s: report %s: %v", c.name, res.Report, err)
		}
		if res.Container == "" {
			t.Errorf("%s: no container name", c.name)
		}
		if c.req.Files != nil {
			if got := string(rt.Unpacked()["/w/in.txt"]) + string(rt.CopiedIn()["/w/in.txt"]); got != "given" {
				t.Errorf("%s: in.txt went in as %q", c.name, got)
			}
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

func TestEngineExecErrors(t *testing.T) {
	ctx := context.Background()
	e, rt, _ := fakeEngine(t, one(runnertest.Program{FailStep: shim.StepProbe}), false)
	res, err := e.Exec(ctx, sandbox.ExecRequest{Image: "img", Command: []string{"/nonexec"}}, nil)
	if err != nil || !strings.Contains(string(res.Report), `"probe"`) || res.Verdict != "" {
		t.Errorf("a failure of the shim with its report: %+v, %v; want the report, no verdict, no error", res, err)
	}
	rt.SetMissing("absent")
	if _, err := e.Exec(ctx, sandbox.ExecRequest{Image: "absent", Command: []string{"/p"}}, nil); !errors.Is(err, sandbox.ErrInvalidArgument) {
		t.Errorf("the request's image missing: %v, want InvalidArgument", err)
	}
	if _, err := e.Exec(ctx, sandbox.ExecRequest{Command: []string{"/p"}}, nil); !errors.Is(err, sandbox.ErrInvalidArgument) {
		t.Errorf("no image: %v, want InvalidArgument", err)
	}
	if _, err := e.Exec(ctx, sandbox.ExecRequest{Image: "img", Command: []string{"/p"}, Files: map[string][]byte{"a": nil}}, nil); !errors.Is(err, sandbox.ErrInvalidArgument) {
		t.Errorf("files without an absolute working directory: %v, want InvalidArgument", err)
	}
	e.tmpDir = filepath.Join(t.TempDir(), "gone")
	if _, err := e.Exec(ctx, sandbox.ExecRequest{Image: "img", Command: []string{"/p"}, WorkDir: "/w", Collect: []string{"x"}}, nil); err == nil {
		t.Error("collected into a directory that cannot be made")
	}
}

func TestReadCollectedUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := readCollected(plugin.Files{Out: []string{"adir"}, OutDir: dir}, 1<<20); err == nil {
		t.Error("a directory read as a collected file")
	}
}

// writeProblem writes a plain-layout problem with tests 1 and 2, whose
// answers are "answer N".
func writeProblem(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"problem.yaml": "name: fake\ntime_limit: 1\n",
		"tests/1.in": "1\n", "tests/1.ans": "answer 1\n", "tests/2.in": "2\n", "tests/2.ans": "answer 2\n"}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestEngineJudge(t *testing.T) {
	// Test 1 is answered right, test 2 wrong; the build makes main.py.
	prog := func(s bindings.Spec) runnertest.Program {
		switch filepath.Base(s.InputFile) {
		case "1.in":
			return runnertest.Program{Stdout: []byte("answer 1\n"), CPU: 10 * time.Millisecond}
		case "2.in":
			return runnertest.Program{Stdout: []byte("wrong\n"), CPU: 10 * time.Millisecond}
		}
		return runnertest.Program{Files: map[string][]byte{lang.BuildDir + "/main.py": []byte("print()")}}
	}
	e, rt, cg := fakeEngine(t, prog, false)
	dir := writeProblem(t)
	var progress []sandbox.TestResult
	res, err := e.Judge(context.Background(), sandbox.JudgeRequest{ProblemDir: dir, Language: "python3", Source: []byte("print()"), Parallel: 1},
		func(tr sandbox.TestResult) { progress = append(progress, tr) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != sandbox.WA || !res.Build.OK || len(res.Tests) != 2 || res.Tests[0].Verdict != sandbox.AC || res.Tests[1].Verdict != sandbox.WA {
		t.Errorf("judged %+v", res)
	}
	if len(res.Tests) == 2 && (res.Tests[1].Index != 2 || res.Tests[1].Total != 2 || res.Tests[0].Name != "1") {
		t.Errorf("tests %+v", res.Tests)
	}
	if len(progress) != 2 || progress[1].Total != 2 {
		t.Errorf("progress %+v", progress)
	}
	runnertest.AssertNothingLeft(t, rt, cg)

	if _, err := e.Judge(context.Background(), sandbox.JudgeRequest{ProblemDir: filepath.Join(dir, "none"), Language: "python3"}, nil); err == nil {
		t.Error("judged a problem that does not exist")
	}
	if _, err := e.Judge(context.Background(), sandbox.JudgeRequest{ProblemDir: dir, Language: "cobol"}, nil); err == nil {
		t.Error("judged in an unknown language")
	}
	e.runner.Shim = ""
	if _, err := e.Judge(context.Background(), sandbox.JudgeRequest{ProblemDir: dir, Language: "python3"}, nil); !errors.Is(err, sandbox.ErrFailedPrecondition) {
		t.Errorf("judged without the shim: %v, want FailedPrecondition", err)
	}
}

func TestEngineJudgeRefusedRequest(t *testing.T) {
	e, _, _ := fakeEngine(t, nil, false)
	_, err := e.Judge(context.Background(), sandbox.JudgeRequest{ProblemDir: writeProblem(t), Language: "python3", Parallel: -1}, nil)
	if !errors.Is(err, sandbox.ErrInvalidArgument) {
		t.Errorf("a negative Parallel: %v, want InvalidArgument", err)
	}
}

func TestLazyOnAMadeEngine(t *testing.T) {
	py := func(s bindings.Spec) runnertest.Program {
		return runnertest.Program{Stdout: []byte("ok\n"), Files: map[string][]byte{lang.BuildDir + "/main.py": []byte("print()")}}
	}
	e, rt, _ := fakeEngine(t, py, true)
	l := NewLazy(Options{})
	if l.made() != nil || l.ArmedReady() != 0 || l.BusReconnects() != 0 {
		t.Error("a Lazy not connected reports an engine")
	}
	l.Close(context.Background()) // nothing made: nothing to do
	l.eng = e
	l.ready.Store(e)
	ctx := context.Background()
	if got, err := l.Connect(ctx); err != nil || got != e {
		t.Fatalf("Connect once made: %p %v", got, err)
	}
	if c, err := l.Capabilities(ctx); err != nil || c.Host.PodmanVersion != runnertest.GoodHost.Version {
		t.Errorf("Capabilities %+v %v", c, err)
	}
	if b, _, err := l.Build(ctx, "python3", []byte("print()"), t.TempDir()); err != nil || !b.OK {
		t.Errorf("Build %+v %v", b, err)
	}
	art := t.TempDir()
	for range 2 {
		var out bytes.Buffer
		if res, err := l.Run(ctx, sandbox.Execution{Artefacts: sandbox.Artefacts{Language: "python3", Dir: art}, Output: &out}); err != nil || res.ExitCode != 0 || out.String() != "ok\n" {
			t.Errorf("Run %+v %q %v", res, out.String(), err)
		}
	}
	// The shape ran twice: the warm pool arms the next one ahead.
	deadline := time.Now().Add(5 * time.Second)
	for l.ArmedReady() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if l.ArmedReady() == 0 {
		t.Error("no run armed ahead after a shape came again")
	}
	if res, err := l.Exec(ctx, sandbox.ExecRequest{Image: "img", Command: []string{"/p"}}, nil); err != nil || res.Run.ExitCode != 0 {
		t.Errorf("Exec %+v %v", res, err)
	}
	if _, err := l.Judge(ctx, sandbox.JudgeRequest{ProblemDir: filepath.Join(t.TempDir(), "none"), Language: "python3"}, nil); err == nil {
		t.Error("Judge of no problem")
	}
	if l.BusReconnects() != 0 {
		t.Error("reconnects of a driver that has no bus")
	}
	l.Close(ctx)
	if s := rt.State(); s.Live != 0 {
		t.Errorf("Close left %d containers", s.Live)
	}
}

func TestLazyCallsFailWhilePodmanIsUnreachable(t *testing.T) {
	l := NewLazy(Options{URL: "unix://" + t.TempDir() + "/none.sock", Warm: true})
	ctx := context.Background()
	calls := map[string]error{}
	_, calls["Capabilities"] = l.Capabilities(ctx)
	_, _, calls["Build"] = l.Build(ctx, "python3", nil, t.TempDir())
	_, calls["Run"] = l.Run(ctx, sandbox.Execution{})
	_, calls["Exec"] = l.Exec(ctx, sandbox.ExecRequest{}, nil)
	_, calls["Judge"] = l.Judge(ctx, sandbox.JudgeRequest{}, nil)
	for name, err := range calls {
		if !errors.Is(err, sandbox.ErrUnavailable) {
			t.Errorf("%s: %v, want Unavailable", name, err)
		}
	}
	if l.made() != nil {
		t.Error("an engine was made without Podman")
	}
}
