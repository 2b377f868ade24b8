package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/selinux/go-selinux"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/sandbox"
)

// TestQuadletServiceJudges deploys podjail as its own container: it builds
// the image of the repository's Containerfile from the payload's binaries,
// installs contrib/quadlet's units where docs/service.md says (rootful:
// /etc/containers/systemd and the system's podjail.socket; rootless:
// ~/.config/containers/systemd with rootless.conf, and the user's socket),
// plus a drop-in mounting the example problems at their own path, and has
// quadlet's generator check them (--dryrun). Then only the socket is
// started: a connection to it starts the containerised service, which
// judges the A+B example's wrong.c: WA on the 4 tests, the example's
// checker built and run as in podjail's own process (TestJudgeExampleAPlusB
// judges accepted.c and pe.c with it; wrong.c is judged here only).
// Stopped, the unit ends cleanly, its container is gone, and no run is
// left.
func TestQuadletServiceJudges(t *testing.T) {
	_, _ = quadletServiceJudges(t, hosttest.Podman(t))
}

// quadletServiceJudges is TestQuadletServiceJudges in env; it returns the
// SELinux labels of the isolate runs' programs and of the shim's copy the
// runs executed (empty without SELinux).
func quadletServiceJudges(t *testing.T, env hosttest.Env) (labels []string, shimLabel string) {
	payload := os.Getenv("PODJAIL_PAYLOAD")
	if payload == "" {
		t.Fatal("PODJAIL_PAYLOAD is unset: the units and the Containerfile come from the payload")
	}
	const image = "localhost/podjail:latest"
	systemctl := []string{"systemctl"}
	gen := []string{"/usr/lib/systemd/system-generators/podman-system-generator", "--dryrun"}
	quadlets, units := "/etc/containers/systemd", "/run/systemd/system"
	hostDir := "/var/lib/podjail" // %S/podjail
	if env.Rootless {
		systemctl = append(systemctl, "--user")
		gen = append(gen, "--user")
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		quadlets = filepath.Join(home, ".config", "containers", "systemd")
		units = filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "systemd", "user")
		state := os.Getenv("XDG_STATE_HOME")
		if state == "" {
			state = filepath.Join(home, ".local", "state")
		}
		hostDir = filepath.Join(state, "podjail")
	}
	ctl := func(args ...string) string {
		out, err := exec.Command(systemctl[0], append(systemctl[1:], args...)...).CombinedOutput()
		if err != nil && args[0] != "is-active" {
			t.Fatalf("%v %v: %v\n%s", systemctl, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	since := time.Now().Format("2006-01-02 15:04:05")

	// The image, from the payload's static binaries.
	began := time.Now()
	if out, err := exec.Command("podman", "build", "-q", "-t", image, "-f", filepath.Join(payload, "Containerfile"),
		filepath.Join(payload, "bin")).CombinedOutput(); err != nil {
		t.Fatalf("podman build: %v\n%s", err, out)
	}
	t.Logf("podman build of %s: %v", image, time.Since(began).Round(time.Millisecond))

	// The units, and a drop-in with the problems' mount.
	problems, _ := judgeFiles(t, env)
	problems, err := filepath.Abs(problems)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(payload, "contrib-quadlet")
	dropins := filepath.Join(quadlets, "podjail.container.d")
	install := map[string]string{
		filepath.Join(quadlets, "podjail.container"): filepath.Join(src, "podjail.container"),
		filepath.Join(units, "podjail.socket"):       filepath.Join(src, "podjail.socket"),
	}
	if env.Rootless {
		install[filepath.Join(dropins, "rootless.conf")] = filepath.Join(src, "podjail.container.d", "rootless.conf")
	}
	for _, d := range []string{dropins, units} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = exec.Command(systemctl[0], append(systemctl[1:], "stop", "podjail.socket", "podjail.service")...).Run()
		t.Logf("service journal:\n%s", journalSince(systemctl, since))
		if b, err := os.ReadFile(filepath.Join(hostDir, "service.log")); err == nil {
			t.Logf("service log:\n%s", b)
		}
		for dst := range install {
			_ = os.Remove(dst)
		}
		_ = os.RemoveAll(dropins)
		_ = os.RemoveAll(hostDir)
		_ = exec.Command(systemctl[0], append(systemctl[1:], "daemon-reload")...).Run()
		_ = exec.Command(systemctl[0], append(systemctl[1:], "reset-failed", "podjail.service", "podjail.socket")...).Run()
		if out, err := exec.Command("podman", "rmi", "-f", image).CombinedOutput(); err != nil {
			t.Logf("podman rmi %s: %v\n%s", image, err, out)
		}
	})
	for dst, from := range install {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The service's log goes to a file too: a rootless test cannot read
	// the user's journal.
	serviceLog := filepath.Join(hostDir, "service.log")
	// The isolate front's boxes are under boxes, which the unit mounts as
	// docs/service.md says a judge's box directory must be.
	boxes := t.TempDir()
	_ = os.Chmod(boxes, 0o777)
	// Metrics on, as docs/service.md's quadlet drop-in turns them on: a
	// socket in %t/podjail, which the host shares at the same path.
	dropin := fmt.Sprintf("[Container]\nVolume=%s:%s:ro\nVolume=%s:%s\nEnvironment=PODJAIL_LOG_LEVEL=debug PODJAIL_LOG_FILE=%s\nExec=serve --metrics %%t/podjail/metrics.sock\n",
		problems, problems, boxes, boxes, serviceLog)
	if err := os.WriteFile(filepath.Join(dropins, "test.conf"), []byte(dropin), 0o644); err != nil {
		t.Fatal(err)
	}

	// Quadlet's generator accepts them.
	out, err := exec.Command(gen[0], gen[1:]...).CombinedOutput()
	t.Logf("%v:\n%s", gen, out)
	if err != nil {
		t.Fatalf("the quadlet generator refused the units: %v", err)
	}
	wantArgs := []string{"podjail.service---", image, "--pid=host", problems + ":" + problems + ":ro"}
	if env.Rootless {
		wantArgs = append(wantArgs, "keep-id", "%t/bus:%t/bus")
	}
	for _, s := range wantArgs {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("the generated podjail.service has no %q", s)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	ctl("daemon-reload")
	ctl("start", "podjail.socket")
	if st := ctl("is-active", "podjail.service"); st == "active" {
		t.Fatalf("podjail.service is %s before any call: want it started by its socket", st)
	}

	// A connection to the socket starts the service; it answers once set
	// up, which under emulation took up to 35 s (podman info alone 21 s),
	// more than a judge waits for a service (sandbox.Dial: 30 s).
	began = time.Now()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, closeFn, err := sandbox.Dial(ctx, sandbox.DefaultSocket())
		cancel()
		if err == nil {
			_ = closeFn()
			break
		}
		if time.Since(began) > 3*time.Minute {
			t.Fatalf("the service does not answer on its socket after %v: %v", time.Since(began).Round(time.Second), err)
		}
		t.Logf("the service does not answer yet (%v): %v", time.Since(began).Round(time.Second), err)
		time.Sleep(time.Second)
	}
	t.Logf("the socket-activated service answered after %v", time.Since(began).Round(time.Millisecond))

	// One judge through it: wrong.c is WA on every test of the four, its
	// output read and checked by the problem's checker, built too (in
	// process TestJudgeExampleAPlusB builds it for accepted.c and pe.c;
	// wrong.c's WA is proved here only): 43 where 42 is expected. One judge
	// only: the image's build and the service's start already cost most of
	// the test's time under emulation.
	dir := filepath.Join(problems, "aplusb")
	began = time.Now()
	r := judgeWithin(3*time.Minute, env, "--service", sandbox.DefaultSocket(), dir, filepath.Join(dir, "solutions", "wrong.c"))
	t.Logf("wrong.c through the containerised service (%v): exit %d, %s (%s), %d tests\n%s",
		time.Since(began).Round(time.Millisecond), r.code, r.res.Verdict, r.res.Note, len(r.res.Tests), r.log)
	if r.err != nil || r.res.Verdict != plugin.WA || r.code != exitRejected || len(r.res.Tests) != 4 {
		t.Errorf("wrong.c through the containerised service: %v, verdict %s (%s), exit %d, %d tests; want WA, exit %d, 4 tests (as in process)",
			r.err, r.res.Verdict, r.res.Note, r.code, len(r.res.Tests), exitRejected)
	}
	for _, tr := range r.res.Tests {
		if tr.Verdict != plugin.WA {
			t.Errorf("test %s: %s (%s), want WA", tr.Name, tr.Verdict, tr.Note)
		}
	}
	if !strings.Contains(r.res.Note, "found 43") {
		t.Errorf("the judgement's note %q does not say the program's answer, 43", r.res.Note)
	}
	if st := ctl("is-active", "podjail.service"); st != "active" {
		t.Errorf("podjail.service is %s after the judge: it did not go through it", st)
	}
	msock := filepath.Join(filepath.Dir(sandbox.DefaultSocket()), "metrics.sock")
	m := scrapeMetrics(t, msock)
	for _, c := range []struct {
		name, label string
		want        float64
	}{{"podjail_judges_total", "verdict=WA", 1}, {"podjail_tests_total", "verdict=WA", 4}, {"podjail_internal_errors_total", "cause=runtime", 0}} {
		if v := metricValue(m, c.name, c.label); v != c.want {
			t.Errorf("the containerised service's metrics: %s{%s} = %v, want %v", c.name, c.label, v, c.want)
		}
	}
	labels = isolateThroughQuadlet(t, env, boxes, serviceLog)
	ps, err := exec.Command("podman", "ps", "--filter", "name=^systemd-podjail$", "--format", "{{.Names}} {{.Image}}").CombinedOutput()
	t.Logf("the service's container: %s", ps)
	if err != nil || !strings.Contains(string(ps), image) {
		t.Errorf("no container of %s runs podjail.service: %v %s", image, err, ps)
	}
	// The runs mounted the shim podjail copied out of its image.
	want, _ := os.ReadFile(filepath.Join(payload, "bin", "podjail-shim"))
	if got, err := os.ReadFile(filepath.Join(hostDir, "podjail-shim")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s/podjail-shim is not the image's shim: %v", hostDir, err)
	}
	shimLabel, _ = selinux.FileLabel(filepath.Join(hostDir, "podjail-shim"))

	ctl("stop", "podjail.socket", "podjail.service")
	if res := ctl("show", "-p", "Result", "--value", "podjail.service"); res != "success" {
		t.Errorf("podjail.service stopped with result %q, want success", res)
	}
	if out, err := exec.Command("podman", "ps", "-a", "-q", "--filter", "name=^systemd-podjail$").CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("the service's container is left after its unit stopped: %v %s", err, out)
	}
	if _, err := os.Stat(sandbox.DefaultSocket()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after its unit stopped: %v", err)
	}
	if _, err := os.Stat(msock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the metrics socket is still there after its unit stopped: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(hostDir, "tmp", "*")); len(left) != 0 {
		t.Errorf("temporary files left in %s/tmp: %v", hostDir, left)
	}
	assertNothingLeft(t, env, "")
	return labels, shimLabel
}

// isolateThroughQuadlet: the isolate front, called as a judge calls it,
// runs through the containerised service when the box's directory is
// mounted in it. Two runs of one command each make the next directory in
// the box (copied in and back); the second is taken armed ahead. It
// returns the programs' SELinux labels, as each wrote it.
func isolateThroughQuadlet(t *testing.T, env hosttest.Env, boxes, serviceLog string) (labels []string) {
	extra := []string{"PODJAIL_SERVICE=" + sandbox.DefaultSocket()}
	if r := isolateWith(t, env, boxes, extra, nil, "-b", "3", "--init"); r.code != 0 {
		t.Fatalf("isolate --init: exit %d\n%s", r.code, r.stderr)
	}
	box := filepath.Join(boxes, "3", "box")
	// Each run makes the next directory, which it keeps to itself (0700),
	// and a file in it only it may read (0600): the caller must get both
	// back as its own, rootless too, where the service in its container
	// has no way to chown (no podman unshare there): the shim gives them.
	script := `umask 077; d="d$(( $(ls -d d* 2>/dev/null | wc -l) + 1 ))"; mkdir "$d" && echo "made $d" > "$d/f"; cat /proc/self/attr/current > "$d/label" 2>/dev/null; true`
	for i := 1; i <= 2; i++ {
		r := isolateWith(t, env, boxes, extra, nil, "-b", "3", "-s", "-p", "--run", "--", "/bin/sh", "-c", script)
		d := "d" + strconv.Itoa(i)
		got, err := os.ReadFile(filepath.Join(box, d, "f"))
		if r.code != 0 || err != nil || string(got) != "made "+d+"\n" || strings.Contains(r.stderr, "in this process") {
			t.Errorf("isolate --run %d through the containerised service: exit %d, %s/f %q: %v\n%s", i, r.code, d, got, err, r.stderr)
		}
		for _, p := range []string{filepath.Join(box, d), filepath.Join(box, d, "f")} {
			if fi, err := os.Lstat(p); err != nil || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Getuid()) {
				t.Errorf("%s is not the caller's (uid %d) after the run: %v", p, os.Getuid(), err)
			}
		}
		label, _ := os.ReadFile(filepath.Join(box, d, "label"))
		labels = append(labels, strings.TrimRight(string(label), "\x00\n"))
	}
	if r := isolateWith(t, env, boxes, extra, nil, "-b", "3", "--cleanup"); r.code != 0 {
		t.Errorf("isolate --cleanup: exit %d\n%s", r.code, r.stderr)
	}
	if log, _ := os.ReadFile(serviceLog); !bytes.Contains(log, []byte("ahead=true")) {
		t.Errorf("the containerised service took no isolate run armed ahead:\n%s", log)
	}
	return labels
}

// judgeWithin runs `podjail judge --json ARGS`, killed after d (no t: it
// runs off the test goroutine).
func judgeWithin(d time.Duration, env hosttest.Env, args ...string) judged {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.Podjail, append([]string{"judge", "--json"}, args...)...)
	var log bytes.Buffer
	cmd.Stderr = &log
	out, err := cmd.Output()
	r := judged{log: log.Bytes()}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && ctx.Err() == nil {
		r.code = exitErr.ExitCode()
	} else if err != nil {
		r.err = err
		return r
	}
	if jerr := json.Unmarshal(out, &r.res); jerr != nil {
		r.err = fmt.Errorf("exit %d, stdout not a judgement: %v", r.code, jerr)
	}
	return r
}

// journalSince is what the podjail service logged since a local time.
func journalSince(systemctl []string, since string) string {
	unit := []string{"-u", "podjail.service"}
	if len(systemctl) > 1 {
		unit = []string{"--user-unit", "podjail.service"}
	}
	out, _ := exec.Command("journalctl", append([]string{"--no-pager", "-o", "cat", "--since", since}, unit...)...).CombinedOutput()
	return string(out)
}
