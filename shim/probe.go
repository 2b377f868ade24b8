package shim

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Nobody is the identity the program runs as.
const Nobody = 65534

// nobodyCred is the credential of both the probe and the program, so the probe
// tests the very drop (setgroups, setgid, setuid in Go's child) the program gets.
func nobodyCred() *syscall.Credential {
	return &syscall.Credential{Uid: Nobody, Gid: Nobody, Groups: []uint32{}}
}

// RunProbe re-executes exe (normally /proc/self/exe) with ProbeArg as 65534:65534
// and returns nil only if it reports that the identity is unprivileged. The probe is
// the shim's own child, so it is charged to the shim's cgroup, not the program's.
func RunProbe(exe string) error {
	var out bytes.Buffer
	cmd := &exec.Cmd{
		Path:        exe,
		Args:        []string{"podjail-shim", ProbeArg},
		Env:         []string{},
		Dir:         "/",
		Stdout:      &out,
		SysProcAttr: &syscall.SysProcAttr{Credential: nobodyCred()},
	}
	err := cmd.Run()
	line, _, _ := strings.Cut(out.String(), "\n")
	if err == nil && strings.HasPrefix(line, "ok ") {
		return nil
	}
	if line == "" && err != nil {
		return &SetupError{StepProbe, fmt.Errorf("probe did not run: %w", err)}
	}
	return stepErr(StepProbe, "identity %d:%d is not safe: %s", Nobody, Nobody, line)
}

// ProbeMain is the probe process: it prints one line, "ok <facts>" or
// "fail <reasons>; <facts>", and exits 0 only for ok.
func ProbeMain() int {
	facts, fails := probeChecks()
	if len(fails) == 0 {
		fmt.Printf("ok %s\n", facts)
		return 0
	}
	fmt.Printf("fail %s; %s\n", strings.Join(fails, ", "), facts)
	return exitProbeFailed
}

func probeChecks() (facts string, fails []string) {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", []string{"read /proc/self/status: " + err.Error()}
	}
	s := parseStatus(st)
	want := strconv.Itoa(Nobody)
	for _, k := range []string{"Uid", "Gid"} {
		for _, id := range strings.Fields(s[k]) { // real, effective, saved, filesystem
			if id != want {
				fails = append(fails, fmt.Sprintf("%s %q", k, s[k]))
				break
			}
		}
	}
	if s["Groups"] != "" {
		fails = append(fails, fmt.Sprintf("Groups %q", s["Groups"]))
	}
	for _, k := range []string{"CapEff", "CapPrm", "CapAmb"} {
		if v, err := strconv.ParseUint(s[k], 16, 64); err != nil || v != 0 {
			fails = append(fails, fmt.Sprintf("%s %q", k, s[k]))
		}
	}
	// Raw syscalls on this thread only: the kernel's answer, nothing else's.
	zero := uint32(0)
	for _, t := range []struct {
		name string
		call func() syscall.Errno
	}{
		{"setresuid(0,0,0)", func() syscall.Errno { return raw(unix.SYS_SETRESUID, 0, 0, 0) }},
		{"setuid(0)", func() syscall.Errno { return raw(unix.SYS_SETUID, 0, 0, 0) }},
		{"setresgid(0,0,0)", func() syscall.Errno { return raw(unix.SYS_SETRESGID, 0, 0, 0) }},
		{"setgid(0)", func() syscall.Errno { return raw(unix.SYS_SETGID, 0, 0, 0) }},
		{"setgroups([0])", func() syscall.Errno {
			_, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 1, uintptr(unsafe.Pointer(&zero)), 0)
			return e
		}},
	} {
		if e := t.call(); e != unix.EPERM {
			fails = append(fails, fmt.Sprintf("%s gave %s, want EPERM", t.name, errnoText(e)))
		}
	}
	facts = fmt.Sprintf("uid=%q gid=%q groups=%q capeff=%s capprm=%s capamb=%s capinh=%s capbnd=%s nnp=%s",
		s["Uid"], s["Gid"], s["Groups"], s["CapEff"], s["CapPrm"], s["CapAmb"], s["CapInh"], s["CapBnd"], s["NoNewPrivs"])
	return facts, fails
}

func raw(nr, a1, a2, a3 uintptr) syscall.Errno {
	_, _, e := unix.RawSyscall(nr, a1, a2, a3)
	return e
}

func errnoText(e syscall.Errno) string {
	if e == 0 {
		return "success"
	}
	return unix.ErrnoName(e)
}

// parseStatus parses "Key:\tvalue" lines of /proc/self/status.
func parseStatus(b []byte) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return m
}
