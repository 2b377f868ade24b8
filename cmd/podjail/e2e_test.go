package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	cgmanager "github.com/podjail/podjail/cgroupdrv/manager"
	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/policy"
)

// testProgram is the test binary's path inside the scratch test image.
const testProgram = "/podjail.test"

type cmdResult struct {
	stdout, stderr string
	code           int
}

func podjail(t testing.TB, env hosttest.Env, args ...string) cmdResult {
	t.Helper()
	return podjailWith(t, env, nil, args...)
}

// podjailWith is podjail with extra environment variables (NAME=VALUE) on
// top of the test's own.
func podjailWith(t testing.TB, env hosttest.Env, extra []string, args ...string) cmdResult {
	t.Helper()
	cmd := exec.Command(env.Podjail, args...)
	if len(extra) > 0 {
		cmd.Env = append(os.Environ(), extra...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("exec podjail: %v", err)
	}
	return cmdResult{out.String(), errb.String(), code}
}

// runJSON runs `podjail run --json` of a helper of the test binary with the
// program's stdout in a file and returns the report and that output.
func runJSON(t *testing.T, env hosttest.Env, flags []string, helper ...string) (plugin.JudgedRun, []byte) {
	t.Helper()
	return runArgvJSON(t, env, flags, append([]string{testProgram}, helper...)...)
}

// runArgvJSON is runJSON for any program of the test image.
func runArgvJSON(t *testing.T, env hosttest.Env, flags []string, argv ...string) (plugin.JudgedRun, []byte) {
	t.Helper()
	outFile := filepath.Join(t.TempDir(), "stdout")
	args := append([]string{"run", "--json", "--image", env.Image, "--output", outFile}, flags...)
	args = append(append(args, "--"), argv...)
	r := podjail(t, env, args...)
	if r.code != 0 {
		t.Fatalf("podjail %v: exit %d\nstderr: %s", args, r.code, r.stderr)
	}
	var res plugin.JudgedRun
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, r.stdout)
	}
	out, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { assertNothingLeft(t, env, res.ContainerID) })
	return res, out
}

// assertNothingLeft checks that no container of ours, no process of the
// test program and no cgroup of the container is left on the host.
func assertNothingLeft(t *testing.T, env hosttest.Env, containerID string) {
	t.Helper()
	list, err := env.Client.ListByLabel(context.Background(), runner.LabelInstance)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		t.Errorf("container left behind: %s (%s) %v", c.Name, c.State, c.Labels)
	}
	for _, p := range processesRunning(env, testProgram) {
		t.Errorf("process left behind: pid %d", p)
	}
	for _, p := range leftParents(t, env) {
		t.Errorf("run parent cgroup left behind: %s", p)
	}
	if containerID == "" {
		return
	}
	_ = filepath.WalkDir("/sys/fs/cgroup", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.Contains(d.Name(), containerID) {
			t.Errorf("cgroup left behind: %s", path)
			return fs.SkipDir
		}
		return nil
	})
}

// processesRunning lists the pids of env's pass whose argv[0] is program.
func processesRunning(env hosttest.Env, program string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || strings.SplitN(string(cmdline), "\x00", 2)[0] != program {
			continue
		}
		cg, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup"))
		if err == nil && inThisPass(env, strings.TrimSpace(strings.TrimPrefix(string(cg), "0::"))) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// The test VM runs its rootful and rootless passes at once, so a pass
// looks only at its own processes and cgroups: the rootless pass's
// containers are under user.slice (the user's systemd), the rootful's
// never are.
const userSlice = "user.slice"

// inThisPass says whether cgroup (a path under the cgroup mount, as
// /proc/PID/cgroup gives it) belongs to env's pass.
func inThisPass(env hosttest.Env, cgroup string) bool {
	under := cgroup == "/"+userSlice || strings.HasPrefix(cgroup, "/"+userSlice+"/")
	return under == env.Rootless
}

func parseProbe(out []byte) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

func TestRunAppliesProfile(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runJSON(t, env, []string{"--memory", "128M", "--pids", "32", "--cpus", "0.5"}, "probe")
	if res.ExitCode != 0 {
		t.Fatalf("probe exit code %d, output:\n%s", res.ExitCode, out)
	}
	p := parseProbe(out)
	t.Logf("probe:\n%s", out)
	want := map[string]string{
		"uid":    "65534",
		"gid":    "65534",
		"CapEff": "0000000000000000",
		"CapPrm": "0000000000000000",
		// The shim keeps CAP_SETUID, CAP_SETGID and CAP_CHOWN in the
		// bounding set (dropping it needs CAP_SETPCAP); with
		// no-new-privileges and no effective or permitted capability they
		// cannot come back.
		"CapBnd":          "00000000000000c1",
		"NoNewPrivs":      "1",
		"tmp_write_error": "none",
		"tmp_mode":        "1777",
		"memory.max":      strconv.Itoa(128 << 20),
		"memory.swap.max": "0",
		"pids.max":        "32",
		"cpu.max":         "50000 100000",
		// policy.Seccomp: the process-group lock.
		"setsid_error":  "function not implemented",
		"setpgid_error": "function not implemented",
		// policy.Rlimits for 128 MiB of memory and 16 MiB of scratch.
		"max_core_file_size": "0 0",
		"max_open_files":     "64 64",
		"max_file_size":      strconv.Itoa(16<<20) + " " + strconv.Itoa(16<<20),
		"max_stack_size":     strconv.Itoa(128<<20) + " " + strconv.Itoa(128<<20),
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
	if g := p["groups"]; g != "[]" && g != "[65534]" {
		t.Errorf("supplementary groups %s, want none or only 65534", g)
	}
	if !strings.Contains(p["root_write_error"], "read-only file system") {
		t.Errorf("writing to / gave %q, want a read-only file system error", p["root_write_error"])
	}
	if !hasOption(p["root_mount"], "ro") {
		t.Errorf("root mount %q is not ro", p["root_mount"])
	}
	tmp := p["tmp_mount"]
	if !strings.HasPrefix(tmp, "tmpfs ") {
		t.Errorf("/tmp mount %q is not a tmpfs", tmp)
	}
	for _, o := range []string{"rw", "noexec", "nosuid", "nodev", "size=" + strconv.Itoa(int(policy.Default().ScratchBytes>>10)) + "k"} {
		if !hasOption(tmp, o) {
			t.Errorf("/tmp mount %q lacks %s", tmp, o)
		}
	}
	if ifs := p["interfaces"]; ifs != "lo" && ifs != "" {
		t.Errorf("network interfaces %q, want only lo", ifs)
	}
}

func hasOption(mount, opt string) bool {
	_, opts, _ := strings.Cut(mount, " ")
	return slices.Contains(strings.Split(opts, ","), opt)
}

func TestRunEchoesInputByteForByte(t *testing.T) {
	env := hosttest.Podman(t)
	input := make([]byte, 1<<20)
	_, _ = rand.Read(input)
	copy(input[100:], "\x00\x00\r\n\n\x00") // NULs and line ends in the middle; no trailing newline
	in := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(in, input, 0o644); err != nil {
		t.Fatal(err)
	}
	// The Podman service of a rootless user reads the file as that user.
	if err := os.Chmod(filepath.Dir(in), 0o755); err != nil {
		t.Fatal(err)
	}
	res, out := runJSON(t, env, []string{"--input", in}, "cat")
	if res.ExitCode != 0 {
		t.Fatalf("cat exit code %d", res.ExitCode)
	}
	if !bytes.Equal(out, input) {
		t.Fatalf("output differs from input: got %d bytes, want %d", len(out), len(input))
	}
	if res.OutputBytes != int64(len(input)) {
		t.Errorf("output_bytes %d, want %d", res.OutputBytes, len(input))
	}
}

func TestRunWithoutInputHasEmptyStdin(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runJSON(t, env, nil, "cat")
	if res.ExitCode != 0 || len(out) != 0 {
		t.Fatalf("cat without input: exit %d, %d bytes of output", res.ExitCode, len(out))
	}
}

func TestRunReportsExitCode(t *testing.T) {
	env := hosttest.Podman(t)
	res, _ := runJSON(t, env, nil, "exit", "3")
	if res.ExitCode != 3 || res.Signal != "" || res.Killed != runner.NotKilled {
		t.Fatalf("got exit %d signal %q killed %q, want exit 3 only", res.ExitCode, res.Signal, res.Killed)
	}
}

func TestRunStopsOutputFloodAtCap(t *testing.T) {
	env := hosttest.Podman(t)
	const limit = 1 << 20
	start := time.Now()
	res, out := runJSON(t, env, []string{"--output-limit", strconv.Itoa(limit)}, "flood", strconv.Itoa(1<<30))
	elapsed := time.Since(start)
	t.Logf("flood stopped after %d bytes in %v", res.OutputBytes, elapsed)
	if res.Killed != runner.KilledOutputLimit {
		t.Fatalf("killed = %q, want %q (report %+v)", res.Killed, runner.KilledOutputLimit, res)
	}
	if len(out) != limit {
		t.Errorf("kept %d bytes of output, want exactly the cap %d", len(out), limit)
	}
	if res.OutputBytes <= limit || res.OutputBytes >= 1<<30 {
		t.Errorf("output_bytes %d: want past the cap and far below the 1 GiB flood", res.OutputBytes)
	}
	if res.Signal != "SIGKILL" {
		t.Errorf("signal %q, want SIGKILL", res.Signal)
	}
}

func TestRunInterruptRemovesContainer(t *testing.T) {
	env := hosttest.Podman(t)
	cmd := exec.Command(env.Podjail, "run", "--image", env.Image, "--", testProgram, "sleep")
	cmd.Env = append(os.Environ(), "PODJAIL_LOG_LEVEL=debug")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var log strings.Builder
	started := false
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "go sent") { // the program runs
			started = true
			break
		}
	}
	if !started {
		_ = cmd.Wait()
		t.Fatalf("podjail never started the container:\n%s", log.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != exitSignal {
		t.Errorf("after SIGINT podjail ended with %v, want exit code %d", err, exitSignal)
	}
	assertNothingLeft(t, env, "")
}

func TestRunBadInputCreatesNothing(t *testing.T) {
	env := hosttest.Podman(t)
	advice := "sudo systemctl enable --now podman.socket"
	if env.Rootless {
		advice = "systemctl --user enable --now podman.socket"
	}
	cases := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"missing input", []string{"run", "--image", env.Image, "--input", "/nonexistent/in", "--", testProgram, "cat"}, exitUsage, "/nonexistent/in"},
		{"unknown image", []string{"run", "--image", "localhost/podjail-no-such-image:latest", "--", "/x"}, exitUsage, "is not in this Podman's storage"},
		{"unreachable socket", []string{"run", "--url", "unix:///nonexistent/podman.sock", "--image", env.Image, "--", "/x"}, exitFailure, advice},
		{"no program", []string{"run", "--image", env.Image}, exitUsage, "no program given"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := podjail(t, env, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.contains) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, c.code, c.contains)
			}
			assertNothingLeft(t, env, "")
		})
	}
}

func TestRunSweepsContainersOfDeadInstances(t *testing.T) {
	env := hosttest.Podman(t)
	self, err := runner.Self()
	if err != nil {
		t.Fatal(err)
	}
	dead := self
	dead.Start++ // our pid, another start time: an instance that is gone
	ctx := context.Background()
	id, err := env.Client.Create(ctx, bindings.Spec{
		Image: env.Image, Command: []string{testProgram, "exit", "0"},
		Labels: dead.Labels("run"), Profile: policy.Default(),
		MemoryBytes: 64 << 20, Pids: 8, CPUs: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Remove(ctx, id) })

	// And a per-run parent cgroup of that dead instance.
	driver, err := cgmanager.New(env.CgroupManager, env.Rootless)
	if err != nil {
		t.Fatal(err)
	}
	p, err := driver.Create(ctx, fmt.Sprintf("%s%d_%d_dead", cgroupdrv.Prefix, dead.PID, dead.Start))
	if err != nil {
		t.Fatalf("make a parent as a dead runner would have: %v", err)
	}
	t.Cleanup(func() { _ = driver.Destroy(ctx, p) })
	t.Logf("dead runner's parent: %s at %s", p.CgroupParent, p.Path)
	runJSON(t, env, nil, "exit", "0") // its cleanup asserts nothing is left
}

func TestDoctorPassesOnFitHost(t *testing.T) {
	env := hosttest.Podman(t)
	r := podjail(t, env, "doctor")
	t.Logf("podjail doctor:\n%s", r.stdout)
	if r.code != 0 || !strings.Contains(r.stdout, "this host is fit") {
		t.Fatalf("doctor exit %d on the test VM:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// The Podman service resolves a bind mount's source in its own directory, so
// a relative --input must be made absolute by podjail.
func TestRunAcceptsRelativeInputPath(t *testing.T) {
	env := hosttest.Podman(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "input"), []byte("19 23\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(env.Podjail, "run", "--json", "--image", env.Image, "--output", "stdout", "--input", "input", "--", testProgram, "cat")
	cmd.Dir = dir
	report, err := cmd.Output()
	if err != nil {
		t.Fatalf("podjail run with a relative input: %v\n%s", err, report)
	}
	var res plugin.JudgedRun
	if err := json.Unmarshal(report, &res); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { assertNothingLeft(t, env, res.ContainerID) })
	out, err := os.ReadFile(filepath.Join(dir, "stdout"))
	if err != nil || string(out) != "19 23\n" || res.ExitCode != 0 {
		t.Fatalf("output %q (%v), exit %d; want the input echoed", out, err, res.ExitCode)
	}
}
