package shim

import (
	"strings"
	"testing"
)

func TestReportRoundTrip(t *testing.T) {
	r := Report{TimeUs: 1500, UserUs: 1000, SysUs: 500, CgroupUs: 2600, CgroupUserUs: 2000, CgroupSysUs: 600, PeakBytes: 1 << 20, PidsPeak: 3,
		ExitCode: -1, Signal: "SIGSEGV", OOM: 1, OOMKill: 1, Reaped: 2}
	line := string(FormatReport("abc123", r))
	want := `podjail-report abc123 {"time_us":1500,"user_us":1000,"sys_us":500,` +
		`"cgroup_us":2600,"cgroup_user_us":2000,"cgroup_sys_us":600,"peak_bytes":1048576,` +
		`"pids_peak":3,"exit_code":-1,"signal":"SIGSEGV","oom":1,"oom_kill":1,"reaped":2}` + "\n"
	if line != want {
		t.Fatalf("line\n%s want\n%s", line, want)
	}
	got, ok := ParseReport([]byte(line), "abc123")
	if !ok || got != r {
		t.Fatalf("ParseReport = %+v, %v", got, ok)
	}
	fail := string(FormatReport("n", Report{ExitCode: -1, Error: "probe: nope", Step: StepProbe}))
	if !strings.Contains(fail, `"error":"probe: nope","step":"probe"`) {
		t.Fatalf("failure line %s", fail)
	}
}

func TestParseReport(t *testing.T) {
	first := string(FormatReport("good", Report{TimeUs: 1}))
	last := string(FormatReport("good", Report{TimeUs: 2}))
	forged := string(FormatReport("guess", Report{TimeUs: 99}))
	cases := []struct {
		name, stderr, nonce string
		ok                  bool
		time                int64
	}{
		{"none", "hello\nworld\n", "good", false, 0},
		{"only", first, "good", true, 1},
		{"last wins", first + "noise\n" + last, "good", true, 2},
		{"forged after", first + forged, "good", true, 1},
		{"only forged", forged, "good", false, 0},
		{"no trailing newline", strings.TrimSuffix(last, "\n"), "good", true, 2},
		{"crlf", strings.TrimSuffix(last, "\n") + "\r\n", "good", true, 2},
		{"truncated last", first + last[:30], "good", true, 1},
		{"null json", first + "podjail-report good null\n", "good", true, 1},
		{"prefix of nonce", FormatReportString("goo", 5), "good", false, 0},
		{"longer nonce", FormatReportString("goodx", 5), "good", false, 0},
		{"not at line start", " " + first, "good", false, 0},
		{"empty nonce", "podjail-report  {}\n", "", false, 0},
	}
	for _, c := range cases {
		r, ok := ParseReport([]byte(c.stderr), c.nonce)
		if ok != c.ok || r.TimeUs != c.time {
			t.Errorf("%s: got %+v %v, want ok=%v time=%d", c.name, r, ok, c.ok, c.time)
		}
	}
}

func FormatReportString(nonce string, us int64) string {
	return string(FormatReport(nonce, Report{TimeUs: us}))
}
