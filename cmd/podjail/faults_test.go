package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
)

// The host misbehaving under a judge (issue 15, docs/faults.md): what the
// judge says is never a verdict against the submission, and nothing is
// left behind.

// judgeInterfered runs `podjail judge --json ARGS` with env2 added to its
// environment, calls interfere once a line of its stderr is marked
// (firstVerdict: the first test's verdict is out), and returns the
// judgement, the exit code and the judge's stderr.
func judgeInterfered(t *testing.T, env hosttest.Env, env2 []string, mark func(line string) bool, interfere func(), args ...string) (plugin.JudgeResult, int, string) {
	t.Helper()
	cmd := exec.Command(env.Podjail, append([]string{"judge", "--json"}, args...)...)
	cmd.Env = append(os.Environ(), env2...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	rest := startUntil(t, cmd, func(line string) bool {
		if mark(line) {
			interfere()
			return true
		}
		return false
	})
	log := rest()
	code := 0
	var exitErr *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("judge: exit %d\n%s", code, log)
	var res plugin.JudgeResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("judgement is not JSON (exit %d): %v\n%s", code, err, stdout.String())
	}
	for _, tr := range res.Tests {
		t.Logf("  test %s: %s %.3f s (%s)", tr.Name, tr.Verdict, tr.Time.Seconds(), tr.Note)
	}
	return res, code, log
}

// wantIE checks a judgement ended IE (exit 1), with a test or the judge's
// note containing what, and no test judged against the submission.
func wantIE(t *testing.T, res plugin.JudgeResult, code int, what string) {
	t.Helper()
	if res.Verdict != plugin.IE || code != exitFailure {
		t.Errorf("judgement %s (%s), exit %d; want IE, exit %d", res.Verdict, res.Note, code, exitFailure)
	}
	named := strings.Contains(res.Note, what)
	for _, tr := range res.Tests {
		named = named || (tr.Verdict == plugin.IE && strings.Contains(tr.Note, what))
		if tr.Verdict != plugin.AC && tr.Verdict != plugin.IE {
			t.Errorf("test %s: %s (%s): a verdict against the submission for a failure of the host", tr.Name, tr.Verdict, tr.Note)
		}
	}
	if !named {
		t.Errorf("no IE note says %q", what)
	}
}

// firstVerdict marks the judge's line giving the first test's verdict.
var firstVerdict = hasPrefix("test 1/")

func systemctl(args ...string) *exec.Cmd {
	if os.Geteuid() != 0 {
		args = append([]string{"--user"}, args...)
	}
	return exec.Command("systemctl", args...)
}

// restartPodman restarts the Podman service of the test's user; it is
// back when this returns.
func restartPodman(t *testing.T) {
	if out, err := systemctl("restart", "podman.service").CombinedOutput(); err != nil {
		t.Errorf("restart Podman: %v\n%s", err, out)
	}
}

// wantSurvived checks a judgement through a fault of the host that a run
// under way need not see: AC (exit 0), or IE (exit 1) with a note naming
// what for a call that met it; never a verdict against the submission.
func wantSurvived(t *testing.T, res plugin.JudgeResult, code int, what string) {
	t.Helper()
	switch {
	case res.Verdict == plugin.AC && code == exitOK:
	case res.Verdict == plugin.IE:
		wantIE(t, res, code, what)
	default:
		t.Errorf("judgement %s (%s), exit %d; want AC, or IE naming %q", res.Verdict, res.Note, code, what)
	}
	for _, tr := range res.Tests {
		if tr.Verdict != plugin.AC && tr.Verdict != plugin.IE {
			t.Errorf("test %s: %s (%s): a verdict against the submission for a failure of the host", tr.Name, tr.Verdict, tr.Note)
		}
	}
}

// TestFaultPodmanRestartMidJudge restarts the Podman service while a test
// runs (a 4 s nap, under the 24 s of no progress, armed ahead and given its
// go before), at the untimed limit (at 1 s a loaded emulated host once
// charged the first test's exit 0 1.2 s: TLE). A shimmed run's go, stdout and report go through its pipes,
// not through Podman, and conmon outlives the service's restart: the test
// under way is AC. A later test whose container was being made as Podman
// went down is IE naming Podman (the judge stops there; it does not
// retry); never WA or TLE; once Podman is back nothing of the judge is
// left.
func TestFaultPodmanRestartMidJudge(t *testing.T) {
	env := hosttest.Podman(t)
	nap := testProgram + " nap 4"
	dir, langs, src := execProblem(t, env, untimed, []string{testProgram + " exit 0", nap, nap, nap})
	res, code, _ := judgeInterfered(t, env, nil, firstVerdict, func() { restartPodman(t) },
		"--languages", langs, "--lang", "exec", "--parallel", "1", dir, src)
	wantSurvived(t, res, code, "Podman")
	if len(res.Tests) < 2 || res.Tests[1].Verdict != plugin.AC {
		t.Errorf("the test under way as Podman restarted was not AC: %+v", res.Tests)
	}
	assertNothingLeft(t, env, "")
}

// TestFaultPodmanRestartMidBuild restarts the Podman service while the
// submission builds: a "compiler" that sleeps 10 s in the C image, so
// that the build is in flight for certain once the runner sent it the go
// (its debug log says so). The build's report comes through its status
// pipe, and Podman's wait on the container is answered once the service
// is back (the VM's logs: 21.4 s after the go with a 20 s sleep), so the
// build goes on and the judge is AC; a call that met the restart makes it
// IE naming Podman with no test run. Never CE; once Podman is back
// nothing of the build is left.
func TestFaultPodmanRestartMidBuild(t *testing.T) {
	env := hosttest.Podman(t)
	c, err := lang.Default().Lookup("c11")
	if err != nil {
		t.Fatal(err)
	}
	dir, langs, src := execProblem(t, env, untimed, []string{testProgram + " exit 0"})
	slow := fmt.Sprintf("slowbuild:\n  build_image: %s\n  run_image: %s\n  source: prog.exec\n"+
		"  compile: [/usr/bin/sleep, \"10\"]\n  artefacts: [prog.exec]\n  run: [%s, exec-input]\n", c.BuildImage, env.Image, testProgram)
	data, err := os.ReadFile(langs)
	if err == nil {
		err = os.WriteFile(langs, append(data, slow...), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, code, _ := judgeInterfered(t, env, []string{"PODJAIL_LOG_LEVEL=debug"}, logged("go sent"), func() { restartPodman(t) },
		"--languages", langs, "--lang", "slowbuild", dir, src)
	wantSurvived(t, res, code, "Podman")
	if res.Verdict == plugin.IE && len(res.Tests) > 0 {
		t.Errorf("%d tests judged after a build that did not finish", len(res.Tests))
	}
	if res.Verdict == plugin.AC && (!res.Build.OK || len(res.Tests) != 1) {
		t.Errorf("AC with the build %+v and %d tests", res.Build, len(res.Tests))
	}
	assertNothingLeft(t, env, "")
}

// TestFaultImageRemovedMidJudge removes the language's image (a tag of the
// test image) once the first test is judged: the tests whose containers
// are made after it are IE saying the image is missing and how to get it
// back.
func TestFaultImageRemovedMidJudge(t *testing.T) {
	env := hosttest.Podman(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	tagged := "localhost/podjail-fault-" + hex.EncodeToString(b) + ":latest"
	if out, err := exec.Command("podman", "tag", env.Image, tagged).CombinedOutput(); err != nil {
		t.Fatalf("podman tag: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("podman", "rmi", tagged).Run() })
	var lines []string
	for range 8 {
		lines = append(lines, testProgram+" exit 0")
	}
	dir, langs, src := execProblem(t, env, untimed, lines)
	data, err := os.ReadFile(langs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(langs, []byte(strings.ReplaceAll(string(data), env.Image, tagged)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, code, _ := judgeInterfered(t, env, nil, firstVerdict, func() {
		if out, err := exec.Command("podman", "rmi", tagged).CombinedOutput(); err != nil {
			t.Errorf("podman rmi: %v\n%s", err, out)
		}
	}, "--languages", langs, "--lang", "exec", "--parallel", "1", dir, src)
	wantIE(t, res, code, "is not in this Podman's storage")
	assertNothingLeft(t, env, "")
}

// TestFaultTmpFull judges with $TMPDIR on a full filesystem (a 1 MiB
// tmpfs, filled): IE naming the full directory's error, nothing left.
// Mounting needs root: the rootful pass runs it.
func TestFaultTmpFull(t *testing.T) {
	env := hosttest.Podman(t)
	if os.Geteuid() != 0 {
		t.Skip("mounts a small tmpfs, which needs root: the rootful pass runs this test")
	}
	tmp := t.TempDir()
	if err := syscall.Mount("tmpfs", tmp, "tmpfs", 0, "size=1m,mode=0755"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(tmp, syscall.MNT_DETACH) })
	filler, err := os.Create(filepath.Join(tmp, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	_ = filler.Close()
	dir, langs, src := execProblem(t, env, untimed, []string{testProgram + " exit 0", testProgram + " exit 0"})
	res, code, _ := judgeInterfered(t, env, []string{"TMPDIR=" + tmp}, firstVerdict, func() {}, "--languages", langs, "--lang", "exec", dir, src)
	wantIE(t, res, code, "no space left on device")
	assertNothingLeft(t, env, "")
}

// busProxy stands between the runner and its D-Bus bus (the system bus;
// rootless, the user's): pointed at the proxy's socket by env, the runner
// goes through it to the bus, until hangUp cuts every connection made so
// far, which to the runner is the bus hanging up on it (restarted), and
// the bus and everyone else on it are left alone.
type busProxy struct {
	env string // NAME=VALUE for the runner
	l   net.Listener

	mu    sync.Mutex
	open  []net.Conn
	dials int
}

func startBusProxy(t *testing.T, rootless bool) *busProxy {
	t.Helper()
	name, addr := "DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/run/dbus/system_bus_socket"
	if rootless {
		name, addr = "DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "bus")
	}
	if v := os.Getenv(name); v != "" {
		addr = v
	}
	bus, ok := strings.CutPrefix(addr, "unix:path=")
	if !ok {
		t.Fatalf("%s=%s: the proxy goes to a unix:path= address only", name, addr)
	}
	bus, _, _ = strings.Cut(bus, ",")
	sock := filepath.Join(t.TempDir(), "bus")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p := &busProxy{env: name + "=unix:path=" + sock, l: l}
	t.Cleanup(func() { l.Close(); p.hangUp() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("unix", bus)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.open, p.dials = append(p.open, c, u), p.dials+1
			p.mu.Unlock()
			go pass(c, u)
			go pass(u, c)
		}
	}()
	return p
}

func pass(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// hangUp cuts every connection made so far and returns how many there were.
func (p *busProxy) hangUp() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		c.Close()
	}
	p.open = nil
	return p.dials
}

func (p *busProxy) dialled() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials
}

// TestFaultBusDroppedMidJudge cuts the runner's D-Bus connection to
// systemd (the systemd driver makes and removes each run's parent over
// it) once the first test is judged, through a busProxy. With the bus
// still there the runner connects again and the judge goes on: every test
// AC, every parent removed by the run it was made for. With the bus gone,
// the tests that need a parent made are IE naming D-Bus, never a verdict,
// and once the bus is back the next podjail to start removes the parents
// the judge could not.
func TestFaultBusDroppedMidJudge(t *testing.T) {
	env := hosttest.Podman(t)
	if env.CgroupManager != "systemd" {
		t.Skipf("Podman's cgroup manager is %s: the runner uses no D-Bus", env.CgroupManager)
	}
	// At the first verdict the next two tests are armed (their parents
	// made): the fourth is made after the cut.
	lines := make([]string, 4)
	for i := range lines {
		lines[i] = testProgram + " exit 0"
	}
	dir, langs, src := execProblem(t, env, untimed, lines)
	judge := func(t *testing.T, bus *busProxy, interfere func()) (plugin.JudgeResult, int, string) {
		return judgeInterfered(t, env, []string{bus.env}, firstVerdict, interfere,
			"--languages", langs, "--lang", "exec", "--parallel", "1", dir, src)
	}
	t.Run("bus back", func(t *testing.T) {
		bus := startBusProxy(t, env.Rootless)
		var before int
		res, code, log := judge(t, bus, func() { before = bus.hangUp() })
		if res.Verdict != plugin.AC || code != exitOK || len(res.Tests) != len(lines) {
			t.Errorf("judgement %s (%s), exit %d, %d tests; want AC, exit %d, %d tests", res.Verdict, res.Note, code, len(res.Tests), exitOK, len(lines))
		}
		if before == 0 || bus.dialled() == before {
			t.Errorf("the runner dialled the bus %d times through the proxy before the cut and %d after: the cut was not met", before, bus.dialled()-before)
		}
		if strings.Contains(log, "not removed") {
			t.Error("a run's cleanup failed after the cut (see the log): the runner lost a request with the connection")
		}
		assertNothingLeft(t, env, "")
	})
	t.Run("bus gone", func(t *testing.T) {
		bus := startBusProxy(t, env.Rootless)
		res, code, _ := judge(t, bus, func() { bus.l.Close(); bus.hangUp() })
		wantIE(t, res, code, cgroupdrv.ErrBusUnreachable.Error())
		runJSON(t, env, nil, "exit", "0") // starts on the bus itself, sweeping; its cleanup checks nothing is left
	})
}

// TestFaultDocMatchesTests keeps docs/faults.md's table and the tests
// together: every test a row names exists, every TestFault test has a row.
func TestFaultDocMatchesTests(t *testing.T) {
	if hosttest.Required() {
		t.Skip("the sources are not in the test VM; this test runs with go test in the repository")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "faults.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := attackTable(string(doc), "fault")
	if err != nil {
		t.Fatalf("docs/faults.md: %v", err)
	}
	funcs, _ := testFuncs(t)
	inTable := map[string]bool{}
	for _, r := range rows {
		inTable[r.test] = true
		if !funcs[r.test] {
			t.Errorf("docs/faults.md: the row %q names %s, which is no test function of this package", r.attack, r.test)
		}
	}
	for f := range funcs {
		if strings.HasPrefix(f, "TestFault") && f != "TestFaultDocMatchesTests" && !inTable[f] {
			t.Errorf("docs/faults.md has no row for %s", f)
		}
	}
}
