package main

import (
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/isolate"
	"github.com/podjail/podjail/plugin/runner"
)

// TestIsolateMetaOrder: the front writes what isolate's box_keeper writes,
// in its order: processor time over -t (TO, whatever came after), wall
// time over -w, then a signal by its number, then the exit status.
func TestIsolateMetaOrder(t *testing.T) {
	run := func(cpu, wall time.Duration, killed runner.KillReason, signal string, code int32) plugin.JudgedRun {
		return plugin.JudgedRun{RunResult: runner.RunResult{Killed: killed, Signal: signal, ExitCode: code, Wall: wall,
			Measure: runner.Measure{Time: cpu, Peak: 1 << 20}}}
	}
	s := time.Second
	for _, c := range []struct {
		name string
		argv []string
		res  plugin.JudgedRun
		want []string // lines of the meta file, in order
	}{
		{"over -t, then SIGSEGV", []string{"-t", "1", "-x", "3"}, run(1500*time.Millisecond, 2*s, 0, "SIGSEGV", 139),
			[]string{"time:1.500", "status:TO", "message:Time limit exceeded"}},
		{"over -t, then exit 3", []string{"-t", "1", "-x", "3"}, run(1200*time.Millisecond, 2*s, 0, "", 3),
			[]string{"status:TO", "message:Time limit exceeded"}},
		{"killed at the processor ceiling", []string{"-t", "1"}, run(1010*time.Millisecond, 2*s, runner.KilledCPULimit, "SIGKILL", 137),
			[]string{"status:TO", "message:Time limit exceeded", "killed:1", "time:1.010"}},
		{"a 10 s sleep under -t 1 -w 20", []string{"-t", "1", "-w", "20"}, run(2*time.Millisecond, 10*s, 0, "", 0),
			[]string{"time:0.002", "time-wall:10.000", "exitcode:0"}},
		{"over -w, ended by itself", []string{"-t", "1", "-w", "3"}, run(2*time.Millisecond, 3100*time.Millisecond, 0, "", 0),
			[]string{"status:TO", "message:Time limit exceeded (wall clock)"}},
		{"killed at -w", []string{"-t", "1", "-w", "3"}, run(2*time.Millisecond, 3001*time.Millisecond, runner.KilledWallLimit, "SIGKILL", 137),
			[]string{"status:TO", "message:Time limit exceeded (wall clock)", "killed:1"}},
		{"exactly at -t is not over", []string{"-t", "1"}, run(1000*time.Millisecond+900*time.Microsecond, s, 0, "", 0),
			[]string{"exitcode:0"}},
		{"-t -1 always times out", []string{"-t", "-1"}, run(0, s, 0, "", 0),
			[]string{"status:TO", "message:Time limit exceeded"}},
		{"a real-time signal by its number", []string{"-t", "1"}, run(10*time.Millisecond, s, 0, "SIG34", 162),
			[]string{"exitsig:34", "status:SG", "message:Caught fatal signal 34"}},
		{"no -w: stopped at the front's cap", nil, run(10*time.Millisecond, isolate.WallCap, runner.KilledWallLimit, "SIGKILL", 137),
			[]string{"status:TO", "message:Time limit exceeded (wall clock)", "killed:1"}},
	} {
		cmd, err := isolate.ParseArgs(append(append([]string{}, c.argv...), "--run", "--", "/p"))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := isolate.WriteMeta(&b, isolateMeta(cmd, c.res)); err != nil {
			t.Fatal(err)
		}
		got, at := b.String(), 0
		for _, line := range c.want {
			i := strings.Index(got[at:], line+"\n")
			if i < 0 {
				t.Errorf("%s: no %q after offset %d in\n%s", c.name, line, at, got)
				break
			}
			at += i + len(line)
		}
		if strings.Contains(c.name, "over -t") && strings.Contains(got, "exitsig") {
			t.Errorf("%s: a run over -t shows its signal:\n%s", c.name, got)
		}
	}
}
