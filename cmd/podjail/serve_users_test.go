package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/sandbox"
)

// TestServiceCallerGetsOnlyItsOwn: a member of a root service's --group
// (nobody) gets through the service only what it could read itself, and
// no other local user reads what the service works on.
//   - Run with input_path naming root's secret (0600 under 0700) is refused
//     as permission denied; a file nobody reads comes back whole.
//   - Judge with problem_dir naming root's 0700 directory is refused; a
//     relative one is refused as the caller's mistake.
//   - A problem of nobody's is judged from a copy made at the call: the
//     last test's answer, swapped for a link to the secret after the first
//     test, is still the answer it had (AC), and no note quotes the secret.
//   - While the service holds armed runs, nobody can open nothing under
//     the service's --tmp.
//
// Rootful only: the caller is another user, which only root can start.
func TestServiceCallerGetsOnlyItsOwn(t *testing.T) {
	env := hosttest.Podman(t)
	if env.Rootless {
		t.Skip("starts a caller as another user (nobody), which needs root: the rootful pass runs this test")
	}
	const secretText = "ROOT-ONLY-b0c4f1e2"
	closed := t.TempDir() // 0700, root's
	secret := filepath.Join(closed, "secret")
	if err := os.WriteFile(secret, []byte(secretText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := openDir(t, "pj-users-", 0o777)
	work := filepath.Join(open, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	langs := filepath.Join(open, "languages.yaml")
	catLang := fmt.Sprintf("cat:\n  extensions: [.cat]\n  run_image: %s\n  build_image: %s\n  source: prog.cat\n  run: [%s, cat]\n", env.Image, env.Image, testProgram)
	if err := os.WriteFile(langs, []byte(catLang), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(open, "podjail.sock")
	stop := startServiceAt(t, env, sock, syscall.SIGTERM, "--group", "65534", "--languages", langs, "--tmp", work)

	input := filepath.Join(open, "input")
	if err := os.WriteFile(input, []byte("nobody's input\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("input_path", func(t *testing.T) {
		if out, code := asNobody(t, env, "run-input", sock, input); code != 0 || out != "nobody's input\n" {
			t.Errorf("a file nobody reads: exit %d, %q; want its text", code, out)
		}
		out, code := asNobody(t, env, "run-input", sock, secret)
		if code != 3 || !strings.Contains(out, "PermissionDenied") || strings.Contains(out, secretText) {
			t.Errorf("root's secret as input_path: exit %d, %q; want refused as permission denied, the secret not shown", code, out)
		}
	})

	problem := filepath.Join(open, "problem")
	files := map[string]string{"problem.yaml": "name: users\ntime_limit: 5\nmemory_limit: 64M\n"}
	for i := 1; i <= 5; i++ {
		files[fmt.Sprintf("tests/%02d.in", i)] = "hello\n"
		files[fmt.Sprintf("tests/%02d.ans", i)] = "hello\n"
	}
	for name, text := range files {
		p := filepath.Join(problem, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// nobody's own problem: it may swap its files while judged.
	if err := filepath.WalkDir(problem, func(p string, _ fs.DirEntry, err error) error {
		return errors.Join(err, os.Lchown(p, 65534, 65534))
	}); err != nil {
		t.Fatal(err)
	}
	t.Run("problem_dir", func(t *testing.T) {
		if out, code := asNobody(t, env, "judge", sock, closed, ""); code != 3 || !strings.Contains(out, "PermissionDenied") {
			t.Errorf("root's 0700 directory as problem_dir: exit %d, %q; want refused as permission denied", code, out)
		}
		if out, code := asNobody(t, env, "judge", sock, "problem", ""); code != 3 || !strings.Contains(out, "InvalidArgument") {
			t.Errorf("a relative problem_dir: exit %d, %q; want refused as invalid", code, out)
		}
		last := filepath.Join(problem, "tests", "05.ans")
		out, code := asNobody(t, env, "judge", sock, problem, last+"="+secret)
		if code != 0 {
			t.Fatalf("nobody's problem: exit %d\n%s", code, out)
		}
		var res sandbox.JudgeResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if res.Verdict != sandbox.AC || len(res.Tests) != 5 || strings.Contains(out, secretText) {
			t.Errorf("judged with 05.ans swapped for a link to root's secret after the first test: %s, %d tests; want AC from the copy, the secret not shown\n%s", res.Verdict, len(res.Tests), out)
		}
		if fi, err := os.Lstat(last); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the swap did not happen (%v, %v): the test proves nothing", fi, err)
		}
	})

	t.Run("work files", func(t *testing.T) {
		// The service keeps a run of the last shape armed: its files exist.
		if out, code := asNobody(t, env, "readable", work); code != 0 || out != "" {
			t.Errorf("nobody opens under the service's --tmp %s (exit %d):\n%s", work, code, out)
		}
		entries, _ := os.ReadDir(work)
		if len(entries) == 0 {
			t.Errorf("the service made nothing under --tmp %s: the check above proves nothing", work)
		}
	})
	if code, log := stop(); code != 0 {
		t.Errorf("the service exited %d\n%s", code, log)
	}
}

// openDir makes a directory of mode under the temporary directory,
// removed at the end: other users reach it, where t.TempDir's parents are
// root's alone.
func openDir(t *testing.T, prefix string, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// asNobody runs the test binary's service-caller helper as nobody and
// returns its stdout and exit code.
func asNobody(t *testing.T, env hosttest.Env, args ...string) (string, int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"service-caller"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = "/"
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("service-caller %v: %v", args, err)
	}
	t.Logf("as nobody: service-caller %v: exit %d\n%s%s", args, code, out, stderr.String())
	return string(out), code
}

// serviceCaller is a client of the service, run as another user by
// asNobody: "run-input SOCK PATH" compiles the cat language and runs it
// with input_path PATH, printing the output; "judge SOCK DIR [ANS=TARGET]"
// judges a cat submission on DIR, after its first test replacing ANS by a
// link to TARGET, printing the result as JSON; "readable DIR" prints every
// path under DIR it can open. A refusal prints its code and message and
// exits 3.
func serviceCaller(args []string) int {
	if len(args) == 2 && args[0] == "readable" {
		return readable(args[1])
	}
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: service-caller run-input|judge SOCK PATH [ANS=TARGET] | readable DIR")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, closeFn, err := sandbox.Dial(ctx, args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer closeFn()
	refused := func(err error) int {
		fmt.Printf("%s: %v\n", sandbox.Code(err), err)
		return 3
	}
	switch args[0] {
	case "run-input":
		built, err := c.Compile(ctx, "cat", []byte("cat\n"))
		if err != nil || !built.OK {
			fmt.Fprintln(os.Stderr, "compile:", err, built.Output)
			return 1
		}
		res, err := c.Run(ctx, sandbox.RunRequest{Handle: built.Handle, InputPath: args[2]})
		if err != nil {
			return refused(err)
		}
		fmt.Print(string(res.Output))
		return 0
	case "judge":
		swapped := false
		res, err := c.Judge(ctx, sandbox.JudgeRequest{ProblemDir: args[2], Language: "cat", Source: []byte("cat\n"), Parallel: 1}, func(sandbox.TestResult) {
			if ans, target, ok := strings.Cut(strings.Join(args[3:], ""), "="); ok && !swapped {
				swapped = true
				_ = os.Remove(ans)
				if err := os.Symlink(target, ans); err != nil {
					fmt.Fprintln(os.Stderr, "swap:", err)
				}
			}
		})
		if err != nil {
			return refused(err)
		}
		b, _ := json.Marshal(res)
		fmt.Println(string(b))
		return 0
	}
	return 2
}

// readable prints each path under dir (not dir itself) this user can
// open.
func readable(dir string) int {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p == dir || err != nil {
			return nil
		}
		if f, err := os.Open(p); err == nil {
			f.Close()
			fmt.Println(p)
		}
		return nil
	})
	return 0
}
