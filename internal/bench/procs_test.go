package bench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// acctRecord is one struct acct_v3 as the kernel writes it.
func acctRecord(version byte, comm string, utime, stime uint16) []byte {
	r := make([]byte, acctV3Size)
	r[1] = version
	binary.LittleEndian.PutUint16(r[32:], utime)
	binary.LittleEndian.PutUint16(r[34:], stime)
	copy(r[48:], comm)
	return r
}

// TestReadAcctSumsByCommand: records are summed by command, user and
// system time apart, kernel threads of one kind together, a process that
// never executed a program apart, and comp_t's exponent is applied.
func TestReadAcctSumsByCommand(t *testing.T) {
	var b []byte
	b = append(b, acctRecord(3, "podman", 12, 3)...)
	b = append(b, acctRecord(3, "podman", 1<<13|2, 0)...) // 2 × 8
	b = append(b, acctRecord(3, "kworker/0:1", 1, 1)...)
	b = append(b, acctRecord(3|0x10, "crun", 5, 0)...) // ACORE beside the version
	fork := acctRecord(3, "shim", 0, 1)
	fork[0] = acctFork
	b = append(b, fork...)
	path := filepath.Join(t.TempDir(), "acct")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readAcct(path)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	want := procTimes{"podman, user": 280 * ms, "podman, system": 30 * ms, "kworker, user": 10 * ms, "kworker, system": 10 * ms,
		"crun, user": 50 * ms, "crun, system": 0, "shim (no exec), user": 0, "shim (no exec), system": 10 * ms}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %v, want %v", k, got[k], v)
		}
	}
	if err := os.WriteFile(path, acctRecord(2, "old", 1, 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readAcct(path); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("a version 2 record: got %v, want an error naming it", err)
	}
}

// TestReadProcStatOddCommand: a command holding ") " still parses (the
// last ")" ends it), as does this process's own stat.
func TestReadProcStatOddCommand(t *testing.T) {
	line := "42 (a) b) S 1 42 42 0 -1 4194560 100 0 0 0 7 5 0 0 20 0 1 0 12345 1000 10 18446744073709551615\n"
	path := filepath.Join(t.TempDir(), "stat")
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	p, ok := readProcStat(path)
	if !ok || p.comm != "a) b" || p.ticks != 12 || p.start != "12345" {
		t.Errorf("got %+v %v, want comm \"a) b\", 12 ticks, start 12345", p, ok)
	}
	if _, ok := readProcStat("/proc/self/stat"); !ok {
		t.Error("this process's /proc/self/stat did not parse")
	}
}

// TestPrintProcs: each command's row holds the three stretches and the
// judge's excess over the bare lifecycle; rows under 5 ms everywhere go.
func TestPrintProcs(t *testing.T) {
	ms := time.Millisecond
	p := &benchProcs{
		Bare:  procTimes{"podman": 700 * ms, "podman (alive)": 500 * ms, "tiny": ms},
		Step:  procTimes{"podman": 690 * ms, "podman (alive)": 480 * ms},
		Judge: procTimes{"podman": 710 * ms, "podman (alive)": 650 * ms, "shim": 200 * ms},
	}
	var b strings.Builder
	printProcs(&b, p)
	out := b.String()
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"500.0 ms 480.0 ms 650.0 ms +150.0 ms podman (alive)",
		"0.0 ms 0.0 ms 200.0 ms +200.0 ms shim",
		"1201.0 ms 1170.0 ms 1560.0 ms +359.0 ms in all",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "tiny") {
		t.Errorf("a row under 5 ms was printed:\n%s", out)
	}
}
