package seccomplog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Records as kernel 6.12 and auditd write them.
const (
	kmsgInt80 = `audit: type=1326 audit(1764741600.123:52): auid=4294967295 uid=65534 gid=65534 ses=4294967295 subj=unconfined pid=4321 comm="int80" exe="/run/podjail/artefact/int80" sig=31 arch=40000003 syscall=20 compat=1 ip=0x401d3a code=0x0`
	auditX32  = `type=SECCOMP msg=audit(1764741601.500:53): auid=4294967295 uid=65534 gid=65534 ses=4294967295 subj=system_u:system_r:container_t:s0:c5,c9 pid=4400 comm="x32" exe="/x32" sig=31 arch=c000003e syscall=1073741863 compat=0 ip=0x401d3a code=0x0`
	kmsgOther = `audit: type=1326 audit(1764741602.000:54): auid=1000 uid=1000 gid=1000 ses=3 pid=99 comm="a" exe="/a" sig=31 arch=c000003e syscall=101 compat=0 ip=0x1 code=0x0`
	kmsgLog   = `audit: type=1326 audit(1764741602.000:55): auid=1000 uid=1000 gid=1000 ses=3 pid=99 comm="a" exe="/a" sig=0 arch=c000003e syscall=101 compat=0 ip=0x1 code=0x7ffc0000`
)

func TestParse(t *testing.T) {
	cases := []struct {
		line string
		want string
		uid  int
		ok   bool
	}{
		{kmsgInt80, "getpid (i386 system call 20)", 65534, true},
		{auditX32, "getpid (x32 system call 39)", 65534, true},
		{kmsgOther, "ptrace (x86_64 system call 101)", 1000, true},
		{kmsgLog, "", 0, false}, // logged, not killed
		{"audit: type=1400 audit(1.0:1): avc: denied", "", 0, false},
		{"type=SECCOMP msg=audit(garbage", "", 0, false},
	}
	for _, c := range cases {
		k, ok := Parse(c.line)
		if ok != c.ok || (ok && (k.String() != c.want || k.UID != c.uid)) {
			t.Errorf("Parse(%.40q…) = %v %q uid %d, want %v %q uid %d", c.line, ok, k.String(), k.UID, c.ok, c.want, c.uid)
		}
	}
	k, _ := Parse(kmsgInt80)
	if want := time.Unix(1764741600, 123e6); !k.At.Equal(want) || k.PID != 4321 || k.Exe != "/run/podjail/artefact/int80" {
		t.Errorf("int80 record: %+v", k)
	}
	if k, _ := Parse(strings.Replace(kmsgOther, "syscall=101", "syscall=9999", 1)); k.String() != "x86_64 system call 9999" || k.Short() != "#9999" {
		t.Errorf("unknown number: %q %q", k.String(), k.Short())
	}
}

func TestNameSelectsTheRunsRecord(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(log, []byte(strings.Join([]string{kmsgInt80, auditX32, kmsgOther, kmsgLog}, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	at := func(s float64) time.Time { return time.Unix(0, int64(s*1e9)) }
	missing := filepath.Join(t.TempDir(), "kmsg")
	src := []string{missing, log}

	k, err := Identify(src, Query{From: at(1764741600), To: at(1764741600.5), UID: 65534})
	if err != nil || k.String() != "getpid (i386 system call 20)" || k.Short() != "getpid" {
		t.Errorf("int80's window: %q, %v", k.String(), err)
	}
	// Two runs killed for different calls at the same time: no name.
	if k, err := Identify(src, Query{From: at(1764741600), To: at(1764741602), UID: 65534}); err == nil {
		t.Errorf("two different calls in the window named %q", k)
	}
	// Another uid's kill is not the run's.
	if k, err := Identify(src, Query{From: at(1764741601.9), To: at(1764741603), UID: 65534}); err == nil {
		t.Errorf("another uid's kill named %q", k)
	}
	if k, err := Identify(src, Query{From: at(1764741601.9), To: at(1764741603), UID: -1}); err != nil || k.Short() != "ptrace" {
		t.Errorf("any uid: %q, %v", k, err)
	}
	if _, err := Identify([]string{missing}, Query{UID: -1}); !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), missing) {
		t.Errorf("no readable log: %v", err)
	}
}
