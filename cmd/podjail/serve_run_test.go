package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
)

// TestServeRunsLikeInProcess runs the same `podjail run` command lines in
// this process (--service none) and through `podjail serve`: the same
// exit status, the same stdout byte for byte (an input larger than one
// stream event), the same ending (exit code, limit, verdict). Runs of a
// shape that comes again take the container the service armed ahead, and
// still read their own input. A missing
// image is the caller's mistake (exit 2) both ways; --shim none cannot go
// through a service. The service leaves nothing when stopped.
func TestServeRunsLikeInProcess(t *testing.T) {
	env := hosttest.Podman(t)
	// The missing image is allowed: its run must fail for want of it.
	sock, stop := startService(t, env, "--drain", "2s", "--image", "localhost/podjail-no-such-image:latest")
	input := filepath.Join(t.TempDir(), "input")
	data := bytes.Repeat([]byte("podjail through a service\n"), 12000) // 312 KB
	if err := os.WriteFile(input, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		flags []string
		argv  []string
		check func(t *testing.T, r plugin.JudgedRun, out []byte)
	}{
		{"cat", []string{"--input", input}, []string{testProgram, "cat"}, func(t *testing.T, r plugin.JudgedRun, out []byte) {
			if r.ExitCode != 0 || !bytes.Equal(out, data) {
				t.Errorf("exit %d, %d bytes of stdout; want 0 and the input's %d bytes", r.ExitCode, len(out), len(data))
			}
		}},
		{"exit 3", nil, []string{testProgram, "exit", "3"}, func(t *testing.T, r plugin.JudgedRun, _ []byte) {
			if r.ExitCode != 3 || r.Signal != "" || r.Killed != runner.NotKilled {
				t.Errorf("exit %d signal %q killed %q, want exit 3", r.ExitCode, r.Signal, r.Killed)
			}
		}},
		{"memory", hostileFlags(), []string{hostile("mallochog")}, func(t *testing.T, r plugin.JudgedRun, _ []byte) {
			if r.Verdict != plugin.MLE || !r.Measure.MemoryExceeded {
				t.Errorf("verdict %s, memory exceeded %t; want MLE", r.Verdict, r.Measure.MemoryExceeded)
			}
		}},
		{"output", []string{"--output-limit", strconv.Itoa(1 << 20)}, []string{testProgram, "flood", strconv.Itoa(1 << 30)}, func(t *testing.T, r plugin.JudgedRun, out []byte) {
			if r.Killed != runner.KilledOutputLimit || len(out) > 1<<20 {
				t.Errorf("killed %q with %d bytes kept; want the output limit, at most 1 MiB kept", r.Killed, len(out))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			here, hereOut := runVia(t, env, "none", c.flags, c.argv)
			there, thereOut := runVia(t, env, sock, c.flags, c.argv)
			c.check(t, here, hereOut)
			c.check(t, there, thereOut)
			if here.ExitCode != there.ExitCode || here.Signal != there.Signal || here.Killed != there.Killed ||
				here.Verdict != there.Verdict || here.Measure.MemoryExceeded != there.Measure.MemoryExceeded {
				t.Errorf("in process: exit %d %q killed %q verdict %s mle %t; through the service: exit %d %q killed %q verdict %s mle %t",
					here.ExitCode, here.Signal, here.Killed, here.Verdict, here.Measure.MemoryExceeded,
					there.ExitCode, there.Signal, there.Killed, there.Verdict, there.Measure.MemoryExceeded)
			}
			if c.name == "cat" && !bytes.Equal(hereOut, thereOut) {
				t.Errorf("stdout differs: %d bytes in process, %d through the service", len(hereOut), len(thereOut))
			}
		})
	}

	// The service armed a run of cat's shape behind the first: the runs
	// after it take it, each with its own input copied in before the go.
	for _, text := range []string{"one\n", "two\n"} {
		in := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, out := runVia(t, env, sock, []string{"--input", in}, []string{testProgram, "cat"})
		if r.ExitCode != 0 || string(out) != text {
			t.Errorf("cat of %q through the service again: exit %d, stdout %q", text, r.ExitCode, out)
		}
	}

	for _, service := range []string{"none", sock} {
		r := podjail(t, env, "run", "--service", service, "--image", "localhost/podjail-no-such-image:latest", "--", "/x")
		if r.code != exitUsage {
			t.Errorf("a missing image (--service %s): exit %d, want %d\n%s", service, r.code, exitUsage, r.stderr)
		}
	}
	if r := podjail(t, env, "run", "--service", sock, "--shim", "none", "--image", env.Image, "--", testProgram, "exit", "0"); r.code != exitUsage {
		t.Errorf("--shim none through a service: exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
	}
	if code, log := stop(); code != 0 {
		t.Errorf("the service exited %d\n%s", code, log)
	}
	assertNothingLeft(t, env, "")
}

// runVia is one `podjail run --json` through service ("none": in this
// process); it returns the report and the program's stdout.
func runVia(t *testing.T, env hosttest.Env, service string, flags, argv []string) (plugin.JudgedRun, []byte) {
	t.Helper()
	outFile := filepath.Join(t.TempDir(), "stdout")
	args := append([]string{"run", "--json", "--service", service, "--image", env.Image, "--output", outFile}, flags...)
	r := podjail(t, env, append(append(args, "--"), argv...)...)
	if r.code != exitOK {
		t.Fatalf("podjail %v: exit %d\n%s", args, r.code, r.stderr)
	}
	var res plugin.JudgedRun
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, r.stdout)
	}
	out, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("--service %s: exit %d signal %q killed %q verdict %s, %d bytes out, wall %v", service, res.ExitCode, res.Signal, res.Killed, res.Verdict, len(out), res.Wall)
	return res, out
}

// TestServeTakesAnotherUsersInputWhole: a member of a root service's
// --group may not have it read a file with root's rights, so `podjail run
// --input` sends the file whole, read with the caller's own, and the
// program reads it all the same. Rootful only: the caller is another user
// (nobody), which only root can start.
func TestServeTakesAnotherUsersInputWhole(t *testing.T) {
	env := hosttest.Podman(t)
	if env.Rootless {
		t.Skip("starts a client as another user (nobody), which needs root: the rootful pass runs this test")
	}
	// Reachable by nobody: t.TempDir's parents are root's alone.
	dir := openDir(t, "podjail-group-", 0o777)
	sock := filepath.Join(dir, "podjail.sock")
	stop := startServiceAt(t, env, sock, syscall.SIGTERM, "--group", "65534")
	input, output := filepath.Join(dir, "input"), filepath.Join(dir, "stdout")
	data := bytes.Repeat([]byte("a file of nobody's\n"), 1000)
	if err := os.WriteFile(input, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(env.Podjail, "run", "--service", sock, "--image", env.Image, "--input", input, "--output", output, "--", testProgram, "cat")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	got, _ := os.ReadFile(output)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("podjail run --input as nobody through root's service: %v, %d bytes of stdout, want %d\n%s", err, len(got), len(data), out)
	}
	if code, log := stop(); code != 0 {
		t.Errorf("the service exited %d\n%s", code, log)
	}
}
