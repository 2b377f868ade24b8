package shim

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestParseStatus(t *testing.T) {
	s := parseStatus([]byte("Name:\tx\nUid:\t65534\t65534\t65534\t65534\nGroups:\t\nCapEff:\t0000000000000000\n"))
	if s["Uid"] != "65534 65534 65534 65534" || s["Groups"] != "" || s["CapEff"] != "0000000000000000" {
		t.Fatalf("%q", s)
	}
}

// TestProbeAsNobody runs the real probe (this test binary re-executed as 65534).
func TestProbeAsNobody(t *testing.T) {
	requireRoot(t)
	if err := RunProbe("/proc/self/exe"); err != nil {
		t.Fatal(err)
	}
}

// TestProbeRefuses: the same probe run with identities that are not a clean nobody.
func TestProbeRefuses(t *testing.T) {
	requireRoot(t)
	for name, cred := range map[string]*syscall.Credential{
		"root":         nil,
		"gid 0":        {Uid: Nobody, Gid: 0, Groups: []uint32{}},
		"group 0 kept": {Uid: Nobody, Gid: Nobody, Groups: []uint32{0}},
	} {
		cmd := exec.Command("/proc/self/exe", ProbeArg)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.Output()
		line := string(out)
		if err == nil || !strings.HasPrefix(line, "fail ") {
			t.Errorf("%s: probe passed: %v %q", name, err, line)
		}
		t.Logf("%s: %s", name, strings.TrimSpace(line))
	}
}

// TestKillOthers runs helperKillAll as pid 1 of a new pid namespace: kill(-1) sent
// with effective uid 65534 must take every 65534 process, a setsid'd daemon too, and
// (no CAP_KILL in use) leave a process of another uid alone.
func TestKillOthers(t *testing.T) {
	requireRoot(t)
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{helperEnv + "=killall", coverDir(t)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot make a pid namespace: %v", err)
	}
	err := cmd.Wait()
	got := strings.TrimSpace(withoutCoverWarning(out.String()))
	if err != nil {
		t.Fatalf("helper: %v: %s", err, got)
	}
	t.Log(got)
	if !strings.HasPrefix(got, "pid=1 euid=0 reaped=4 killerr=<nil> reaperr=<nil> other_survived=true") {
		t.Fatalf("helper said %q", got)
	}
}
