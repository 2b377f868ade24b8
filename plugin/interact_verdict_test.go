package plugin

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/runner"
)

func TestInteractiveVerdict(t *testing.T) {
	ran := runner.RunResult{ExitCode: 0}
	ran.Measure.Time = 10 * time.Millisecond
	solved := testOutcome{res: ran, limit: time.Second, matched: true}
	failed := solved
	failed.res.ExitCode = 1
	cases := []struct {
		name     string
		sol      testOutcome
		inter    runner.RunResult
		interErr error
		verdict  Verdict
		note     string
		cause    Cause
	}{
		{"the solution's own verdict first", failed, runner.RunResult{ExitCode: 0}, nil, RTE, "", ""},
		{"the interactor's run failed", solved, runner.RunResult{}, errors.New("runtime gone"), IE, "interactor run: runtime gone", CauseChecker},
		{"the interactor was stopped", solved, runner.RunResult{ExitCode: -1, Signal: "SIGKILL", Killed: runner.KilledWallLimit}, nil, CF, "the interactor failed", ""},
		{"accepted", solved, runner.RunResult{ExitCode: 0}, nil, AC, "", ""},
		{"wrong answer", solved, runner.RunResult{ExitCode: 1}, nil, WA, "the interactor says WA", ""},
		{"presentation error", solved, runner.RunResult{ExitCode: 2}, nil, PE, "the interactor says PE", ""},
		{"an exit code testlib does not give", solved, runner.RunResult{ExitCode: 3}, nil, CF, "the interactor exited 3", ""},
	}
	for _, c := range cases {
		tr := interactiveVerdict(TestResult{Name: "1"}, c.sol, c.inter, c.interErr)
		if tr.Verdict != c.verdict || !strings.Contains(tr.Note, c.note) || (c.note == "" && c.verdict == AC && tr.Note != "") || (c.cause != "" && tr.Cause != c.cause) {
			t.Errorf("%s: %s %q cause %q; want %s %q %q", c.name, tr.Verdict, tr.Note, tr.Cause, c.verdict, c.note, c.cause)
		}
	}
}
