package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
)

// The Runner's and the bindings' real errors, and the kind a judge must
// get each as.
var errorKinds = []struct {
	name string
	err  error
	kind error
}{
	{"unreachable", &bindings.UnreachableError{Socket: "unix:///run/podman/podman.sock", Err: errors.New("connection refused")}, sandbox.ErrUnavailable},
	{"dial failure mid-run", fmt.Errorf("start abc: %w", &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}), sandbox.ErrUnavailable},
	{"image missing", fmt.Errorf("build: %w", &bindings.ImageMissingError{Image: "localhost/podjail-gcc:latest"}), sandbox.ErrFailedPrecondition},
	{"podman too old", fmt.Errorf("%w: API 4.9", bindings.ErrTooOld), sandbox.ErrFailedPrecondition},
	{"cgroup manager", fmt.Errorf("%w: rootless cgroupfs", cgroupdrv.ErrUnsupported), sandbox.ErrFailedPrecondition},
	{"bad request", &runner.RequestError{Field: "input", Err: errors.New("no such file")}, sandbox.ErrInvalidArgument},
	{"shim failure", &runner.ShimError{Step: "exec", Err: "permission denied"}, sandbox.ErrInternal},
	{"other", errors.New("read the run's parent cgroup: EIO"), sandbox.ErrInternal},
}

var allKinds = []error{sandbox.ErrUnavailable, sandbox.ErrFailedPrecondition, sandbox.ErrInvalidArgument, sandbox.ErrInternal}

func TestClassify(t *testing.T) {
	for _, c := range errorKinds {
		got := Classify(c.err)
		if got.Error() != c.err.Error() {
			t.Errorf("%s: Classify changed the message to %q", c.name, got)
		}
		if !errors.Is(got, c.err) {
			t.Errorf("%s: Classify lost the original error", c.name)
		}
		want := map[error]string{sandbox.ErrUnavailable: "Unavailable", sandbox.ErrFailedPrecondition: "FailedPrecondition", sandbox.ErrInvalidArgument: "InvalidArgument", sandbox.ErrInternal: "Internal"}[c.kind]
		if code := sandbox.Code(got).String(); code != want {
			t.Errorf("%s: code %s, want %s", c.name, code, want)
		}
	}
	if Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
}

// stubEngine fails every call with err, as the real engine would.
type stubEngine struct{ err error }

func (s stubEngine) Capabilities(context.Context) (sandbox.Capabilities, error) {
	return sandbox.Capabilities{}, Classify(s.err)
}
func (s stubEngine) Build(context.Context, string, []byte, string) (sandbox.Build, string, error) {
	return sandbox.Build{}, "", Classify(s.err)
}
func (s stubEngine) Run(context.Context, sandbox.Execution) (sandbox.RunResult, error) {
	return sandbox.RunResult{}, Classify(s.err)
}
func (s stubEngine) Judge(context.Context, sandbox.JudgeRequest, func(sandbox.TestResult)) (sandbox.JudgeResult, error) {
	return sandbox.JudgeResult{}, Classify(s.err)
}
func (s stubEngine) Exec(context.Context, sandbox.ExecRequest, io.Writer) (sandbox.ExecResult, error) {
	return sandbox.ExecResult{}, Classify(s.err)
}

// Each real error crosses go-plugin's gRPC connection and reaches the
// judge as its kind, with its message.
func TestRealErrorsRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, c := range errorKinds {
		srv, err := sandbox.NewServer(stubEngine{c.err}, sandbox.ServerOptions{TmpDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		client, _ := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{sandbox.PluginName: &sandbox.GRPCPlugin{Impl: srv}})
		raw, err := client.Dispense(sandbox.PluginName)
		if err != nil {
			t.Fatal(err)
		}
		sb := raw.(sandbox.Sandbox)
		_, err1 := sb.Capabilities(ctx)
		_, err2 := sb.Compile(ctx, "c11", []byte("x"))
		_, err3 := sb.Judge(ctx, sandbox.JudgeRequest{ProblemDir: "/p", Language: "c11", Source: []byte("x")}, nil)
		for i, err := range []error{err1, err2, err3} {
			for _, k := range allKinds {
				if errors.Is(err, k) != (k == c.kind) {
					t.Errorf("%s, call %d: errors.Is(%v, %v) = %t", c.name, i, err, k, errors.Is(err, k))
				}
			}
			var e *sandbox.Error
			if !errors.As(err, &e) || e.Message != c.err.Error() {
				t.Errorf("%s, call %d: %v, want an *sandbox.Error with the message %q", c.name, i, err, c.err.Error())
			}
		}
		_ = client.Close()
		_ = srv.Close(ctx)
	}
}

func TestConversions(t *testing.T) {
	run := runner.RunResult{
		ExitCode: 137, Signal: "SIGKILL", Killed: runner.KilledCPULimit, KilledNote: "3 s", OutputBytes: 12, Wall: 4 * time.Second,
		Measure: runner.Measure{Time: 3 * time.Second, TimeFrom: "shim", Peak: 5 << 20, PeakFrom: "shim peak", MemoryExceeded: true, MemoryFrom: "events"},
	}
	got := RunResult(run)
	want := sandbox.RunResult{
		ExitCode: 137, Signal: "SIGKILL", Killed: sandbox.KilledTimeLimit, KilledNote: "3 s", OutputBytes: 12, Wall: 4 * time.Second,
		Time: 3 * time.Second, TimeFrom: "shim", Peak: 5 << 20, PeakFrom: "shim peak", MemoryExceeded: true, MemoryFrom: "events",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunResult = %+v\nwant %+v", got, want)
	}
	// The Killed texts and verdicts are the Runner's.
	for _, k := range []struct {
		p runner.KillReason
		s string
	}{
		{runner.KilledOutputLimit, sandbox.KilledOutputLimit}, {runner.KilledWallLimit, sandbox.KilledWallLimit},
		{runner.KilledCPULimit, sandbox.KilledTimeLimit}, {runner.KilledIdle, sandbox.KilledIdle},
	} {
		if k.p.String() != k.s {
			t.Errorf("kill reason %q is %q in sandbox", k.p, k.s)
		}
	}
	for _, v := range sandbox.Verdicts() {
		pv := plugin.Verdict(v)
		if plugin.Worse(pv, plugin.AC) != (v != sandbox.AC) {
			t.Errorf("verdict %s is not one of the Runner's", v)
		}
	}

	chk := plugin.BuildResult{OK: true, Time: time.Second, Peak: 9}
	jr := JudgeResult(plugin.JudgeResult{
		Verdict: plugin.WA, Note: "test 1: differs", Build: plugin.BuildResult{OK: true, Output: "o", Time: 2 * time.Second, Peak: 7, Dir: "/x"},
		Checker: &chk,
		Tests:   []plugin.TestResult{{Name: "sample1", Sample: true, Verdict: plugin.AC, Peak: 1}, {Name: "1", Verdict: plugin.WA, Note: "differs", Points: 0}},
	})
	wantJ := sandbox.JudgeResult{
		Verdict: sandbox.WA, Note: "test 1: differs", Build: sandbox.Build{OK: true, Output: "o", Time: 2 * time.Second, Peak: 7},
		Checker: &sandbox.Build{OK: true, Time: time.Second, Peak: 9},
		Tests: []sandbox.TestResult{
			{Index: 1, Total: 2, Name: "sample1", Sample: true, Verdict: sandbox.AC, Peak: 1},
			{Index: 2, Total: 2, Name: "1", Verdict: sandbox.WA, Note: "differs"},
		},
	}
	if !reflect.DeepEqual(jr, wantJ) {
		t.Errorf("JudgeResult = %+v\nwant %+v", jr, wantJ)
	}
}

func TestLanguagesListsTheTable(t *testing.T) {
	langs := Languages(lang.Default())
	byID := map[string]sandbox.Language{}
	for _, l := range langs {
		byID[l.ID] = l
	}
	if c := byID["c11"]; !c.Compiled || c.Name == "" || len(c.Extensions) == 0 {
		t.Errorf("c11 = %+v", c)
	}
	if len(langs) != len(lang.Default().IDs()) {
		t.Errorf("%d languages listed, the table has %d", len(langs), len(lang.Default().IDs()))
	}
}

func TestLazyReportsUnreachablePodman(t *testing.T) {
	e := NewLazy(Options{URL: "unix://" + t.TempDir() + "/none.sock"})
	_, err := e.Capabilities(context.Background())
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("Capabilities without Podman: %v, want ErrUnavailable", err)
	}
}

func TestFindShim(t *testing.T) {
	if p, err := FindShim("none"); p != "" || err != nil {
		t.Errorf("none: %q, %v", p, err)
	}
	if _, err := FindShim(t.TempDir()); err == nil {
		t.Error("a directory was taken for the shim")
	}
}

// TestExecRequestRoundTrip: a front's run crosses to the service and back
// as the same run (its writers stay the caller's); a regular file as stdin
// is sent whole, a pipe fed as it comes; what only a runner in process can
// do is refused before anything is sent.
func TestExecRequestRoundTrip(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	run := runner.RunRequest{Image: "localhost/x", Command: []string{"/bin/sh", "run"}, StdinStream: file,
		StderrFile: "/tmp/err", Env: []string{"HOME=/tmp"}, MemoryExitCode: 3, WorkDir: "/box", Writable: true, Tasks: "threads",
		Binds: []bindings.Bind{{Source: "/var/box", Destination: "/box", Writable: true}, {Source: "/etc", Destination: "/etc"}}, Limits: runner.Limits{Output: 1 << 20, Memory: 64 << 20, Pids: 60, CPUs: 1, Time: time.Second, FileSize: 1 << 20, Stack: 8 << 20}, Wait: runner.Wait{Deadlines: runner.Deadlines{Wall: 10 * time.Second, CPU: 2 * time.Second}}}
	x, err := ExecRequestOf(run)
	if err != nil {
		t.Fatal(err)
	}
	if !x.StdinWhole {
		t.Error("a regular file as stdin is not sent whole")
	}
	back := RunRequestOf(x, io.Discard)
	back.Output = nil
	if !reflect.DeepEqual(back, run) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, run)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if x, err := ExecRequestOf(runner.RunRequest{Image: "i", Command: []string{"/p"}, StdinStream: r}); err != nil || x.StdinWhole {
		t.Errorf("a pipe as stdin: whole %t, %v; want fed as it comes", x.StdinWhole, err)
	}
	checked := runner.RunRequest{Image: "i", Command: []string{"/p"}, Limits: runner.Limits{Time: time.Second}}
	if err := checked.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := ExecRequestOf(checked); err != nil {
		t.Errorf("a checked request (its idle limit the default): %v", err)
	}
	for _, bad := range []runner.RunRequest{
		{Image: "i", Command: []string{"/p"}, Limits: runner.Limits{Time: time.Second}, Wait: runner.Wait{Deadlines: runner.Deadlines{Idle: time.Hour}}},
		{Image: "i", Command: []string{"/p"}, InputFile: "/tmp/sources", Copy: runner.Copy{Unpack: true}},
		{Image: "i", Command: []string{"/p"}, Limits: runner.Limits{CPUSet: "1"}},
		{Image: "i", Command: []string{"/p"}, Copy: runner.Copy{In: map[string][]byte{"a.c": nil}}},
		{Image: "i", Command: []string{"/p"}, Copy: runner.Copy{Out: []string{"a.out"}, OutDir: "/tmp"}},
		{Image: "i", Command: []string{"/p"}, Wait: runner.Wait{Stop: make(chan struct{})}},
	} {
		if _, err := ExecRequestOf(bad); err == nil {
			t.Errorf("ExecRequestOf(%+v) crossed; it needs the runner in process", bad)
		}
	}
}

// TestExecNeedsToSeeTheHostPaths: a service that does not see a path the
// run names (a service in a container without that volume) says so as the
// deployment's failure, naming the fix, before anything is made.
func TestExecNeedsToSeeTheHostPaths(t *testing.T) {
	e := &Engine{}
	for _, x := range []sandbox.ExecRequest{
		{Image: "i", Command: []string{"/p"}, InputPath: "/nonexistent/podjail/in"},
		{Image: "i", Command: []string{"/p"}, Binds: []sandbox.Bind{{Source: "/nonexistent/podjail/box", Destination: "/box", Writable: true}}},
	} {
		_, err := e.Exec(context.Background(), x, nil)
		if !errors.Is(err, sandbox.ErrFailedPrecondition) || !strings.Contains(err.Error(), "Volume=/nonexistent/podjail") {
			t.Errorf("Exec(%+v) = %v; want ErrFailedPrecondition naming the volume to add", x, err)
		}
	}
}
