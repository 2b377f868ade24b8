package omegajail

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func intp(n int) *int { return &n }

// The lines src/jail/mod.rs (wait_write_meta_file) writes for each
// WaitStatus.
func TestWriteMeta(t *testing.T) {
	cases := []struct {
		m    Meta
		want string
	}{
		{Meta{TimeUs: 12345, SysTimeUs: 678, WallTimeUs: 20000, MemBytes: 1 << 20, ExitStatus: intp(0)},
			"time:12345\ntime-sys:678\ntime-wall:20000\nmem:1048576\nstatus:0\n"},
		{Meta{ExitStatus: intp(3)},
			"time:0\ntime-sys:0\ntime-wall:0\nmem:0\nstatus:3\n"},
		{Meta{TimeUs: 1000000, Signal: "SIGXCPU"},
			"time:1000000\ntime-sys:0\ntime-wall:0\nmem:0\nsignal:SIGXCPU\n"},
		{Meta{Syscall: "socket"},
			"time:0\ntime-sys:0\ntime-wall:0\nmem:0\nsignal:SIGSYS\nsyscall:socket\n"},
		{Meta{Signal: "SIGSYS", Syscall: "#451"},
			"time:0\ntime-sys:0\ntime-wall:0\nmem:0\nsignal:SIGSYS\nsyscall:#451\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := WriteMeta(&b, c.m); err != nil {
			t.Errorf("%+v: %v", c.m, err)
			continue
		}
		if b.String() != c.want {
			t.Errorf("%+v:\ngot  %q\nwant %q", c.m, b.String(), c.want)
		}
		back, err := ParseMeta(&b)
		if err != nil {
			t.Fatal(err)
		}
		if c.m.Syscall != "" {
			c.m.Signal = "SIGSYS"
		}
		if !reflect.DeepEqual(back, c.m) {
			t.Errorf("round trip: got %+v, want %+v", back, c.m)
		}
	}
}

func TestWriteMetaRejects(t *testing.T) {
	for _, m := range []Meta{
		{},                                       // no ending
		{ExitStatus: intp(0), Signal: "SIGSEGV"}, // two endings
		{ExitStatus: intp(0), Syscall: "socket"},
		{Signal: "SIGSEGV", Syscall: "socket"},
		{TimeUs: -1, ExitStatus: intp(0)},
		{Signal: "SIG\nSEGV"},
		{Syscall: "a:b"},
	} {
		var b bytes.Buffer
		if err := WriteMeta(&b, m); err == nil || b.Len() != 0 {
			t.Errorf("%+v: err %v, wrote %q", m, err, b.String())
		}
	}
}

func TestParseMetaLikeRunner(t *testing.T) {
	m, err := ParseMeta(strings.NewReader("status:0\ntime:1500000.9\ntime-wall:abc\nmem:5\ninvalid:field\nsignal_number:11\nsyscall_number:41"))
	if err != nil {
		t.Fatal(err)
	}
	want := Meta{TimeUs: 1500000, MemBytes: 5, ExitStatus: intp(0), Signal: "SIGNAL 11", Syscall: "SYSCALL 41"}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v, want %+v", m, want)
	}
	// A later key wins; a status that does not parse is 0.
	m, _ = ParseMeta(strings.NewReader("status:x\nsignal:SIGSEGV\nsignal:SIGKILL\n"))
	if *m.ExitStatus != 0 || m.Signal != "SIGKILL" {
		t.Errorf("got %+v", m)
	}
	if _, err := ParseMeta(strings.NewReader("status:0\n\n")); err == nil {
		t.Error("an empty line must be malformed, as for the Runner")
	}
}
