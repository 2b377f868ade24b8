package runner

import (
	"encoding/json"
	"testing"
	"time"
)

func TestStatus(t *testing.T) {
	ran := Measure{Time: time.Millisecond}
	cases := []struct {
		res  RunResult
		want Status
	}{
		{RunResult{Measure: ran}, StatusExited},
		{RunResult{ExitCode: 3, Measure: ran}, StatusExited},
		{RunResult{Signal: "SIGSEGV", Measure: ran}, StatusSignalled},
		{RunResult{Signal: "SIGSYS", Measure: ran}, StatusSyscall},
		{RunResult{Killed: KilledIdle, Signal: "SIGKILL", Measure: ran}, StatusTime},
		{RunResult{Killed: KilledWallLimit, Signal: "SIGKILL"}, StatusNeverStarted},
		{RunResult{Killed: KilledCPULimit, Measure: Measure{Time: time.Second, MemoryExceeded: true}}, StatusTime},
		{RunResult{Killed: KilledOutputLimit, Measure: Measure{Time: 1, MemoryExceeded: true}}, StatusMemory},
		{RunResult{Killed: KilledOutputLimit, Signal: "SIGKILL", Measure: ran}, StatusOutput},
		{RunResult{Killed: KilledByCaller, Signal: "SIGKILL", Measure: ran}, StatusStopped},
	}
	for _, c := range cases {
		if got := c.res.Status(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.res, got, c.want)
		}
	}
	if Status(200).String() != "Status(200)" || StatusNeverStarted.String() != "never started" {
		t.Error("status texts")
	}
}

func TestKillReasonText(t *testing.T) {
	for k := NotKilled; k <= KilledByCaller; k++ {
		b, err := json.Marshal(RunResult{Killed: k})
		if err != nil {
			t.Fatal(err)
		}
		var back RunResult
		if err := json.Unmarshal(b, &back); err != nil || back.Killed != k {
			t.Errorf("%q came back as %q (%v)", k, back.Killed, err)
		}
	}
	if KilledCPULimit.String() != "processor time limit exceeded" || KillReason(99).String() != "KillReason(99)" {
		t.Error("kill reason texts")
	}
	var k KillReason
	if k.UnmarshalText([]byte("tired")) == nil {
		t.Error("an unknown reason read")
	}
}
