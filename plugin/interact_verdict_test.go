package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/validator"
)

func TestInteractiveVerdict(t *testing.T) {
	ran := runner.RunResult{ExitCode: 0}
	ran.Measure.Time = 10 * time.Millisecond
	solved := testOutcome{res: ran, limit: time.Second, matched: true}
	failed := solved
	failed.res.ExitCode = 1
	crashed := solved
	crashed.res.ExitCode, crashed.res.Signal = 139, "SIGSEGV"
	slow := solved
	slow.res.Measure.Time = 1500 * time.Millisecond
	testlib := &problem.Problem{Format: problem.FormatPlain}
	kattis := &problem.Problem{Format: problem.FormatKattis, Protocol: validator.Kattis}
	fb := t.TempDir()
	if err := os.WriteFile(filepath.Join(fb, validator.JudgeMessage), []byte("guessed 12 times, at most 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stopped := runner.RunResult{ExitCode: -1, Signal: "SIGKILL", Killed: runner.KilledWallLimit}
	cases := []struct {
		name       string
		p          *problem.Problem
		sol        testOutcome
		inter      runner.RunResult
		interErr   error
		feedback   string
		interFirst bool
		verdict    Verdict
		note       string
		cause      Cause
	}{
		{"testlib: the solution's own verdict first", testlib, failed, runner.RunResult{ExitCode: 0}, nil, "", false, RTE, "", ""},
		{"testlib: the solution's first, the interactor ended first", testlib, failed, runner.RunResult{ExitCode: 1}, nil, "", true, RTE, "", ""},
		{"testlib: the interactor's run failed", testlib, solved, runner.RunResult{}, errors.New("runtime gone"), "", false, IE, "interactor run: runtime gone", CauseChecker},
		{"testlib: the interactor was stopped", testlib, solved, stopped, nil, "", false, CF, "the interactor failed", ""},
		{"testlib: accepted", testlib, solved, runner.RunResult{ExitCode: 0}, nil, "", false, AC, "", ""},
		{"testlib: wrong answer", testlib, solved, runner.RunResult{ExitCode: 1}, nil, "", false, WA, "the interactor says WA", ""},
		{"testlib: presentation error", testlib, solved, runner.RunResult{ExitCode: 2}, nil, "", false, PE, "the interactor says PE", ""},
		{"testlib: an exit code testlib does not give", testlib, solved, runner.RunResult{ExitCode: 3}, nil, "", false, CF, "exit code 3", ""},
		// problemtools' order: the validator's failure, then its
		// rejection when it ended first, then the submission's limits and
		// exit, then the validator's verdict.
		{"kattis: accepted", kattis, solved, runner.RunResult{ExitCode: 42}, nil, "", false, AC, "", ""},
		{"kattis: rejected, its judge message", kattis, solved, runner.RunResult{ExitCode: 43}, nil, fb, false, WA, "guessed 12 times", ""},
		{"kattis: rejected first, then the submission crashed", kattis, crashed, runner.RunResult{ExitCode: 43}, nil, fb, true, WA, "guessed 12 times", ""},
		{"kattis: the submission crashed first", kattis, crashed, runner.RunResult{ExitCode: 43}, nil, "", false, RTE, "SIGSEGV", ""},
		{"kattis: over the time limit, then rejected", kattis, slow, runner.RunResult{ExitCode: 43}, nil, "", false, TLE, "over the limit", ""},
		{"kattis: the validator's failure before the submission's", kattis, crashed, runner.RunResult{ExitCode: 0}, nil, "", false, CF, "exited 0", ""},
		{"kattis: the validator stopped", kattis, slow, stopped, nil, "", false, CF, "the interactor failed", ""},
		{"kattis: accepted first, the submission then crashed", kattis, crashed, runner.RunResult{ExitCode: 42}, nil, "", true, RTE, "SIGSEGV", ""},
	}
	for _, c := range cases {
		tr := interactiveVerdict(c.p, TestResult{Name: "1"}, c.sol, c.inter, c.interErr, c.feedback, c.interFirst)
		if tr.Verdict != c.verdict || !strings.Contains(tr.Note, c.note) || (c.note == "" && c.verdict == AC && tr.Note != "") || (c.cause != "" && tr.Cause != c.cause) {
			t.Errorf("%s: %s %q cause %q; want %s %q %q", c.name, tr.Verdict, tr.Note, tr.Cause, c.verdict, c.note, c.cause)
		}
	}
}
