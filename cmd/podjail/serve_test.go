package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
)

// startService starts `podjail serve` on a socket of its own and returns
// the socket once the service says it serves, and a function that sends
// SIGTERM and waits for its exit.
func startService(t *testing.T, env hosttest.Env, args ...string) (sock string, stop func() (int, string)) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "podjail.sock")
	return sock, startServiceAt(t, env, sock, syscall.SIGTERM, args...)
}

// startServiceAt is startService on the socket sock, stopped with sig.
func startServiceAt(t *testing.T, env hosttest.Env, sock string, sig syscall.Signal, args ...string) (stop func() (int, string)) {
	t.Helper()
	// The test image is no language's: runs of it (podjail run, the
	// fronts with $PODJAIL_ISOLATE_IMAGE) are allowed as an operator would.
	cmd := exec.Command(env.Podjail, append([]string{"serve", "--listen", sock, "--image", env.Image}, args...)...)
	cmd.Env = append(os.Environ(), "PODJAIL_LOG_LEVEL=debug")
	rest := startUntil(t, cmd, func(line string) bool { return strings.Contains(line, "serving") })
	stopped := false
	stop = func() (int, string) {
		stopped = true
		_ = cmd.Process.Signal(sig)
		log := rest()
		err := cmd.Wait()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		}
		return code, log
	}
	t.Cleanup(func() {
		if !stopped {
			code, out := stop()
			t.Logf("service: exit %d\n%s", code, out)
		}
	})
	return stop
}

// TestServeJudgesLikeInProcess judges one submission in this process and
// through `podjail serve`: the same verdicts, two tests at once both ways.
// Then the service is stopped mid-judge: the judge through it ends as a
// failure of ours (exit 1, never a verdict), the service exits 0 and
// leaves no container, cgroup or socket.
func TestServeJudgesLikeInProcess(t *testing.T) {
	env := hosttest.Podman(t)
	lines := []string{testProgram + " exit 0", testProgram + " exit 3", "/hostile/mallochog", testProgram + " exit 0"}
	dir, langs, src := execProblem(t, env, untimed, lines)
	sock, stop := startService(t, env, "--languages", langs, "--drain", "2s")

	here, hereCode := judgeJSON(t, env, "--service", "none", "--languages", langs, "--lang", "exec", "--parallel", "2", dir, src)
	there, thereCode := judgeJSON(t, env, "--service", sock, "--lang", "exec", "--parallel", "2", dir, src)
	if hereCode != thereCode || here.Verdict != there.Verdict || len(here.Tests) != len(lines) || len(there.Tests) != len(lines) {
		t.Fatalf("in process: exit %d %s, %d tests; through the service: exit %d %s, %d tests; want the same, %d tests",
			hereCode, here.Verdict, len(here.Tests), thereCode, there.Verdict, len(there.Tests), len(lines))
	}
	want := []plugin.Verdict{plugin.AC, plugin.RTE, plugin.MLE, plugin.AC}
	for i := range lines {
		if here.Tests[i].Verdict != want[i] || there.Tests[i].Verdict != want[i] {
			t.Errorf("test %d: %s in process, %s through the service; want %s", i+1, here.Tests[i].Verdict, there.Tests[i].Verdict, want[i])
		}
	}
	// A Kattis package's interactive validator through the service: its
	// arguments, its feedback directory, its rejection before the crash.
	problems, _ := judgeFiles(t, env)
	guess := filepath.Join(problems, "kattis-guess")
	if res, code := judgeJSON(t, env, "--service", sock, guess, filepath.Join(guess, "submissions", "wrong_answer", "crash_after_reject.c")); res.Verdict != plugin.WA || code != exitRejected || !strings.Contains(res.Note, "(at most 20 guesses)") {
		t.Errorf("kattis-guess through the service: %s (%s), exit %d; want WA with the validator's message", res.Verdict, res.Note, code)
	}
	if r := podjail(t, env, "judge", "--service", sock, "--languages", langs, "--lang", "exec", dir, src); r.code != exitUsage {
		t.Errorf("--languages through a service: exit %d, want %d (%s)", r.code, exitUsage, r.stderr)
	}

	// Stopped mid-judge: sleepers, two at once, the stop once the first
	// verdict is out.
	sleep := testProgram + " sleep"
	sdir, _, ssrc := execProblem(t, env, "1", []string{testProgram + " exit 0", sleep, sleep, sleep, sleep})
	judge := exec.Command(env.Podjail, "judge", "--service", sock, "--lang", "exec", "--parallel", "2", sdir, ssrc)
	jlog := startUntil(t, judge, hasPrefix("test 1/"))
	code, slog := stop()
	out := jlog() // all of stderr before Wait
	jres := judge.Wait()
	t.Logf("judge through the stopped service: %v\n%s\nservice: exit %d\n%s", jres, out, code, slog)
	var exitErr *exec.ExitError
	if !errors.As(jres, &exitErr) || exitErr.ExitCode() != exitFailure {
		t.Errorf("the judge through a stopped service ended with %v, want exit %d (a failure of ours)", jres, exitFailure)
	}
	if code != 0 {
		t.Errorf("the service exited %d after SIGTERM, want 0", code)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after the service stopped: %v", err)
	}
	assertNothingLeft(t, env, "")

	// SIGKILL'd mid-judge: the next service, started on the dead one's
	// stale socket, sweeps what it left when it starts and when it stops.
	sock2 := filepath.Join(t.TempDir(), "podjail.sock")
	tmp := t.TempDir()
	_ = os.Chmod(tmp, 0o755)
	kill := startServiceAt(t, env, sock2, syscall.SIGKILL, "--languages", langs, "--tmp", tmp)
	judge = exec.Command(env.Podjail, "judge", "--service", sock2, "--lang", "exec", "--parallel", "2", sdir, ssrc)
	jlog = startUntil(t, judge, hasPrefix("test 1/"))
	code, slog = kill()
	out = jlog()
	jres = judge.Wait()
	t.Logf("judge through the killed service: %v\n%s\nservice: exit %d\n%s", jres, out, code, slog)
	if !errors.As(jres, &exitErr) || exitErr.ExitCode() != exitFailure {
		t.Errorf("the judge through a killed service ended with %v, want exit %d", jres, exitFailure)
	}
	// Its directory (inputs, artefacts, armed runs' files) is left too.
	if left, _ := filepath.Glob(filepath.Join(tmp, "podjail-work-*")); len(left) != 1 {
		t.Errorf("the killed service's directory: found %v, want one", left)
	}
	stop3 := startServiceAt(t, env, sock2, syscall.SIGTERM, "--languages", langs, "--tmp", tmp)
	code, slog = stop3()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the services' --tmp after the next one stopped: %v", left)
	}
	if code != 0 {
		t.Errorf("the service after the killed one exited %d\n%s", code, slog)
	} else {
		t.Logf("the service after the killed one:\n%s", slog)
	}
	assertNothingLeft(t, env, "")
}

// TestServiceUnitsStartBySocket installs contrib/systemd's podjail.socket
// and podjail.service as runtime units (the system's as root, the user's
// rootless) and starts the socket alone. A judge given no --service finds
// it on the default socket, systemd starts the service at that connection,
// and the submission is judged there; its metrics (docs/service.md's
// drop-in) count that judge; stopping the units leaves nothing.
func TestServiceUnitsStartBySocket(t *testing.T) {
	env := hosttest.Podman(t)
	payload := os.Getenv("PODJAIL_PAYLOAD")
	if payload == "" {
		t.Fatal("PODJAIL_PAYLOAD is unset: the units come from the payload's contrib-systemd")
	}
	systemctl := []string{"systemctl"}
	units := "/run/systemd/system"
	if os.Geteuid() != 0 {
		systemctl = append(systemctl, "--user")
		units = filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "systemd", "user")
	}
	ctl := func(args ...string) string {
		out, err := exec.Command(systemctl[0], append(systemctl[1:], args...)...).CombinedOutput()
		if err != nil && args[0] != "is-active" {
			t.Fatalf("%v %v: %v\n%s", systemctl, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(units, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"podjail.socket", "podjail.service"} {
		b, err := os.ReadFile(filepath.Join(payload, "contrib-systemd", name))
		if err != nil {
			t.Fatal(err)
		}
		unit := strings.Replace(string(b), "ExecStart=/usr/local/bin/podjail serve", "ExecStart="+env.Podjail+" serve", 1)
		if err := os.WriteFile(filepath.Join(units, name), []byte(unit), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Metrics on, as docs/service.md's drop-in turns them on.
	dropins := filepath.Join(units, "podjail.service.d")
	if err := os.MkdirAll(dropins, 0o755); err != nil {
		t.Fatal(err)
	}
	dropin := "[Service]\nExecStart=\nExecStart=" + env.Podjail + " serve --metrics %t/podjail/metrics.sock\n"
	if err := os.WriteFile(filepath.Join(dropins, "metrics.conf"), []byte(dropin), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = exec.Command(systemctl[0], append(systemctl[1:], "stop", "podjail.socket", "podjail.service")...).Run()
		t.Logf("service journal:\n%s", journal(systemctl))
		_ = os.Remove(filepath.Join(units, "podjail.socket"))
		_ = os.Remove(filepath.Join(units, "podjail.service"))
		_ = os.RemoveAll(dropins)
		_ = exec.Command(systemctl[0], append(systemctl[1:], "daemon-reload")...).Run()
	})
	ctl("daemon-reload")
	ctl("start", "podjail.socket")
	if st := ctl("is-active", "podjail.service"); st == "active" {
		t.Fatalf("podjail.service is %s before any call: want it started by its socket", st)
	}

	// Not about time: Python's start alone took 0.53 s of processor time
	// once under emulation.
	dir := writeProblemFiles(t, map[string]string{
		"problem.yaml": "name: tiny\ntime_limit: 5\nmemory_limit: 64M\noutput_limit: 1M\n",
		"tests/1.in":   "19 23\n",
		"tests/1.ans":  "42\n",
	})
	src := filepath.Join(t.TempDir(), "aplusb.py")
	if err := os.WriteFile(src, []byte("a, b = map(int, input().split())\nprint(a + b)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, code := judgeJSON(t, env, dir, src)
	if res.Verdict != plugin.AC || code != exitOK || len(res.Tests) != 1 {
		t.Fatalf("through the socket-activated service: %s (%s), exit %d, %d tests; want AC, exit 0, 1 test", res.Verdict, res.Note, code, len(res.Tests))
	}
	if st := ctl("is-active", "podjail.service"); st != "active" {
		t.Errorf("podjail.service is %s after a judge: the judge did not go through it", st)
	}
	msock := filepath.Join(filepath.Dir(sandbox.DefaultSocket()), "metrics.sock")
	m := scrapeMetrics(t, msock)
	for _, c := range []struct {
		name, label string
	}{{"podjail_judges_total", "verdict=AC"}, {"podjail_tests_total", "verdict=AC"}} {
		if v := metricValue(m, c.name, c.label); v != 1 {
			t.Errorf("the unit's metrics: %s{%s} = %v, want 1", c.name, c.label, v)
		}
	}
	ctl("stop", "podjail.socket", "podjail.service")
	if _, err := os.Stat(msock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the metrics socket is still there after the service stopped: %v", err)
	}
	if _, err := os.Stat(sandbox.DefaultSocket()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after its unit stopped: %v", err)
	}
	assertNothingLeft(t, env, "")
}

// journal is what the podjail service logged in this boot.
func journal(systemctl []string) string {
	args := []string{"-b", "--no-pager", "-o", "cat", "-u", "podjail.service"}
	if len(systemctl) > 1 {
		args = []string{"-b", "--no-pager", "-o", "cat", "--user-unit", "podjail.service"}
	}
	out, _ := exec.Command("journalctl", args...).CombinedOutput()
	return string(out)
}

func TestServiceCheck(t *testing.T) {
	none := serviceCheck("/run/podjail/podjail.sock", false, sandbox.Capabilities{}, nil)
	dead := serviceCheck("/run/podjail/podjail.sock", true, sandbox.Capabilities{}, errors.New("connection refused"))
	up := serviceCheck("/run/podjail/podjail.sock", true, sandbox.Capabilities{Version: "v1", Host: sandbox.Host{PodmanVersion: "5.4.2", CgroupManager: "systemd", Shim: true}}, nil)
	if !none.OK || !strings.Contains(none.Detail, "optional") || !strings.Contains(none.Detail, "contrib/quadlet") {
		t.Errorf("no service: %+v, want OK and optional", none)
	}
	if dead.OK || !strings.Contains(dead.Fix, "podjail.socket") {
		t.Errorf("a socket nobody answers on: %+v, want a failure saying how to start the service", dead)
	}
	if !up.OK || !strings.Contains(up.Detail, "podjail v1, Podman 5.4.2") {
		t.Errorf("a service that answers: %+v", up)
	}
}

// TestServeSoakFourClients keeps one service busy with four clients at
// once, twice over (for $PODJAIL_SOAK, a duration, when set: the issue's
// soak is 10m): every judgement is the one expected (AC, RTE, AC: RTE,
// exit 3), the service logs no error, its open files do not grow and its
// memory stays flat, and, stopped, it leaves nothing.
func TestServeSoakFourClients(t *testing.T) {
	env := hosttest.Podman(t)
	soak := time.Duration(0)
	if v := os.Getenv("PODJAIL_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("PODJAIL_SOAK=%q: %v (want a duration such as 10m)", v, err)
		}
		soak = d
	}
	lines := []string{testProgram + " exit 0", testProgram + " exit 3", testProgram + " exit 0"}
	dir, langs, src := execProblem(t, env, untimed, lines)
	sock, stop := startService(t, env, "--languages", langs)
	pid := servicePID(t, sock)
	want := []plugin.Verdict{plugin.AC, plugin.RTE, plugin.AC}
	var first, last procFigures
	start := time.Now()
	for round := 1; round <= 2 || time.Since(start) < soak; round++ {
		for i, r := range judgeAtOnce(env, 4, "--service", sock, "--lang", "exec", dir, src) {
			ok := r.err == nil && r.code == exitRejected && r.res.Verdict == plugin.RTE && len(r.res.Tests) == len(want)
			for j := 0; ok && j < len(want); j++ {
				ok = r.res.Tests[j].Verdict == want[j]
			}
			if !ok {
				t.Errorf("round %d, client %d: %v, exit %d, %s (%s), %d tests; want RTE (AC, RTE, AC), exit %d\n%s",
					round, i+1, r.err, r.code, r.res.Verdict, r.res.Note, len(r.res.Tests), exitRejected, r.log)
			}
		}
		last = settledFigures(t, env, pid)
		if round == 1 {
			first = last
		}
		t.Logf("round %d at %s: service has %d open files and %d sockets, %d threads, %d KiB resident", round, time.Since(start).Round(time.Second), last.files, last.sockets, last.threads, last.rssKiB)
	}
	// After the first round everything the service keeps for its life
	// (connections, the profile, idle gRPC workers) exists; what grows
	// after it is a leak. The slack covers calls still closing.
	if last.files > first.files+4 {
		t.Errorf("open files (not sockets) of the service grew from %d after the first round to %d", first.files, last.files)
	}
	// Sockets come and go with the calls: the HTTP client keeps a
	// connection to Podman's socket idle for each call that ran at once
	// (until 90 s idle), so their count after a round swings (11 to 23
	// open files in all were seen after rounds of four clients); a leak
	// grows past that swing.
	if last.sockets > first.sockets+16 {
		t.Errorf("sockets of the service grew from %d after the first round to %d", first.sockets, last.sockets)
	}
	if last.rssKiB > first.rssKiB*3/2+16<<10 {
		t.Errorf("resident memory of the service grew from %d KiB after the first round to %d KiB", first.rssKiB, last.rssKiB)
	}
	code, log := stop()
	if code != 0 || strings.Contains(log, "[ERROR]") {
		t.Errorf("service: exit %d, want 0 and no error logged\n%s", code, log)
	}
	assertNothingLeft(t, env, "")
}

// servicePID is the process serving on sock, as the kernel tells the
// peer of a connection to it (SO_PEERCRED).
func servicePID(t *testing.T, sock string) int {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.(*net.UnixConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var cred *unix.Ucred
	if cerr := raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	return int(cred.Pid)
}

// settledFigures reads the service's figures once the containers of its
// runs are removed (a judge returns before they are: their removal is off
// its critical path), waiting up to a minute for that.
func settledFigures(t *testing.T, env hosttest.Env, pid int) procFigures {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		list, err := env.Client.ListByLabel(context.Background(), runner.LabelInstance)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d containers of the service still there a minute after the round", len(list))
			break
		}
	}
	return readProcFigures(t, pid)
}

// procFigures is what a soak watches of a process.
type procFigures struct {
	// files counts the open files that are not sockets, sockets the
	// sockets (its listener, its callers', its connections to Podman).
	files, sockets, threads int
	rssKiB                  int64
}

// readProcFigures reads pid's open files, threads and resident memory
// from /proc.
func readProcFigures(t *testing.T, pid int) procFigures {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var f procFigures
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			f.sockets++
		} else {
			f.files++
		}
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		switch k {
		case "VmRSS":
			f.rssKiB, _ = strconv.ParseInt(fields[0], 10, 64)
		case "Threads":
			f.threads, _ = strconv.Atoi(fields[0])
		}
	}
	if f.rssKiB == 0 || f.threads == 0 {
		t.Fatalf("/proc/%d/status has no VmRSS or Threads:\n%s", pid, status)
	}
	return f
}
