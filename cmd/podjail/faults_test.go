package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// The host misbehaving under a judge (issue 15, docs/faults.md): what the
// judge says is never a verdict against the submission, and nothing is
// left behind.

// judgeInterfered runs `podjail judge --json ARGS`, calls interfere once
// the first test's verdict is out, and returns the judgement, the exit
// code and the judge's stderr.
func judgeInterfered(t *testing.T, env hosttest.Env, env2 []string, interfere func(), args ...string) (plugin.JudgeResult, int, string) {
	t.Helper()
	cmd := exec.Command(env.Podjail, append([]string{"judge", "--json"}, args...)...)
	cmd.Env = append(os.Environ(), env2...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	rest := startUntil(t, cmd, func(line string) bool {
		if strings.HasPrefix(line, "test 1/") {
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

func systemctl(args ...string) *exec.Cmd {
	if os.Geteuid() != 0 {
		args = append([]string{"--user"}, args...)
	}
	return exec.Command("systemctl", args...)
}

// TestFaultPodmanRestartMidJudge restarts the Podman service while a test
// runs: tests that would be AC (a 4 s nap, under the 8 s of no progress)
// lose their stream, and the first is IE naming Podman, never WA or TLE
// (the judge stops there; it does not retry); once Podman is back nothing
// of the judge is left.
func TestFaultPodmanRestartMidJudge(t *testing.T) {
	env := hosttest.Podman(t)
	nap := testProgram + " nap 4"
	dir, langs, src := execProblem(t, env, "1", []string{testProgram + " exit 0", nap, nap, nap})
	res, code, _ := judgeInterfered(t, env, nil, func() {
		if out, err := systemctl("restart", "podman.service").CombinedOutput(); err != nil {
			t.Errorf("restart Podman: %v\n%s", err, out)
		}
	}, "--languages", langs, "--lang", "exec", "--parallel", "1", dir, src)
	wantIE(t, res, code, "Podman")
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
	dir, langs, src := execProblem(t, env, "1", lines)
	data, err := os.ReadFile(langs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(langs, []byte(strings.ReplaceAll(string(data), env.Image, tagged)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, code, _ := judgeInterfered(t, env, nil, func() {
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
	dir, langs, src := execProblem(t, env, "1", []string{testProgram + " exit 0", testProgram + " exit 0"})
	res, code, _ := judgeInterfered(t, env, []string{"TMPDIR=" + tmp}, func() {}, "--languages", langs, "--lang", "exec", dir, src)
	wantIE(t, res, code, "no space left on device")
	assertNothingLeft(t, env, "")
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
