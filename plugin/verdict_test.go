package plugin

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/compare"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
)

func TestDecideVerdict(t *testing.T) {
	ran := runner.Measure{Time: 300 * time.Millisecond, Peak: 1 << 20}
	slow := runner.Measure{Time: 1500 * time.Millisecond, Peak: 1 << 20}
	diff := &compare.Diff{Line: 1, Token: 1, Expected: `"42"`, Got: `"41"`, Reason: "token differs"}
	cases := []struct {
		name string
		o    testOutcome
		want Verdict
		note string
	}{
		{"accepted", testOutcome{res: runner.RunResult{Measure: ran}, limit: time.Second, matched: true}, AC, ""},
		{"runtime failed", testOutcome{err: errors.New("podman down"), limit: time.Second}, IE, "podman down"},
		{"shim failed", testOutcome{err: &runner.ShimError{Step: "probe", Err: "uid 0 regained"}, limit: time.Second}, IE, "shim"},
		{"cpu ceiling", testOutcome{res: runner.RunResult{Killed: runner.KilledCPULimit, KilledNote: "3 s", Measure: runner.Measure{Time: 3 * time.Second}}, limit: time.Second}, TLE, "processor ceiling"},
		{"no progress", testOutcome{res: runner.RunResult{Killed: runner.KilledIdle, Measure: runner.Measure{Time: time.Millisecond}}, limit: time.Second}, TLE, "no progress"},
		{"absolute cap", testOutcome{res: runner.RunResult{Killed: runner.KilledWallLimit, Measure: runner.Measure{Time: 2 * time.Second}}, limit: time.Second}, TLE, "absolute cap"},
		{"deadline, never ran", testOutcome{res: runner.RunResult{Killed: runner.KilledWallLimit}, limit: time.Second}, IE, "never started"},
		{"mle beats signal", testOutcome{res: runner.RunResult{Signal: "SIGKILL", Measure: runner.Measure{Time: time.Millisecond, MemoryExceeded: true}}, limit: time.Second}, MLE, "memory"},
		{"sigkill alone is rte", testOutcome{res: runner.RunResult{Signal: "SIGKILL", ExitCode: 137, Measure: ran}, limit: time.Second}, RTE, "SIGKILL"},
		{"ole", testOutcome{res: runner.RunResult{Killed: runner.KilledOutputLimit, KilledNote: "more than 10 bytes", Signal: "SIGKILL", Measure: ran}, limit: time.Second}, OLE, "more than"},
		{"sigsys is rfe", testOutcome{res: runner.RunResult{Signal: "SIGSYS", Measure: ran}, limit: time.Second}, RFE, "SIGSYS"},
		{"rfe names the call", testOutcome{res: runner.RunResult{Signal: "SIGSYS", Syscall: "getpid (i386 system call 20)", Measure: ran}, limit: time.Second}, RFE, "getpid (i386"},
		{"rfe says why unnamed", testOutcome{res: runner.RunResult{Signal: "SIGSYS", SyscallUnknown: "no log", Measure: ran}, limit: time.Second}, RFE, "which one: no log"},
		{"segv", testOutcome{res: runner.RunResult{Signal: "SIGSEGV", Measure: ran}, limit: time.Second}, RTE, "SIGSEGV"},
		{"exit code", testOutcome{res: runner.RunResult{ExitCode: 3, Measure: ran}, limit: time.Second}, RTE, "exit code 3"},
		{"runtime out of memory", testOutcome{res: runner.RunResult{ExitCode: 3, Measure: ran}, limit: time.Second, memoryExit: 3}, MLE, "runtime ran out of memory (exit code 3)"},
		{"other exit code with a memory code", testOutcome{res: runner.RunResult{ExitCode: 1, Measure: ran}, limit: time.Second, memoryExit: 3}, RTE, "exit code 1"},
		{"memory code after a deadline", testOutcome{res: runner.RunResult{Killed: runner.KilledCPULimit, ExitCode: 3, Measure: runner.Measure{Time: 3 * time.Second}}, limit: time.Second, memoryExit: 3}, TLE, "processor ceiling"},
		{"slow but finished", testOutcome{res: runner.RunResult{Measure: runner.Measure{Time: 1500 * time.Millisecond}}, limit: time.Second, matched: true}, TLE, "over the limit"},
		{"stopped at first difference", testOutcome{res: runner.RunResult{Killed: runner.KilledByCaller, Signal: "SIGKILL", Measure: ran}, limit: time.Second, diff: diff}, WA, `expected "42"`},
		// The stop's own latency (the container's kill, seconds on a busy
		// host) is not charged: the CI failure of 2026-12-05 (TLE 0.509 s).
		{"stopped, over the limit only after the stop", testOutcome{res: runner.RunResult{Killed: runner.KilledByCaller, Signal: "SIGKILL", TimeAtStop: 100 * time.Millisecond, Measure: runner.Measure{Time: 1500 * time.Millisecond}}, limit: time.Second, diff: diff}, WA, `expected "42"`},
		{"stopped, over the limit before the stop", testOutcome{res: runner.RunResult{Killed: runner.KilledByCaller, Signal: "SIGKILL", TimeAtStop: 1200 * time.Millisecond, Measure: runner.Measure{Time: 1500 * time.Millisecond}}, limit: time.Second, diff: diff}, TLE, "time 1.200 s over"},
		{"stopped, no reading", testOutcome{res: runner.RunResult{Killed: runner.KilledByCaller, Signal: "SIGKILL", Measure: runner.Measure{Time: 1500 * time.Millisecond}}, limit: time.Second, diff: diff}, TLE, "time 1.500 s over"},
		{"a deadline's time is not cut", testOutcome{res: runner.RunResult{TimeAtStop: 100 * time.Millisecond, Measure: runner.Measure{Time: 1500 * time.Millisecond}}, limit: time.Second, matched: true}, TLE, "time 1.500 s over"},
		{"differs at the end", testOutcome{res: runner.RunResult{Measure: ran}, limit: time.Second, diff: diff}, WA, "line 1"},
		// Over the limit, whatever came after: isolate, Kattis and DOMjudge.
		{"over the limit, then a segfault", testOutcome{res: runner.RunResult{Signal: "SIGSEGV", ExitCode: 139, Measure: slow}, limit: time.Second}, TLE, "time 1.500 s over the limit 1.000 s, then killed by SIGSEGV"},
		{"over the limit, then exit 3", testOutcome{res: runner.RunResult{ExitCode: 3, Measure: slow}, limit: time.Second}, TLE, "then exit code 3"},
		// The memory limit first: the time at it is the limit's reclaim.
		{"over the limit at the memory limit", testOutcome{res: runner.RunResult{Signal: "SIGKILL", Measure: runner.Measure{Time: slow.Time, MemoryExceeded: true, MemoryFrom: "memory.events"}}, limit: time.Second}, MLE, "memory limit hit (memory.events)"},
		{"over the limit, then a forbidden call", testOutcome{res: runner.RunResult{Signal: "SIGSYS", Measure: slow}, limit: time.Second}, TLE, "then killed by SIGSYS"},
		{"over the limit, the runtime's memory code", testOutcome{res: runner.RunResult{ExitCode: 3, Measure: slow}, limit: time.Second, memoryExit: 3}, MLE, "runtime ran out of memory (exit code 3)"},
		{"over the limit, then the output limit", testOutcome{res: runner.RunResult{Killed: runner.KilledOutputLimit, Signal: "SIGKILL", Measure: slow}, limit: time.Second}, TLE, "then passed the output limit"},
		{"within the limit, a real-time signal", testOutcome{res: runner.RunResult{Signal: "SIG34", ExitCode: 162, Measure: ran}, limit: time.Second}, RTE, "killed by SIG34"},
	}
	for _, c := range cases {
		v, note := decideVerdict(c.o)
		if v != c.want || !strings.Contains(note, c.note) {
			t.Errorf("%s: %s %q, want %s with %q", c.name, v, note, c.want, c.note)
		}
	}
}

func TestWorseOrdersOursFirst(t *testing.T) {
	order := []Verdict{IE, CF, CE, RFE, MLE, TLE, OLE, RTE, WA, PE, PA, AC}
	for i := 0; i+1 < len(order); i++ {
		if !Worse(order[i], order[i+1]) || Worse(order[i+1], order[i]) {
			t.Errorf("%s must be worse than %s", order[i], order[i+1])
		}
	}
}

func TestHelperFailedIsNeverTheSubmissions(t *testing.T) {
	cases := []struct {
		res  runner.RunResult
		err  error
		want Verdict
		note string
	}{
		{runner.RunResult{}, errors.New("podman down"), IE, "checker run: podman down"},
		{runner.RunResult{Killed: runner.KilledCPULimit, Signal: "SIGKILL"}, nil, CF, "processor time limit exceeded, killed by SIGKILL"},
		{runner.RunResult{Measure: runner.Measure{MemoryExceeded: true}}, nil, CF, "memory limit exceeded"},
		{runner.RunResult{Signal: "SIGSEGV"}, nil, CF, "killed by SIGSEGV"},
	}
	for _, c := range cases {
		v, note, failed := helperFailed("checker", c.res, c.err)
		if !failed || v != c.want || !strings.Contains(note, c.note) {
			t.Errorf("%+v: %s %q %t; want %s with %q", c.res, v, note, failed, c.want, c.note)
		}
	}
	if _, _, failed := helperFailed("checker", runner.RunResult{ExitCode: 1}, nil); failed {
		t.Error("a checker that exited 1 (WA) counted as failed")
	}
}

func TestSubmissionVerdict(t *testing.T) {
	tests := []TestResult{{Name: "1", Verdict: AC}, {Name: "2", Verdict: WA, Note: "differs"}, {Name: "3", Verdict: TLE}, {Name: "4", Verdict: AC}}
	worst, first := &problem.Problem{}, &problem.Problem{FirstRejectionDecides: true}
	if v, note, _ := submissionVerdict(worst, tests); v != TLE || note != "test 3: " {
		t.Errorf("worst: %s %q, want TLE on test 3", v, note)
	}
	if v, note, _ := submissionVerdict(first, tests); v != WA || note != "test 2: differs" {
		t.Errorf("first rejection: %s %q, want WA on test 2", v, note)
	}
	voided := append(append([]TestResult(nil), tests...), TestResult{Name: "5", Verdict: CF, Note: "the checker failed"})
	if v, _, _ := submissionVerdict(first, voided); v != CF {
		t.Errorf("a checker failure after a rejection: %s, want CF", v)
	}
	if v, note, _ := submissionVerdict(first, tests[:1]); v != AC || note != "" {
		t.Errorf("all accepted: %s %q", v, note)
	}
}
