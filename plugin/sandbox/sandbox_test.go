package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// fakeEngine returns canned results: these tests are about the protocol,
// not about running anything.
type fakeEngine struct {
	mu   sync.Mutex
	errs map[string]error // by method: returned instead of a result

	caps   Capabilities
	build  Build
	run    RunResult
	output []byte
	tests  []TestResult
	judge  JudgeResult

	// runGate, if set, is waited on inside Run (after its input is read).
	runGate chan struct{}
	// step, if set, is called before the i-th test is reported.
	step func(i int)

	lastRun   Execution
	lastExec  ExecRequest
	execs     int               // Exec calls
	stderr    []byte            // what Exec's program writes to its stderr file
	made      map[string][]byte // the files Exec's program made, to collect
	lastInput []byte
	lastJudge JudgeRequest
	buildDirs []string
}

func (f *fakeEngine) err(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs[method]
}

func (f *fakeEngine) Capabilities(context.Context) (Capabilities, error) {
	if err := f.err("capabilities"); err != nil {
		return Capabilities{}, err
	}
	return f.caps, nil
}

// Exec writes the canned output in pieces of 100 KiB and more (so that
// the server must split it) and returns the canned run as an Exec result.
// The stdin it was given (a stream, or an uploaded file) is kept in
// lastInput.
func (f *fakeEngine) Exec(_ context.Context, req ExecRequest, stdout io.Writer) (ExecResult, error) {
	var in []byte
	switch {
	case req.Stdin != nil:
		in, _ = io.ReadAll(req.Stdin)
	case req.InputPath != "":
		in, _ = os.ReadFile(req.InputPath)
	}
	f.mu.Lock()
	f.lastExec, f.lastInput = req, in
	f.execs++
	f.mu.Unlock()
	if err := f.err("exec"); err != nil {
		return ExecResult{}, err
	}
	for rest := f.output; len(rest) > 0; {
		n := min(len(rest), 100<<10+7)
		if _, err := stdout.Write(rest[:n]); err != nil {
			return ExecResult{}, err
		}
		rest = rest[n:]
	}
	// The program's stderr, appended as the shim does.
	if req.StderrPath != "" && len(f.stderr) > 0 {
		e, err := os.OpenFile(req.StderrPath, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return ExecResult{}, err
		}
		_, err = e.Write(f.stderr)
		if err = errors.Join(err, e.Close()); err != nil {
			return ExecResult{}, err
		}
	}
	res := ExecResult{Run: f.run, Verdict: TLE, VerdictNote: "3.01 s", Container: "podjail-fake", Report: []byte(`{"exit_code":137}`)}
	for _, name := range req.Collect {
		if data, ok := f.made[name]; ok {
			if res.Files == nil {
				res.Files = map[string][]byte{}
			}
			res.Files[name] = data
		}
	}
	return res, nil
}

func (f *fakeEngine) Build(_ context.Context, language string, source []byte, dir string) (Build, string, error) {
	d, err := os.MkdirTemp(dir, "fake-artefact-")
	if err != nil {
		return Build{}, "", err
	}
	if err := os.WriteFile(filepath.Join(d, "main"), source, 0o755); err != nil {
		return Build{}, d, err
	}
	f.mu.Lock()
	f.buildDirs = append(f.buildDirs, d)
	f.mu.Unlock()
	if err := f.err("build"); err != nil {
		return Build{}, d, err
	}
	return f.build, d, nil
}

func (f *fakeEngine) Run(_ context.Context, x Execution) (RunResult, error) {
	var in []byte
	if x.InputPath != "" {
		in, _ = os.ReadFile(x.InputPath)
	}
	f.mu.Lock()
	f.lastRun, f.lastInput = x, in
	gate := f.runGate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if err := f.err("run"); err != nil {
		return RunResult{}, err
	}
	_, _ = x.Output.Write(f.output)
	return f.run, nil
}

func (f *fakeEngine) Judge(_ context.Context, req JudgeRequest, progress func(TestResult)) (JudgeResult, error) {
	f.mu.Lock()
	f.lastJudge = req
	f.mu.Unlock()
	if err := f.err("judge"); err != nil {
		return JudgeResult{}, err
	}
	for i, t := range f.tests {
		if f.step != nil {
			f.step(i)
		}
		progress(t)
	}
	res := f.judge
	res.Tests = f.tests
	return res, nil
}

// connect serves eng in process with go-plugin's test helper and returns
// the client a host would dispense.
func connect(t *testing.T, eng Engine) (Sandbox, *Server) {
	t.Helper()
	srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return connectServer(t, srv), srv
}

// connectServer is a plugin client of srv, closed with the test.
func connectServer(t *testing.T, srv *Server) Sandbox {
	t.Helper()
	client, _ := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{PluginName: &GRPCPlugin{Impl: srv}})
	t.Cleanup(func() {
		_ = client.Close()
		_ = srv.Close(context.Background())
	})
	raw, err := client.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	sb, ok := raw.(Sandbox)
	if !ok {
		t.Fatalf("dispensed %T, not a Sandbox", raw)
	}
	return sb
}

func okEngine() *fakeEngine {
	return &fakeEngine{
		caps: Capabilities{
			Version:   "v9.9.9",
			Languages: []Language{{ID: "c11", Name: "C11 (gcc)", Aliases: []string{"c"}, Extensions: []string{".c"}, Compiled: true}, {ID: "python3", Name: "Python 3"}},
			Host:      Host{Rootless: true, CgroupManager: "systemd", Shim: true, PodmanVersion: "5.4.2"},
		},
		build: Build{OK: true, Output: "warning: unused\n", Time: 1500 * time.Millisecond, Peak: 42 << 20},
		run: RunResult{
			ExitCode: 137, Signal: "SIGKILL", Killed: KilledTimeLimit, KilledNote: "3.01 s of processor time",
			Time: 3010 * time.Millisecond, Peak: 7 << 20, MemoryExceeded: false, OutputBytes: 4,
			TimeFrom: "shim", PeakFrom: "shim peak", MemoryFrom: "memory.events", Wall: 4 * time.Second,
		},
		output: []byte("3\n4\n"),
	}
}

func TestCapabilitiesCrossTheWire(t *testing.T) {
	eng := okEngine()
	sb, _ := connect(t, eng)
	got, err := sb.Capabilities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := eng.caps
	want.ProtocolVersion = 1 // filled in by the server
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Capabilities = %+v\nwant %+v", got, want)
	}
}

func TestCompileRunRelease(t *testing.T) {
	eng := okEngine()
	sb, srv := connect(t, eng)
	ctx := context.Background()

	c, err := sb.Compile(ctx, "c11", []byte("int main(){}"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.OK || c.Handle == "" || c.Output != eng.build.Output || c.Time != eng.build.Time || c.Peak != eng.build.Peak {
		t.Fatalf("Compile = %+v, want the canned build and a handle", c)
	}
	if srv.Handles() != 1 {
		t.Fatalf("server holds %d handles, want 1", srv.Handles())
	}
	dir := eng.buildDirs[0]

	limits := Limits{Time: 3 * time.Second, Memory: 64 << 20, Output: 1 << 20, Wall: 10 * time.Second}
	r, err := sb.Run(ctx, RunRequest{Handle: c.Handle, Input: []byte("1 2\n"), Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	want := eng.run
	want.Output = eng.output
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Run = %+v\nwant %+v", r, want)
	}
	if string(eng.lastInput) != "1 2\n" {
		t.Errorf("the engine read input %q, want the bytes sent", eng.lastInput)
	}
	if eng.lastRun.Limits != limits || eng.lastRun.Artefacts.Dir != dir || eng.lastRun.Artefacts.Language != "c11" {
		t.Errorf("the engine got %+v, want the limits, the artefacts' directory and language", eng.lastRun)
	}
	if _, err := os.Stat(eng.lastRun.InputPath); !os.IsNotExist(err) {
		t.Errorf("the input file %s is still there after the run (%v)", eng.lastRun.InputPath, err)
	}

	in := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(in, []byte("5 6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Run(ctx, RunRequest{Handle: c.Handle, InputPath: in}); err != nil {
		t.Fatal(err)
	}
	if eng.lastRun.InputPath != in || string(eng.lastInput) != "5 6\n" {
		t.Errorf("input path: the engine got %q (%q), want %q", eng.lastRun.InputPath, eng.lastInput, in)
	}

	if err := sb.Release(ctx, c.Handle); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("artefacts %s still there after Release (%v)", dir, err)
	}
	if err := sb.Release(ctx, c.Handle); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("second Release: %v, want ErrInvalidArgument", err)
	}
	if _, err := sb.Run(ctx, RunRequest{Handle: c.Handle}); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), c.Handle) {
		t.Errorf("Run after Release: %v, want ErrInvalidArgument naming the handle", err)
	}
}

func TestFailedBuildIsAValueWithoutHandle(t *testing.T) {
	eng := okEngine()
	eng.build = Build{OK: false, Output: "main.c:1: error: expected ';'", Note: "the compiler exited with code 1", Peak: -1}
	sb, srv := connect(t, eng)
	c, err := sb.Compile(context.Background(), "c11", []byte("int main(){"))
	if err != nil {
		t.Fatal(err)
	}
	if c.OK || c.Handle != "" || c.Note != eng.build.Note || c.Output != eng.build.Output || c.Peak != -1 {
		t.Errorf("Compile = %+v, want the failed build and no handle", c)
	}
	if srv.Handles() != 0 {
		t.Errorf("server holds %d handles after a failed build", srv.Handles())
	}
	if _, err := os.Stat(eng.buildDirs[0]); !os.IsNotExist(err) {
		t.Errorf("a failed build's directory is still there (%v)", err)
	}
}

func TestBadRequestsAreInvalidArgument(t *testing.T) {
	eng := okEngine()
	sb, _ := connect(t, eng)
	ctx := context.Background()
	c, err := sb.Compile(ctx, "c11", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"empty source": func() error { _, err := sb.Compile(ctx, "c11", nil); return err },
		"both inputs": func() error {
			_, err := sb.Run(ctx, RunRequest{Handle: c.Handle, Input: []byte("1"), InputPath: "/etc/hostname"})
			return err
		},
		"negative limit": func() error {
			_, err := sb.Run(ctx, RunRequest{Handle: c.Handle, Limits: Limits{Memory: -1}})
			return err
		},
		"unknown handle":  func() error { _, err := sb.Run(ctx, RunRequest{Handle: "h-nope"}); return err },
		"release unknown": func() error { return sb.Release(ctx, "h-nope") },
		"judge no dir": func() error {
			_, err := sb.Judge(ctx, JudgeRequest{Language: "c11", Source: []byte("x")}, nil)
			return err
		},
		"input too large": func() error {
			_, err := sb.Run(ctx, RunRequest{Handle: c.Handle, Input: make([]byte, MaxMessage)})
			return err
		},
	} {
		if err := call(); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}

func TestOutputTruncation(t *testing.T) {
	eng := okEngine()
	eng.run.OutputBytes = 1 << 30 // the runner counted more than it passed on
	sb, _ := connect(t, eng)
	c, err := sb.Compile(context.Background(), "c11", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := sb.Run(context.Background(), RunRequest{Handle: c.Handle})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OutputTruncated || r.OutputBytes != 1<<30 || string(r.Output) != string(eng.output) {
		t.Errorf("Run = truncated %t, %d bytes, %q; want truncated, 1 GiB counted, the bytes kept", r.OutputTruncated, r.OutputBytes, r.Output)
	}

}

func TestReleaseWaitsForRunsUnderWay(t *testing.T) {
	eng := okEngine()
	eng.runGate = make(chan struct{})
	sb, _ := connect(t, eng)
	ctx := context.Background()
	c, err := sb.Compile(ctx, "c11", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	dir := eng.buildDirs[0]
	done := make(chan error, 1)
	go func() {
		_, err := sb.Run(ctx, RunRequest{Handle: c.Handle})
		done <- err
	}()
	waitFor(t, func() bool { eng.mu.Lock(); defer eng.mu.Unlock(); return eng.lastRun.Artefacts.Dir != "" })
	if err := sb.Release(ctx, c.Handle); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("artefacts removed while a run uses them: %v", err)
	}
	close(eng.runGate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) })
}

func TestJudgeStreamsEachTestAsItIsJudged(t *testing.T) {
	eng := okEngine()
	eng.tests = []TestResult{
		{Index: 1, Total: 3, Name: "sample1", Sample: true, Verdict: AC, Time: 10 * time.Millisecond, Peak: 1 << 20},
		{Index: 2, Total: 3, Name: "1", Verdict: PA, Note: "half", Time: 20 * time.Millisecond, Peak: -1, Points: 0.5},
		{Index: 3, Total: 3, Name: "2", Verdict: TLE, Note: "processor ceiling: 3.0 s", Time: 3 * time.Second, Peak: 2 << 20},
	}
	checker := Build{OK: true, Time: time.Second, Peak: 30 << 20}
	eng.judge = JudgeResult{Verdict: TLE, Note: "test 2: processor ceiling", Build: Build{OK: true, Output: "ok", Time: 2 * time.Second, Peak: 50 << 20}, Checker: &checker}

	// The engine reports test i only once the client has seen test i-1:
	// a server that batched the events would stall here.
	seen := make(chan string, len(eng.tests))
	var streamed = true
	eng.step = func(i int) {
		if i == 0 {
			return
		}
		select {
		case name := <-seen:
			if name != eng.tests[i-1].Name {
				t.Errorf("client saw %q before test %d, want %q", name, i, eng.tests[i-1].Name)
			}
		case <-time.After(10 * time.Second):
			streamed = false
		}
	}
	sb, _ := connect(t, eng)
	var got []TestResult
	res, err := sb.Judge(context.Background(), JudgeRequest{ProblemDir: "/p", Language: "c11", Source: []byte("src"), StopOnFirstFailure: true}, func(tr TestResult) {
		got = append(got, tr)
		seen <- tr.Name
	})
	if err != nil {
		t.Fatal(err)
	}
	if !streamed {
		t.Error("a test event did not reach the client before the next test was judged")
	}
	if !reflect.DeepEqual(got, eng.tests) || !reflect.DeepEqual(res.Tests, eng.tests) {
		t.Errorf("tests: progress %+v, result %+v\nwant %+v", got, res.Tests, eng.tests)
	}
	want := eng.judge
	want.Tests = eng.tests
	if !reflect.DeepEqual(res, want) {
		t.Errorf("Judge = %+v\nwant %+v", res, want)
	}
	if r := eng.lastJudge; r.ProblemDir != "/p" || r.Language != "c11" || string(r.Source) != "src" || !r.StopOnFirstFailure {
		t.Errorf("the engine got %+v", r)
	}
}

func TestEveryVerdictCrossesTheWire(t *testing.T) {
	for _, v := range Verdicts() {
		if got := verdictGo(verdictPB(v)); got != v {
			t.Errorf("%s came back as %q", v, got)
		}
	}
	if len(verdictToPB) != len(Verdicts()) {
		t.Errorf("%d verdicts mapped, %d listed", len(verdictToPB), len(Verdicts()))
	}
	for _, k := range []string{"", KilledOutputLimit, KilledWallLimit, KilledTimeLimit, KilledIdle} {
		if got := killedGo(killedPB(k)); got != k {
			t.Errorf("killed %q came back as %q", k, got)
		}
	}
	if got := killedGo(killedPB("wrong answer")); got == "" {
		t.Error("an unlisted kill reason came back as not killed")
	}
}

// errorCases are the engine's errors and the kind each must reach a judge as.
func errorCases(t *testing.T) []struct {
	name string
	err  error
	kind error
	code codes.Code
} {
	_, unknownLang := lang.Default().Lookup("cobol")
	_, brokenProblem := problem.Load(t.TempDir())
	if unknownLang == nil || brokenProblem == nil {
		t.Fatal("the real errors did not happen")
	}
	return []struct {
		name string
		err  error
		kind error
		code codes.Code
	}{
		{"podman unreachable", Mark(errors.New("cannot reach the Podman API at unix:///run/podman/podman.sock"), ErrUnavailable), ErrUnavailable, codes.Unavailable},
		{"image missing", Mark(fmt.Errorf("build: %w", errors.New(`image "localhost/podjail-gcc" is not in this Podman's storage`)), ErrFailedPrecondition), ErrFailedPrecondition, codes.FailedPrecondition},
		{"unknown language", unknownLang, ErrInvalidArgument, codes.InvalidArgument},
		{"broken problem", brokenProblem, ErrInvalidArgument, codes.InvalidArgument},
		{"bad request", Mark(errors.New("input: no such file"), ErrInvalidArgument), ErrInvalidArgument, codes.InvalidArgument},
		{"anything else", errors.New("shim failed at step exec: permission denied"), ErrInternal, codes.Internal},
		{"cancelled", fmt.Errorf("run: %w", context.Canceled), context.Canceled, codes.Canceled},
		{"deadline", context.DeadlineExceeded, context.DeadlineExceeded, codes.DeadlineExceeded},
	}
}

var kinds = []error{ErrUnavailable, ErrFailedPrecondition, ErrInvalidArgument, ErrInternal, context.Canceled, context.DeadlineExceeded}

// checkKind checks that err is exactly kind, with code and the engine's message.
func checkKind(t *testing.T, what string, err, kind error, code codes.Code, msg string) {
	t.Helper()
	for _, k := range kinds {
		if errors.Is(err, k) != (k == kind) {
			t.Errorf("%s: errors.Is(%v, %v) = %t", what, err, k, errors.Is(err, k))
		}
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: %#v, want an *Error with code %s", what, err, code)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %q lost the server's message %q", what, err, msg)
	}
}

func TestErrorsRoundTripToTheirKind(t *testing.T) {
	ctx := context.Background()
	for _, c := range errorCases(t) {
		eng := okEngine()
		sb, _ := connect(t, eng)
		h, err := sb.Compile(ctx, "c11", []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		eng.errs = map[string]error{"capabilities": c.err, "build": c.err, "run": c.err, "judge": c.err}
		_, err = sb.Capabilities(ctx)
		checkKind(t, c.name+": Capabilities", err, c.kind, c.code, c.err.Error())
		_, err = sb.Compile(ctx, "c11", []byte("x"))
		checkKind(t, c.name+": Compile", err, c.kind, c.code, c.err.Error())
		_, err = sb.Run(ctx, RunRequest{Handle: h.Handle})
		checkKind(t, c.name+": Run", err, c.kind, c.code, c.err.Error())
		_, err = sb.Judge(ctx, JudgeRequest{ProblemDir: "/p", Language: "c11", Source: []byte("x")}, nil)
		checkKind(t, c.name+": Judge", err, c.kind, c.code, c.err.Error())
	}
}

func TestStatusMappingBothWays(t *testing.T) {
	for _, c := range errorCases(t) {
		if got := Code(c.err); got != c.code {
			t.Errorf("%s: Code = %s, want %s", c.name, got, c.code)
		}
		checkKind(t, c.name, fromStatus(toStatus(c.err)), c.kind, c.code, c.err.Error())
	}
	if toStatus(nil) != nil || fromStatus(nil) != nil {
		t.Error("nil did not stay nil")
	}
	m := Mark(errors.New("the message"), ErrUnavailable)
	if m.Error() != "the message" {
		t.Errorf("Mark changed the message: %q", m)
	}
}

func TestCloseEndsCallsAndRemovesArtefacts(t *testing.T) {
	eng := okEngine()
	sb, srv := connect(t, eng)
	ctx := context.Background()
	if _, err := sb.Compile(ctx, "c11", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(srv.dir); !os.IsNotExist(err) {
		t.Errorf("the server's directory is still there after Close (%v)", err)
	}
	if _, err := sb.Capabilities(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a call after Close: %v, want ErrUnavailable", err)
	}
}

func TestCloseCancelsCallsUnderWay(t *testing.T) {
	started := make(chan struct{})
	eng := &blockingEngine{fakeEngine: okEngine(), started: started}
	sb, srv := connect(t, eng)
	done := make(chan error, 1)
	go func() {
		_, err := sb.Capabilities(context.Background())
		done <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		t.Fatalf("Close did not see the call end: %v", err)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the call under way ended with %v, want context.Canceled", err)
	}
}

// blockingEngine's Capabilities waits for its context to end.
type blockingEngine struct {
	*fakeEngine
	started chan struct{}
}

func (b *blockingEngine) Capabilities(ctx context.Context) (Capabilities, error) {
	close(b.started)
	<-ctx.Done()
	return Capabilities{}, ctx.Err()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met in 10 s")
}

func TestExecStreamsStdoutAndResult(t *testing.T) {
	eng := okEngine()
	eng.output = bytes.Repeat([]byte("0123456789abcdef"), 40000) // 625 KiB: several events
	sb, _ := connect(t, eng)
	req := ExecRequest{Image: "localhost/x", Command: []string{"/prog", "a b"}, InputPath: "/in",
		Limits: Limits{Time: time.Second, Memory: 64 << 20, Output: 1 << 20, Wall: 5 * time.Second}, Pids: 9, CPUs: 0.5}
	var out bytes.Buffer
	res, err := sb.Exec(context.Background(), req, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), eng.output) {
		t.Errorf("stdout: %d bytes, want the engine's %d in order", out.Len(), len(eng.output))
	}
	want := ExecResult{Run: eng.run, Verdict: TLE, VerdictNote: "3.01 s", Container: "podjail-fake", Report: []byte(`{"exit_code":137}`)}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("Exec = %+v\nwant %+v", res, want)
	}
	if !reflect.DeepEqual(eng.lastExec, req) {
		t.Errorf("the engine got %+v, want %+v", eng.lastExec, req)
	}
}

func TestExecRefusesBadRequests(t *testing.T) {
	eng := okEngine()
	sb, _ := connect(t, eng)
	for _, req := range []ExecRequest{
		{Command: []string{"/p"}},
		{Image: "i"},
		{Image: "i", Command: []string{"/p"}, Limits: Limits{Memory: -1}},
	} {
		if _, err := sb.Exec(context.Background(), req, nil); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Exec(%+v) = %v, want ErrInvalidArgument", req, err)
		}
	}
	// The server checks too, for callers of other languages.
	srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Exec(ctxStream{ctx: context.Background(), req: &pb.ExecRequest{Image: "i"}}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("server Exec without a command = %v, want InvalidArgument", err)
	}
	eng.errs = map[string]error{"exec": Mark(errors.New("no such image"), ErrInvalidArgument)}
	if _, err := sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}}, io.Discard); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "no such image") {
		t.Errorf("Exec with the engine refusing = %v, want its InvalidArgument with its text", err)
	}
}

// ctxStream is an Exec stream that only has a context and the request:
// enough for calls refused before anything is sent.
type ctxStream struct {
	pb.Sandbox_ExecServer
	ctx context.Context
	req *pb.ExecRequest
}

func (s ctxStream) Context() context.Context { return s.ctx }
func (s ctxStream) Send(*pb.ExecEvent) error { return nil }
func (s ctxStream) Recv() (*pb.ExecInput, error) {
	return &pb.ExecInput{Input: &pb.ExecInput_Request{Request: s.req}}, nil
}

// TestExecSendsStdin: stdin crosses as a stream (an io.Reader that is not
// a file) or whole before the run (StdinWhole, put in a file of the
// server's).
func TestExecSendsStdin(t *testing.T) {
	eng := okEngine()
	sb, _ := connect(t, eng)
	input := bytes.Repeat([]byte("19 23\n"), 30000) // 180 KiB: several pieces
	for _, whole := range []bool{false, true} {
		req := ExecRequest{Image: "i", Command: []string{"/p"}, Stdin: bytes.NewReader(input), StdinWhole: whole}
		if _, err := sb.Exec(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		eng.mu.Lock()
		got, x := eng.lastInput, eng.lastExec
		eng.mu.Unlock()
		if !bytes.Equal(got, input) {
			t.Errorf("whole=%t: the engine read %d bytes of stdin, want %d", whole, len(got), len(input))
		}
		if whole != (x.InputPath != "" && x.Stdin == nil) {
			t.Errorf("whole=%t: the engine got input path %q, stream %v", whole, x.InputPath, x.Stdin != nil)
		}
	}
	// Past the server's MaxUpload, refused before any run.
	srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir(), MaxUpload: int64(len(input)) - 1})
	if err != nil {
		t.Fatal(err)
	}
	small := connectServer(t, srv)
	eng.mu.Lock()
	runs := eng.execs
	eng.mu.Unlock()
	_, err = small.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}, Stdin: bytes.NewReader(input), StdinWhole: true}, nil)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "stream it instead") {
		t.Errorf("an upload over MaxUpload: %v, want ErrInvalidArgument saying what to do", err)
	}
	eng.mu.Lock()
	if eng.execs != runs {
		t.Error("an upload over MaxUpload was run")
	}
	eng.mu.Unlock()
	if _, err := sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}, InputPath: "/in", Stdin: strings.NewReader("")}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("an input file and stdin = %v, want ErrInvalidArgument", err)
	}
	if _, err := sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}, StderrToStdout: true, StderrPath: "/e"}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("stderr to two places = %v, want ErrInvalidArgument", err)
	}
}

// TestExecSendsStderrBack: stderr to the caller is kept in a file of the
// server's during the run and sent after stdout; no host path of the
// caller's is named, so any caller may ask for it, and the file is gone
// afterwards.
func TestExecSendsStderrBack(t *testing.T) {
	eng := okEngine()
	eng.stderr = bytes.Repeat([]byte("Traceback (most recent call last)\n"), 5000) // 170 KB: several pieces
	sb, srv := connect(t, eng)
	var stdout, stderr bytes.Buffer
	if _, err := sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}, Stderr: &stderr}, &stdout); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stderr.Bytes(), eng.stderr) || !bytes.Equal(stdout.Bytes(), eng.output) {
		t.Errorf("stderr %d bytes, stdout %d; want %d and %d", stderr.Len(), stdout.Len(), len(eng.stderr), len(eng.output))
	}
	eng.mu.Lock()
	path := eng.lastExec.StderrPath
	eng.mu.Unlock()
	if filepath.Dir(path) != srv.dir {
		t.Errorf("the run's stderr file is %q, want one in the server's %s", path, srv.dir)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stderr file is left after the call: %v", err)
	}
	if _, err := sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}, Stderr: &stderr, StderrToStdout: true}, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("stderr to the caller and to stdout = %v, want ErrInvalidArgument", err)
	}
}

// TestExecCarriesFilesBothWays: the files to put in reach the engine
// whole, and the collected ones come back whole (one of several pieces,
// one empty), without the one the program did not make. Files with stdin,
// without a working directory, with a name that is not plain or too many
// are refused before the call.
func TestExecCarriesFilesBothWays(t *testing.T) {
	eng := okEngine()
	binary := bytes.Repeat([]byte("\x7fELF"), 50000) // 200 KB: several pieces
	eng.made = map[string][]byte{"Main": binary, "empty": {}, "other": []byte("not asked for")}
	sb, _ := connect(t, eng)
	req := ExecRequest{Image: "i", Command: []string{"/usr/bin/g++", "Main.cpp"}, WorkDir: "/build", Writable: true,
		Files:   map[string][]byte{"Main.cpp": []byte("int main() {}\n"), "empty.h": {}},
		Collect: []string{"Main", "none", "empty"}}
	res, err := sb.Exec(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.mu.Lock()
	got := eng.lastExec
	eng.mu.Unlock()
	sameFiles := maps.EqualFunc(got.Files, req.Files, bytes.Equal) // an empty file may arrive as nil
	if !sameFiles || !reflect.DeepEqual(got.Collect, req.Collect) || !got.Writable {
		t.Errorf("the engine got files %q, collect %q, writable %t; want %q, %q, true", got.Files, got.Collect, got.Writable, req.Files, req.Collect)
	}
	if !bytes.Equal(res.Files["Main"], binary) {
		t.Errorf("Main came back as %d bytes, want %d", len(res.Files["Main"]), len(binary))
	}
	if data, ok := res.Files["empty"]; !ok || len(data) != 0 {
		t.Errorf("the empty file: %q, %t; want it, empty", data, ok)
	}
	if len(res.Files) != 2 {
		t.Errorf("collected %d files, want Main and empty only", len(res.Files))
	}
	many := map[string][]byte{}
	for i := range MaxFiles + 1 {
		many[fmt.Sprint("f", i)] = nil
	}
	for _, bad := range []ExecRequest{
		{Image: "i", Command: []string{"/p"}, WorkDir: "/build", Files: map[string][]byte{"a.c": nil}, InputPath: "/in"},
		{Image: "i", Command: []string{"/p"}, WorkDir: "/build", Files: map[string][]byte{"a.c": nil}, Stdin: strings.NewReader("x")},
		{Image: "i", Command: []string{"/p"}, Collect: []string{"a.out"}},
		{Image: "i", Command: []string{"/p"}, WorkDir: "/build", Collect: []string{"../etc/passwd"}},
		{Image: "i", Command: []string{"/p"}, WorkDir: "/build", Files: map[string][]byte{"sub/a.c": nil}},
		{Image: "i", Command: []string{"/p"}, WorkDir: "/build", Files: many},
	} {
		if _, err := sb.Exec(context.Background(), bad, nil); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Exec(files %d, collect %q, workdir %q) = %v, want ErrInvalidArgument", len(bad.Files), bad.Collect, bad.WorkDir, err)
		}
	}
}

// TestExecHostPathsOnlyForTheServicesUser: a caller of another user (as
// SO_PEERCRED says) may not have the service read or mount host paths
// with its rights; root and the service's own user may, and so may a
// judge that started its plugin (no peer credentials).
func TestExecHostPathsOnlyForTheServicesUser(t *testing.T) {
	me := uint32(os.Geteuid())
	other := me + 4242
	if me == 0 {
		other = 4242
	}
	for _, c := range []struct {
		peer *Peer
		ok   bool
	}{{nil, true}, {&Peer{UID: me}, true}, {&Peer{UID: 0}, true}, {&Peer{UID: other, GID: other}, false}} {
		ctx := context.Background()
		if c.peer != nil {
			ctx = peer.NewContext(ctx, &peer.Peer{Addr: PeerAddr{Addr: &net.UnixAddr{Name: "@", Net: "unix"}, Peer: *c.peer}})
		}
		if _, ok := mayNameHostPaths(ctx); ok != c.ok {
			t.Errorf("peer %+v: may name host paths %t, want %t", c.peer, ok, c.ok)
		}
		eng := okEngine()
		srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range []*pb.ExecRequest{
			{Image: "i", Command: []string{"/p"}, InputPath: "/etc/shadow"},
			{Image: "i", Command: []string{"/p"}, Binds: []*pb.Bind{{Source: "/root", Destination: "/box", Writable: true}}},
			{Image: "i", Command: []string{"/p"}, Stderr: pb.StderrTo_STDERR_TO_FILE, StderrPath: "/etc/motd"},
		} {
			err := srv.Exec(ctxStream{ctx: ctx, req: req})
			if denied := status.Code(err) == codes.PermissionDenied; denied == c.ok {
				t.Errorf("peer %+v, %v: %v", c.peer, req, err)
			}
		}
	}
}

// TestExecCarriesTasks: the rule for new tasks crosses the protocol as it
// was given, and no rule crosses as none.
func TestExecCarriesTasks(t *testing.T) {
	eng := okEngine()
	sb, _ := connect(t, eng)
	for _, tasks := range []string{"threads", "none", ""} {
		if _, err := sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}, Tasks: tasks}, nil); err != nil {
			t.Fatal(err)
		}
		eng.mu.Lock()
		got := eng.lastExec.Tasks
		eng.mu.Unlock()
		if got != tasks {
			t.Errorf("tasks %q reached the engine as %q", tasks, got)
		}
	}
}
