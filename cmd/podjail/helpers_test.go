package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the programs the integration tests run inside
// containers: the scratch test image holds it as /podjail.test, and
// "/podjail.test NAME ARGS..." runs helper NAME instead of the tests.
var helpers = map[string]func(args []string) int{
	"probe": probe,
	"cat":   func([]string) int { _, err := io.Copy(os.Stdout, os.Stdin); return boolExit(err == nil) },
	"exit":  func(a []string) int { n, _ := strconv.Atoi(a[0]); return n },
	"flood": flood,
	"sleep": func([]string) int { time.Sleep(time.Hour); return 0 },
	// nap N sleeps N seconds and exits 0.
	"nap":   func(a []string) int { n, _ := strconv.Atoi(a[0]); time.Sleep(time.Duration(n) * time.Second); return 0 },
	"label": label,
	// exec-input is the program a judged test names on its first line.
	"exec-input": execInput,
	"go-unshare": goUnshare,
	// selinux-attack is TestSELinuxAttacks's program.
	"selinux-attack": selinuxAttack,
	// service-caller is a client of the service run as another user
	// (TestServiceCallerGetsOnlyItsOwn).
	"service-caller": serviceCaller,
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		if h, ok := helpers[os.Args[1]]; ok {
			os.Exit(h(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

func boolExit(ok bool) int {
	if ok {
		return 0
	}
	return 1
}

// flood writes N bytes (default 1 GiB) of 'x' to stdout.
func flood(args []string) int {
	total := int64(1 << 30)
	if len(args) > 0 {
		total, _ = strconv.ParseInt(args[0], 10, 64)
	}
	buf := []byte(strings.Repeat("x", 64<<10))
	for total > 0 {
		n := min(total, int64(len(buf)))
		if _, err := os.Stdout.Write(buf[:n]); err != nil {
			return 1
		}
		total -= n
	}
	return 0
}

// probe prints, one "key=value" a line, what the container profile must be
// as seen from inside.
func probe([]string) int {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	put := func(k string, v any) { fmt.Fprintf(w, "%s=%v\n", k, v) }

	put("uid", os.Getuid())
	put("gid", os.Getgid())
	groups, _ := os.Getgroups()
	put("groups", groups)
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		for _, k := range []string{"CapEff", "CapBnd", "CapPrm", "NoNewPrivs"} {
			if v, ok := strings.CutPrefix(line, k+":"); ok {
				put(k, strings.TrimSpace(v))
			}
		}
	}

	err := os.WriteFile("/podjail-probe", []byte("x"), 0o600)
	put("root_write_error", errText(err))
	err = os.WriteFile("/tmp/probe", []byte("#!/bin/sh\n"), 0o755)
	put("tmp_write_error", errText(err))
	put("tmp_mount", mountOptions("/tmp"))
	if fi, err := os.Stat("/tmp"); err == nil {
		mode := uint32(fi.Mode().Perm())
		if fi.Mode()&os.ModeSticky != 0 {
			mode |= 0o1000
		}
		put("tmp_mode", fmt.Sprintf("%o", mode))
	}
	put("root_mount", mountOptions("/"))

	ifaces, _ := net.Interfaces()
	var names []string
	for _, i := range ifaces {
		names = append(names, i.Name)
	}
	put("interfaces", strings.Join(names, ","))

	_, err = syscall.Setsid()
	put("setsid_error", errText(err))
	err = syscall.Setpgid(0, 0)
	put("setpgid_error", errText(err))
	limits, _ := os.ReadFile("/proc/self/limits")
	for _, line := range strings.Split(string(limits), "\n") {
		for _, k := range []string{"Max core file size", "Max open files", "Max file size", "Max stack size"} {
			if v, ok := strings.CutPrefix(line, k); ok {
				put(strings.ReplaceAll(strings.ToLower(k), " ", "_"), strings.Join(strings.Fields(v)[:2], " "))
			}
		}
	}

	cg, _ := os.ReadFile("/proc/self/cgroup")
	dir := filepath.Join("/sys/fs/cgroup", strings.TrimPrefix(strings.TrimSpace(string(cg)), "0::"))
	// The CPU quota is on the container's cgroup, the namespace's root;
	// the rest is on the program's own.
	files := map[string]string{"memory.max": dir, "memory.swap.max": dir, "pids.max": dir, "cpu.max": "/sys/fs/cgroup"}
	for f, in := range files {
		v, err := os.ReadFile(filepath.Join(in, f))
		if err != nil {
			put(f, "error:"+err.Error())
			continue
		}
		put(f, strings.TrimSpace(string(v)))
	}
	return 0
}

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}

// mountOptions returns the mount and super options of the mount at dir,
// from /proc/self/mountinfo.
func mountOptions(dir string) string {
	data, _ := os.ReadFile("/proc/self/mountinfo")
	found := ""
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || f[4] != dir {
			continue
		}
		sep := 6
		for sep < len(f) && f[sep] != "-" {
			sep++
		}
		if sep+3 < len(f) {
			found = f[sep+1] + " " + f[5] + "," + f[sep+3] // fstype, per-mount opts, super opts (last mount wins)
		}
	}
	return found
}

// startUntil starts cmd and reads its stderr until a line for which mark
// is true (or its end). The returned function waits for the rest of
// stderr and returns all of it.
func startUntil(t *testing.T, cmd *exec.Cmd, mark func(line string) bool) (rest func() string) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if mark(sc.Text()) {
			break
		}
	}
	done := make(chan struct{})
	go func() {
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
		}
		close(done)
	}()
	return func() string { <-done; return log.String() }
}

// hasPrefix is a mark for startUntil.
func hasPrefix(p string) func(string) bool {
	return func(line string) bool { return strings.HasPrefix(line, p) }
}

// logged is a mark for startUntil: a line of podjail's log (the
// message follows the time and level) with msg in it.
func logged(msg string) func(string) bool {
	return func(line string) bool { return strings.Contains(line, msg) }
}
