package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// hostileJudged are the attacks judged as tests of one problem; their
// verdicts do not depend on their output, which execInput discards.
var hostileJudged = []string{
	"forkbomb", "threads", "mallochog", "mmaphog", "filltmp one", "filltmp many", "shm", "rofs",
	"noexec", "errflood", "sleep", "tick", "setsid", "kill", "net", "procpeek", "ptrace", "cgroup",
	"unshare", "bpf", "perf", "iouring", "int80", "x32", "personality", "closeout", "binary",
}

// execInput reads "PROGRAM ARGS..." from the first line of stdin, one byte
// at a time so the rest stays the program's, puts its stdout on /dev/null
// and becomes the program: the judged figures are the program's own.
func execInput([]string) int {
	var line []byte
	for b := make([]byte, 1); ; {
		n, err := os.Stdin.Read(b)
		if n == 0 || err != nil || b[0] == '\n' {
			break
		}
		line = append(line, b[0])
	}
	argv := strings.Fields(string(line))
	if len(argv) == 0 {
		return 2
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil || syscall.Dup2(int(null.Fd()), 1) != nil {
		return 3
	}
	err = syscall.Exec(argv[0], argv, os.Environ())
	fmt.Fprintln(os.Stderr, err)
	return 4
}

// TestJudgeHostileSideBySide judges the hostile programs as the
// tests of one problem, one test at a time and two at once, each on its
// own core: a run beside another must end the same way.
func TestJudgeHostileSideBySide(t *testing.T) {
	env := hosttest.Podman(t)
	dir := t.TempDir()
	files := map[string]string{"problem.yaml": "name: hostile\ntime_limit: 0.5\nmemory_limit: 64M\noutput_limit: 1M\n"}
	for i, p := range hostileJudged {
		name := fmt.Sprintf("tests/%02d", i+1)
		files[name+".in"] = "/hostile/" + p + "\n"
		files[name+".ans"] = ""
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{dir, filepath.Join(dir, "tests")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	langs := filepath.Join(t.TempDir(), "languages.yaml")
	lang := fmt.Sprintf("hostile:\n  extensions: [.hostile]\n  run_image: %s\n  build_image: %s\n  source: prog.hostile\n  run: [/podjail.test, exec-input]\n", env.Image, env.Image)
	if err := os.WriteFile(langs, []byte(lang), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "prog.hostile")
	if err := os.WriteFile(src, []byte("unused\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var runs [2]plugin.JudgeResult
	for i, p := range []string{"1", "2"} {
		runs[i], _ = judgeJSON(t, env, "--languages", langs, "--lang", "hostile", "--parallel", p, dir, src)
		if runs[i].Parallel != i+1 || len(runs[i].Tests) != len(hostileJudged) {
			t.Fatalf("--parallel %s: %d at once, %d tests judged (%s: %s); want %d, %d", p, runs[i].Parallel, len(runs[i].Tests), runs[i].Verdict, runs[i].Note, i+1, len(hostileJudged))
		}
	}
	for i, p := range hostileJudged {
		one, two := runs[0].Tests[i], runs[1].Tests[i]
		t.Logf("%-13s P=1 %-3s %.3f s  P=2 %-3s %.3f s  (%s | %s)", p, one.Verdict, one.Time.Seconds(), two.Verdict, two.Time.Seconds(), one.Note, two.Note)
		if one.Verdict != two.Verdict || one.Verdict == plugin.IE {
			t.Errorf("%s: %s alone, %s beside another; want the same, never IE", p, one.Verdict, two.Verdict)
		}
	}
}
