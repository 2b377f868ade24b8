package isolate

import (
	"bytes"
	"testing"
	"time"
)

func stats(cg bool) Stats {
	return Stats{Time: 1234 * time.Millisecond, WallTime: 2*time.Second + 5*time.Millisecond + 900*time.Microsecond,
		MaxRSSKiB: 3000, CswVoluntary: 4, CswForced: 5, CG: cg, CgMemKiB: 6000}
}

const figures = "time:1.234\ntime-wall:2.005\nmax-rss:3000\ncsw-voluntary:4\ncsw-forced:5\n"

// The line sequences box_keeper, check_timeout, err, die and box_exit
// write (isolate.c), one case per way a run ends.
func TestWriteMeta(t *testing.T) {
	oom := stats(true)
	oom.CgOOMKilled = true
	interrupted := Meta{Stats: ptr(stats(false)), ExitSig: 2, Killed: true, Status: StatusSG, Message: "Interrupted"}
	dieRunning := Meta{Stats: ptr(stats(false)), Killed: true, Status: StatusXX, Message: "wait4: boom"}
	cases := []struct {
		name string
		m    Meta
		want string
		exit int
	}{
		{"ok", Exited(stats(false), 0), figures + "exitcode:0\n", ExitOK},
		{"ok cg", Exited(stats(true), 0), figures + "cg-mem:6000\nexitcode:0\n", ExitOK},
		{"ok cg no mem", Exited(Stats{CG: true}, 0),
			"time:0.000\ntime-wall:0.000\nmax-rss:0\ncsw-voluntary:0\ncsw-forced:0\nexitcode:0\n", ExitOK},
		{"re", Exited(stats(false), 3), figures + "exitcode:3\nstatus:RE\nmessage:Exited with error status 3\n", ExitFailed},
		{"sg oom", Signaled(oom, 9), figures + "cg-mem:6000\ncg-oom-killed:1\nexitsig:9\nstatus:SG\nmessage:Caught fatal signal 9\n", ExitFailed},
		{"to after exit", TimedOut(stats(false), false, false), figures + "status:TO\nmessage:Time limit exceeded\n", ExitFailed},
		{"to killed", TimedOut(stats(false), false, true), "status:TO\nmessage:Time limit exceeded\nkilled:1\n" + figures, ExitFailed},
		{"to wall killed", TimedOut(stats(true), true, true),
			"status:TO\nmessage:Time limit exceeded (wall clock)\nkilled:1\n" + figures + "cg-mem:6000\n", ExitFailed},
		{"interrupted", interrupted, "exitsig:2\nstatus:SG\nmessage:Interrupted\nkilled:1\n" + figures, ExitFailed},
		{"xx before start", Failed("Cannot run proxy, clone failed: x"), "status:XX\nmessage:Cannot run proxy, clone failed: x\n", ExitSandbox},
		{"xx message of several lines: one line", Failed("shim failed at step start:\n  no such file\n"), "status:XX\nmessage:shim failed at step start: no such file\n", ExitSandbox},
		{"not executable: RE 127 as isolate's failed execve", NotExecutable(Stats{}),
			"time:0.000\ntime-wall:0.000\nmax-rss:0\ncsw-voluntary:0\ncsw-forced:0\nexitcode:127\nstatus:RE\nmessage:Exited with error status 127\n", ExitFailed},
		{"xx while running", dieRunning, "status:XX\nmessage:wait4: boom\nkilled:1\n" + figures, ExitSandbox},
		{"empty", Meta{}, "", ExitOK},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := WriteMeta(&b, c.m); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if b.String() != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, b.String(), c.want)
		}
		if got := ExitCode(c.m); got != c.exit {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.exit)
		}
	}
	if ExitCode(Meta{Status: "ZZ"}) != ExitSandbox {
		t.Error("an unknown status must be a sandbox error")
	}
}

func TestWriteMetaRejects(t *testing.T) {
	for _, m := range []Meta{{Status: "TOO"}, {Status: "T"}, {Status: StatusTO, Message: "a\nb"}} {
		var b bytes.Buffer
		if err := WriteMeta(&b, m); err == nil || b.Len() != 0 {
			t.Errorf("%+v: err %v, wrote %q", m, err, b.String())
		}
	}
}

func ptr[T any](v T) *T { return &v }
