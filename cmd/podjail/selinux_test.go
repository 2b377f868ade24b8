package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/selinux/go-selinux"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
)

// The SELinux passes run these: make test-vm-selinux (security=selinux,
// Debian's refpolicy with its container module, permissive) and make
// test-vm-selinux-fedora (Fedora 41's targeted policy with container-selinux,
// enforcing, contrib/selinux's module installed before the runs).

// policyType is the loaded policy's name, SELINUXTYPE of /etc/selinux/config:
// "default" for Debian's refpolicy, "targeted" for Fedora's.
func policyType(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/etc/selinux/config")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "SELINUXTYPE="); ok {
			return v
		}
	}
	t.Fatal("/etc/selinux/config names no SELINUXTYPE")
	return ""
}

// label prints the process's SELinux label; with "hold" it then sleeps, so
// a test can look at the run while it is live.
func label(args []string) int {
	b, err := os.ReadFile("/proc/self/attr/current")
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		return 1
	}
	os.Stdout.WriteString(strings.TrimRight(string(b), "\x00\n") + "\n")
	if len(args) > 0 && args[0] == "hold" {
		time.Sleep(time.Hour)
	}
	return 0
}

// The runner's debug lines about levels; hclog quotes values holding ':'.
var (
	reservedRe = regexp.MustCompile(`SELinux level reserved: level="?([^"\s]+)"? held=(\d+)`)
	releasedRe = regexp.MustCompile(`SELinux level released: level="?([^"\s]+)"? held=(\d+)`)
	adoptedRe  = regexp.MustCompile(`SELinux levels adopted: labels="?([^"\n]*)"? held=(\d+)`)
)

// levelOf is the MCS level of a label "user:role:type:s0:cA,cB".
func levelOf(label string) string {
	f := strings.SplitN(label, ":", 4)
	if len(f) < 4 {
		return ""
	}
	return f[3]
}

func TestSELinuxDoctorSaysLevelsApply(t *testing.T) {
	env := hosttest.SELinux(t)
	r := podjail(t, env, "doctor")
	t.Logf("podjail doctor (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	if !strings.Contains(r.stdout, "every run gets its own MCS level") {
		t.Errorf("doctor does not say runs get their own level")
	}
	// guest-run.sh labelled the shim; the boolean is off until
	// TestSELinuxContribModule turns it on, and permissive keeps it a note.
	for _, want := range []string{"SELinux: shim label", ":container_ro_file_t:", "SELinux: cgroup boolean", "container_manage_cgroup"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not say %q", want)
		}
	}
	if r.code != exitOK {
		t.Errorf("doctor: exit %d on a host set up as contrib/selinux says (or permissive)", r.code)
	}
	// Fedora's pass installed the module before the tests: doctor sees it
	// (root reads the module store) and its rules in force.
	if policyType(t) == "targeted" {
		want := []string{"SELinux: podjail module", "container_t may enter container_ro_file_t", "container_t keeps setuid, setgid, chown"}
		if !env.Rootless {
			want = append(want, "podjail module installed")
		}
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("doctor does not say %q", w)
			}
		}
	}
}

func TestSELinuxRunGetsLevelFromPool(t *testing.T) {
	env := hosttest.SELinux(t)
	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	out := filepath.Join(t.TempDir(), "out")
	r := podjail(t, env, "run", "--image", env.Image, "--output", out, "--", testProgram, "label")
	got, _ := os.ReadFile(out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, got, r.stderr)
	}
	res := reservedRe.FindStringSubmatch(r.stderr)
	rel := releasedRe.FindStringSubmatch(r.stderr)
	if res == nil || rel == nil {
		t.Fatalf("no SELinux level reserved and released in the debug log:\n%s", r.stderr)
	}
	lbl := strings.TrimSpace(string(got))
	t.Logf("level %s; the program's label %s", res[1], lbl)
	if !strings.Contains(lbl, ":container_t:") || levelOf(lbl) != res[1] {
		t.Errorf("the program runs as %q, want container_t at the pool's level %s", lbl, res[1])
	}
	if rel[1] != res[1] || rel[2] != "0" {
		t.Errorf("released %s (held %s), want %s released and nothing held", rel[1], rel[2], res[1])
	}
	assertNothingLeft(t, env, "")
}

// TestSELinuxLevelsAdoptedAfterRestart: a new runner process adopts the
// level of a run another runner has live, and picks another.
func TestSELinuxLevelsAdoptedAfterRestart(t *testing.T) {
	env := hosttest.SELinux(t)
	dir := t.TempDir()
	holdOut := filepath.Join(dir, "hold")
	hold := exec.Command(env.Podjail, "run", "--image", env.Image, "--output", holdOut, "--", testProgram, "label", "hold")
	var holdErr bytes.Buffer
	hold.Stderr = &holdErr
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- hold.Wait() }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = hold.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			_ = hold.Process.Kill()
			<-done
			t.Errorf("the holding run did not end on SIGINT")
		}
	}
	defer stop()

	// The held run is live once its program has printed its label.
	var held string
	for deadline := time.Now().Add(3 * time.Minute); held == ""; {
		b, _ := os.ReadFile(holdOut)
		held = strings.TrimSpace(string(b))
		if held != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the holding run printed no label in 3 minutes:\n%s", holdErr.String())
		}
		select {
		case err := <-done:
			t.Fatalf("the holding run ended: %v\n%s", err, holdErr.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
	list, err := env.Client.ListByLabel(context.Background(), runner.LabelInstance)
	if err != nil || len(list) != 1 {
		t.Fatalf("want the holding run's container alone, got %v (%v)", list, err)
	}
	st, err := env.Client.Inspect(context.Background(), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.ProcessLabel != held {
		t.Errorf("inspect says %q, the program says %q", st.ProcessLabel, held)
	}

	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	out := filepath.Join(dir, "out")
	r := podjail(t, env, "run", "--image", env.Image, "--output", out, "--", testProgram, "label")
	adopted := adoptedRe.FindStringSubmatch(r.stderr)
	res := reservedRe.FindStringSubmatch(r.stderr)
	if r.code != 0 || adopted == nil || res == nil {
		t.Fatalf("second runner: exit %d, no adoption or reservation in its debug log:\n%s", r.code, r.stderr)
	}
	t.Logf("held run %s; second runner adopted %q, reserved %s", held, adopted[1], res[1])
	if !strings.Contains(" "+adopted[1]+" ", " "+held+" ") {
		t.Errorf("the second runner adopted %q, not the live run's %s", adopted[1], held)
	}
	if n, _ := strconv.Atoi(adopted[2]); n < 1 {
		t.Errorf("the second runner holds %d levels after adopting", n)
	}
	if res[1] == levelOf(held) {
		t.Errorf("the second runner reserved the live run's level %s", res[1])
	}
	stop()
	assertNothingLeft(t, env, "")
}

// TestSELinuxInteractiveRunsHoldDistinctLevels judges the interactive
// example, where the solution and the interactor are live together: at no
// time do two live runs share a level, and every level is given back.
func TestSELinuxInteractiveRunsHoldDistinctLevels(t *testing.T) {
	env := hosttest.SELinux(t)
	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	problems, _ := judgeFiles(t, env)
	dir := filepath.Join(problems, "guess")
	r := podjail(t, env, "judge", dir, filepath.Join(dir, "solutions", "accepted.c"))
	if r.code != exitOK {
		t.Fatalf("judge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	live := map[string]bool{}
	most, runs := 0, 0
	for _, line := range strings.Split(r.stderr, "\n") {
		if m := reservedRe.FindStringSubmatch(line); m != nil {
			if live[m[1]] {
				t.Errorf("level %s reserved while live", m[1])
			}
			live[m[1]] = true
			runs++
			most = max(most, len(live))
		} else if m := releasedRe.FindStringSubmatch(line); m != nil {
			if !live[m[1]] {
				t.Errorf("level %s released but not held", m[1])
			}
			delete(live, m[1])
		}
	}
	t.Logf("%d runs, at most %d live levels at once", runs, most)
	if runs < 7 || most < 2 {
		t.Errorf("%d runs with at most %d live at once; want builds plus 3 tests of 2 runs each, 2 live together", runs, most)
	}
	if len(live) != 0 {
		t.Errorf("levels never released: %v", live)
	}
}

// TestSELinuxShimEntryNeedsTheModule runs with the shim labelled as
// contrib/selinux's README does by hand, without the module: the policy
// denies container_t entering through container_ro_file_t, which is why
// the module has that rule (the pass is permissive, so the run goes on).
func TestSELinuxShimEntryNeedsTheModule(t *testing.T) {
	env := hosttest.SELinux(t)
	if env.Rootless {
		t.Skip("reads the kernel log for the denial: the rootful run of this test does it")
	}
	if pt := policyType(t); pt != "default" {
		// container-selinux's container.te: allow container_domain
		// container_ro_file_t:file entrypoint. Every run of the Fedora pass
		// enters its shim that way (TestSELinuxRunGetsLevelFromPool, ...).
		t.Skipf("the refpolicy's case: policy %q (Fedora's container-selinux) lets container_t enter container_ro_file_t itself", pt)
	}
	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	out := filepath.Join(t.TempDir(), "out")
	r := podjail(t, env, "run", "--image", env.Image, "--output", out, "--", testProgram, "label")
	res := reservedRe.FindStringSubmatch(r.stderr)
	if r.code != 0 || res == nil {
		t.Fatalf("exit %d, level %v\n%s", r.code, res, r.stderr)
	}
	assertNothingLeft(t, env, "")
	denials := denialsOf(t, res[1])
	found := false
	for _, d := range denials {
		t.Logf("denied: %s", d)
		found = found || (strings.Contains(d, "{ entrypoint }") && strings.Contains(d, ":container_ro_file_t:"))
	}
	if !found {
		t.Errorf("no entrypoint denial of the shim for the run at %s", res[1])
	}
}

// TestSELinuxInputIsRelabelledShared gives a run an input labelled with
// another level: Podman's "z" relabels it container_file_t:s0, which every
// run's level dominates, before the run reads it.
func TestSELinuxInputIsRelabelledShared(t *testing.T) {
	env := hosttest.SELinux(t)
	const other = "system_u:object_r:container_file_t:s0:c1,c2"
	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(in, []byte("an input\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := selinux.SetFileLabel(in, other); err != nil {
		t.Fatal(err)
	}
	r := podjail(t, env, "run", "--image", env.Image, "--input", in, "--output", out, "--", testProgram, "cat")
	got, _ := os.ReadFile(out)
	if r.code != 0 || string(got) != "an input\n" {
		t.Fatalf("exit %d, output %q\n%s", r.code, got, r.stderr)
	}
	assertNothingLeft(t, env, "")
	lbl, err := selinux.FileLabel(in)
	if err != nil || lbl != "system_u:object_r:container_file_t:s0" {
		t.Errorf("the input is labelled %q (%v) after the run, want container_file_t:s0", lbl, err)
	}
}

// denialsOf returns the kernel log's AVC denials of a process at level.
func denialsOf(t *testing.T, level string) []string {
	t.Helper()
	lines, err := kernelLog()
	if err != nil {
		t.Fatalf("read the kernel log: %v", err)
	}
	var out []string
	for _, line := range lines {
		if strings.Contains(line, "avc:") && strings.Contains(line, "denied") && strings.Contains(line, ":"+level+" ") {
			out = append(out, line)
		}
	}
	return out
}

// kernelLog returns the kernel log's messages (dmesg).
func kernelLog() ([]string, error) {
	b, err := exec.Command("dmesg").Output()
	if err != nil {
		return nil, fmt.Errorf("dmesg: %w", err)
	}
	return strings.Split(string(b), "\n"), nil
}

// TestSELinuxContribModule builds and installs contrib/selinux's module
// with the policy's devel Makefile, as its README says, installs the shim
// where the module labels it, and runs through that shim: the shim gets
// container_ro_file_t and the run is denied nothing.
func TestSELinuxContribModule(t *testing.T) {
	env := hosttest.SELinux(t)
	if env.Rootless {
		t.Skip("installs a policy module and a file under /usr: the rootful run of this test does it")
	}
	src := filepath.Join(os.Getenv("PODJAIL_PAYLOAD"), "contrib-selinux")
	work := t.TempDir()
	for _, f := range []string{"podjail.te", "podjail.fc"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatalf("the payload has no contrib/selinux: %v", err)
		}
		if err := os.WriteFile(filepath.Join(work, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		t.Logf("%s %s:\n%s", name, strings.Join(args, " "), out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// What the pass installed before the tests (the Fedora pass: the module,
	// the shim, the boolean, as the README says) stays after this test.
	mods, err := exec.Command("semodule", "-l").Output()
	if err != nil {
		t.Fatalf("semodule -l: %v", err)
	}
	// On Fedora's pass the runner installed it exactly so (its log says
	// how long semodule took); installing it again would only cost minutes.
	if slices.Contains(strings.Fields(string(mods)), "podjail") {
		t.Log("contrib/selinux's module is installed already: not again")
	} else {
		sh("make", "-f", "/usr/share/selinux/devel/Makefile", "podjail.pp")
		sh("semodule", "-i", "podjail.pp")
		t.Cleanup(func() { _ = exec.Command("semodule", "-r", "podjail").Run() })
	}

	const shimPath = "/usr/libexec/podjail/podjail-shim"
	b, err := os.ReadFile(filepath.Join(os.Getenv("PODJAIL_PAYLOAD"), "bin", "podjail-shim"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(shimPath)); os.IsNotExist(err) {
		t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(shimPath)) })
	}
	if err := os.MkdirAll(filepath.Dir(shimPath), 0o755); err != nil {
		t.Fatal(err)
	}
	// The Fedora pass installed this very shim, which the rootless pass's
	// runs execute meanwhile: rewriting it would be ETXTBSY.
	if have, _ := os.ReadFile(shimPath); !bytes.Equal(have, b) {
		if err := os.WriteFile(shimPath, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sh("restorecon", "-v", shimPath)
	lbl, err := selinux.FileLabel(shimPath)
	if err != nil || !strings.Contains(lbl, ":container_ro_file_t:") {
		t.Fatalf("the installed shim is labelled %q (%v), want container_ro_file_t", lbl, err)
	}

	if on, err := os.ReadFile("/sys/fs/selinux/booleans/container_manage_cgroup"); err != nil || !strings.HasPrefix(string(on), "1") {
		t.Cleanup(func() { _ = exec.Command("setsebool", "container_manage_cgroup", "off").Run() })
	}
	sh("setsebool", "container_manage_cgroup", "on")

	// A judge through the installed shim: a build, the runs, a checker.
	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	t.Setenv("PODJAIL_SHIM", shimPath)
	problems, _ := judgeFiles(t, env)
	dir := filepath.Join(problems, "aplusb")
	r := podjail(t, env, "judge", dir, filepath.Join(dir, "solutions", "accepted.c"))
	if r.code != exitOK {
		t.Fatalf("judge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	assertNothingLeft(t, env, "")
	levels := 0
	for _, m := range reservedRe.FindAllStringSubmatch(r.stderr, -1) {
		levels++
		for _, d := range denialsOf(t, m[1]) {
			// What the module is for: the run itself (container_t). A
			// denial to Podman's conmon on the run's files is the
			// distribution's Podman policy, logged, not the module's.
			if !strings.Contains(d, "scontext=system_u:system_r:container_t:") {
				t.Logf("not the run's (Podman's own policy): %s", d)
				continue
			}
			t.Errorf("denied to the run at %s: %s", m[1], d)
		}
	}
	t.Logf("%d runs, each at its own level", levels)
	if levels < 3 {
		t.Errorf("%d levels in the judge's debug log, want a build, runs and a checker", levels)
	}
}

// TestSELinuxArmedAheadThroughService: what a service arms ahead works
// under SELinux's labels: a judge's build (its sources unpacked by the
// shim from a file of the service's) and an isolate box copied into a
// directory of the service's and back. The second of each is taken armed
// ahead; the rootless pass fails on any denial of container_t.
func TestSELinuxArmedAheadThroughService(t *testing.T) {
	env := hosttest.SELinux(t)
	sock, stop := startService(t, env, "--drain", "2s")
	problems, _ := judgeFiles(t, env)
	dir := filepath.Join(problems, "aplusb")
	for i := 1; i <= 2; i++ {
		res, code := judgeJSON(t, env, "--service", sock, dir, filepath.Join(dir, "solutions", "accepted.c"))
		if res.Verdict != plugin.AC || code != exitOK {
			t.Errorf("judge %d through the service: %s (%s), exit %d; want AC", i, res.Verdict, res.Note, code)
		}
	}
	boxes := t.TempDir()
	_ = os.Chmod(boxes, 0o777)
	extra := []string{"PODJAIL_SERVICE=" + sock}
	if r := isolateWith(t, env, boxes, extra, nil, "-b", "5", "--init"); r.code != 0 {
		t.Fatalf("isolate --init: exit %d\n%s", r.code, r.stderr)
	}
	script := `mkdir "d$(( $(ls -d d* 2>/dev/null | wc -l) + 1 ))"`
	for i := 1; i <= 2; i++ {
		r := isolateWith(t, env, boxes, extra, nil, "-b", "5", "-s", "-p", "--run", "--", "/bin/sh", "-c", script)
		if _, err := os.Stat(filepath.Join(boxes, "5", "box", "d"+strconv.Itoa(i))); r.code != 0 || err != nil {
			t.Errorf("isolate --run %d through the service: exit %d, d%d: %v\n%s", i, r.code, i, err, r.stderr)
		}
	}
	code, log := stop()
	c, err := lang.Default().Lookup("c")
	if err != nil {
		t.Fatal(err)
	}
	var build, box bool
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "running armed") && strings.Contains(l, "ahead=true") {
			build = build || strings.Contains(l, "image="+c.BuildImage)
			box = box || strings.Contains(l, "copied_dirs=1")
		}
	}
	if code != 0 || !build || !box {
		t.Errorf("service: exit %d, a build taken armed ahead %t, an isolate run %t; want 0, both\n%s", code, build, box, log)
	}
	assertNothingLeft(t, env, "")
}

// TestSELinuxQuadletService: podjail's own image, deployed by its quadlet
// unit (SecurityLabelDisable: the service itself talks to Podman's socket
// and the bus, which container_t may not), judges and hands isolate boxes
// back as without SELinux (TestQuadletServiceJudges), while the programs
// it runs are confined all the same: container_t, at a level with
// categories (Podman's own: in its container podjail sees SELinux off and
// keeps no level pool), entering the shim's copy, which podjail labelled
// container_ro_file_t. Rootful, no container_t denial is logged meanwhile but the known
// one of the user's stdio pipes; rootless, guest-run.sh checks the same.
func TestSELinuxQuadletService(t *testing.T) {
	env := hosttest.SELinux(t)
	var before int
	if !env.Rootless {
		lines, err := kernelLog()
		if err != nil {
			t.Fatal(err)
		}
		before = len(lines)
	}
	labels, shimLabel := quadletServiceJudges(t, env)
	t.Logf("the isolate runs' labels: %q; the shim's copy: %q", labels, shimLabel)
	if !strings.Contains(shimLabel, ":container_ro_file_t:") {
		t.Errorf("the shim's copy is %q, want container_ro_file_t, which container_t may enter (labelShim)", shimLabel)
	}
	if len(labels) != 2 {
		t.Errorf("labels %q: want the two runs'", labels)
	}
	for _, l := range labels {
		if !strings.Contains(l, ":container_t:") || !strings.Contains(levelOf(l), ":c") {
			t.Errorf("a program ran as %q, want container_t at a level with categories", l)
		}
	}
	if env.Rootless {
		return
	}
	lines, err := kernelLog()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range lines[min(before, len(lines)):] {
		if strings.Contains(line, "avc:") && strings.Contains(line, "denied") && strings.Contains(line, "scontext=system_u:system_r:container_t:") &&
			!strings.Contains(line, "tcontext=unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023 tclass=fifo_file") {
			t.Errorf("denied during the quadlet service's work: %s", line)
		}
	}
}
