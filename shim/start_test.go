package shim

import (
	"syscall"
	"testing"
)

// TestStatusOf: the report takes the program's time from its rusage and
// how it ended from its wait status, and the shim's exit status is the
// one Report.Status gives back from that report (the runner reads either).
func TestStatusOf(t *testing.T) {
	ru := syscall.Rusage{Utime: syscall.Timeval{Sec: 1, Usec: 250000}, Stime: syscall.Timeval{Usec: 500}}
	for _, c := range []struct {
		name   string
		ws     syscall.WaitStatus
		code   int
		exit   int
		signal string
	}{
		{"exit 0", 0, 0, 0, ""},
		{"exit 3", 3 << 8, 3, 3, ""},
		{"killed", syscall.WaitStatus(syscall.SIGKILL), 128 + 9, -1, "SIGKILL"},
		{"segfault", syscall.WaitStatus(syscall.SIGSEGV), 128 + 11, -1, "SIGSEGV"},
		{"real-time signal", syscall.WaitStatus(34), 128 + 34, -1, "SIG34"},
	} {
		var r Report
		code := statusOf(c.ws, ru, &r)
		if code != c.code || r.ExitCode != c.exit || r.Signal != c.signal {
			t.Errorf("%s: code %d, report exit %d signal %q; want %d, %d, %q", c.name, code, r.ExitCode, r.Signal, c.code, c.exit, c.signal)
		}
		if r.UserUs != 1250000 || r.SysUs != 500 || r.TimeUs != 1250500 {
			t.Errorf("%s: times user %d sys %d total %d, want 1250000, 500, 1250500", c.name, r.UserUs, r.SysUs, r.TimeUs)
		}
		if got := r.Status(); got != code {
			t.Errorf("%s: Report.Status() = %d, the shim exits %d", c.name, got, code)
		}
	}
}

// TestReportStatus: a failure of the shim's own, or a signal it cannot
// name back, is ExitFailure, never a code that could be the program's.
func TestReportStatus(t *testing.T) {
	for _, c := range []struct {
		r    Report
		want int
	}{
		{Report{ExitCode: -1, Error: "probe: refused", Step: StepProbe}, ExitFailure},
		{Report{ExitCode: 7, Error: "reap: children still alive"}, ExitFailure},
		{Report{ExitCode: -1, Signal: "SIGXCPU"}, 128 + int(syscall.SIGXCPU)},
		{Report{ExitCode: -1, Signal: "SIGNOSUCH"}, ExitFailure},
		{Report{ExitCode: -1, Signal: "SIG34"}, 128 + 34},
		{Report{ExitCode: -1, Signal: "SIG64"}, 128 + 64},
		{Report{ExitCode: -1, Signal: "SIG65"}, ExitFailure},
		{Report{ExitCode: -1, Signal: "SIG0"}, ExitFailure},
		{Report{ExitCode: 42}, 42},
	} {
		if got := c.r.Status(); got != c.want {
			t.Errorf("%+v: Status() = %d, want %d", c.r, got, c.want)
		}
	}
	err := &SetupError{Step: StepStart, Err: syscall.ENOENT}
	if err.Error() != "start: no such file or directory" || err.Unwrap() != syscall.ENOENT {
		t.Errorf("SetupError: %q, unwraps to %v", err.Error(), err.Unwrap())
	}
}
