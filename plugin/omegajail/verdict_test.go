package omegajail

import (
	"strings"
	"testing"
)

// The cases of quark's own TestParseMetaFile (runner/sandbox_test.go at
// de2cea4456201a264060761acda4694cc79b45ca), which calls parseMetaFile
// with allowNonZeroExitCode = lang == "c", then more of its rules.
func TestRunnerVerdict(t *testing.T) {
	cases := []struct {
		meta string
		l    RunnerLimits
		want string
	}{
		{"status:0", ForRun("c", 0), "OK"},
		{"status:1", ForRun("c", 0), "OK"},
		{"status:1", ForRun("cpp", 0), "RTE"},
		{"status:0\ntime:1000000", ForRun("c", 0), "OK"},
		{"status:0\ninvalid:field", ForRun("c", 0), "OK"},
		{"status:0\nsignal:SIGILL", ForRun("c", 0), "RTE"},
		{"status:0\nsignal:SIGABRT", ForRun("c", 0), "RTE"},
		{"status:0\nsignal:SIGXCPU", ForRun("c", 0), "TLE"},
		{"status:0\nsignal:SIGXFSZ", ForRun("c", 0), "OLE"},
		{"status:0\nsignal_number:0", ForRun("c", 0), "RTE"},
		{"status:0\nmem:1000000", ForRun("c", 0), "OK"},
		{"status:0\nmem:1000000", ForRun("c", 1000), "MLE"},
		// The rest of parseMetaFile.
		{"signal:SIGSYS\nsyscall:socket", ForRun("cpp17-gcc", 0), "RFE"},
		{"signal:SIGALRM", ForRun("cpp17-gcc", 0), "TLE"},
		{"signal:SIGKILL", ForRun("cpp17-gcc", 0), "RTE"},
		{"signal:SIGTERM", ForRun("cpp17-gcc", 0), "RTE"},
		{"signal:SIGXCPU\nmem:2000", ForRun("cpp17-gcc", 1000), "MLE"},
		{"", ForRun("cpp17-gcc", 0), "RTE"}, // no status: -1
		{"", ForRun("c", 0), "OK"},
		{"status:1", ForCompile("c"), "RTE"},
		{"status:0\nmem:99999999", ForCompile("cpp17-gcc"), "OK"},
		{"status:1", ForRun("kj", 0), "TLE"},
		{"status:1", ForCompile("kp"), "TLE"},
		{"status:2", ForRun("kp", 0), "RTE"},
		{"status:1", RunnerLimits{Lang: "java", MemoryLimit: 1 << 20, JavaOutOfMemory: true}, "MLE"},
		{"status:0", RunnerLimits{Lang: "java", MemoryLimit: 1 << 20, JavaOutOfMemory: true}, "OK"},
		{"status:1", RunnerLimits{Lang: "java", JavaOutOfMemory: true}, "RTE"},
		{"status:1", RunnerLimits{Lang: "kt", MemoryLimit: 1 << 20, JavaOutOfMemory: true}, "RTE"},
	}
	for _, c := range cases {
		m, err := ParseMeta(strings.NewReader(c.meta))
		if err != nil {
			t.Fatal(err)
		}
		if got := RunnerVerdict(m, c.l); got != c.want {
			t.Errorf("%q %+v: %s, want %s", c.meta, c.l, got, c.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		m    Meta
		want int
	}{
		{Meta{ExitStatus: intp(0)}, 0},
		{Meta{ExitStatus: intp(1)}, 1},
		{Meta{Signal: "SIGSEGV"}, 1},
		{Meta{Syscall: "socket"}, 1},
		{Meta{}, 1},
	} {
		if got := ExitCode(c.m); got != c.want {
			t.Errorf("%+v: %d, want %d", c.m, got, c.want)
		}
	}
}
