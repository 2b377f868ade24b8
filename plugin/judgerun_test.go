package plugin

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/shim"
)

// The fronts' verdict of a run (RunVerdict through JudgeRun) on the
// mechanism's results: each way a program ends, judged.

func TestJudgeRunExitCodesAndSignals(t *testing.T) {
	cases := []struct {
		prog    runnertest.Program
		code    int32
		signal  string
		verdict Verdict
	}{
		{runnertest.Program{Exit: 3, CPU: time.Millisecond}, 3, "", RTE},
		{runnertest.Program{Signal: "SIGSEGV", Exit: -1, CPU: time.Millisecond}, 139, "SIGSEGV", RTE},
		{runnertest.Program{OOMKill: true, CPU: time.Millisecond}, 137, "SIGKILL", MLE},
		{runnertest.Program{Signal: "SIGSYS", Exit: -1, CPU: time.Millisecond}, 159, "SIGSYS", RFE},
		{runnertest.Program{CPU: 1500 * time.Millisecond}, 0, "", TLE},
	}
	for _, c := range cases {
		r, rt, cg := fakeRunner(t, one(c.prog))
		r.SeccompLogs = []string{filepath.Join(t.TempDir(), "no-kern.log")}
		res, err := runJudged(r.Run, context.Background(), runner.RunRequest{Image: "img", Command: []string{"/p"}, Limits: runner.Limits{Time: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if c.signal == "SIGSYS" && (res.Syscall != "" || res.SyscallUnknown == "") {
			t.Errorf("SIGSYS with no kernel log: syscall %q, unknown %q", res.Syscall, res.SyscallUnknown)
		}
		if res.ExitCode != c.code || res.Signal != c.signal || res.Verdict != c.verdict {
			t.Errorf("%+v: exit %d %q %s %q; want %d %q %s", c.prog, res.ExitCode, res.Signal, res.Verdict, res.VerdictNote, c.code, c.signal, c.verdict)
		}
		if c.prog.OOMKill && (!res.Measure.MemoryExceeded || !strings.Contains(res.Measure.MemoryFrom, "memory.events")) {
			t.Errorf("OOM kill not read from memory.events: %+v", res.Measure)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

// TestJudgeRunShimFailure: a failure of the shim is no program verdict,
// and a judge calls it IE.
func TestJudgeRunShimFailure(t *testing.T) {
	r, _, _ := fakeRunner(t, one(runnertest.Program{FailStep: shim.StepProbe}))
	res, err := runJudged(r.Run, context.Background(), runner.RunRequest{Image: "img", Command: []string{"/p"}, Limits: runner.Limits{Time: time.Second}})
	if err == nil || res.Verdict != "" {
		t.Fatalf("err %v, verdict %s", err, res.Verdict)
	}
	if v, _ := decideVerdict(testOutcome{res: res.RunResult, err: err, limit: time.Second}); v != IE {
		t.Errorf("judged %s, want IE", v)
	}
}

// runJudged runs req with run and judges it as the fronts do (JudgeRun):
// no verdict when the run failed.
func runJudged(run func(context.Context, runner.RunRequest) (runner.RunResult, error), ctx context.Context, req runner.RunRequest) (JudgedRun, error) {
	res, err := run(ctx, req)
	if err != nil {
		return JudgedRun{RunResult: res}, err
	}
	return JudgeRun(req, res), nil
}
