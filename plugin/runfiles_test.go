package plugin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

func TestRunFiles(t *testing.T) {
	prog := one(runnertest.Program{Files: map[string][]byte{"/w/out": []byte("made")}})
	base := runner.RunRequest{Image: "img", Command: []string{"/p"}, WorkDir: "/w", Writable: true}
	refused := []struct {
		name  string
		req   func(runner.RunRequest) runner.RunRequest
		files Files
		field string
	}{
		{"a relative working directory", func(r runner.RunRequest) runner.RunRequest { r.WorkDir = "w"; return r }, Files{In: map[string][]byte{"a": nil}}, "files"},
		{"a name with a slash", func(r runner.RunRequest) runner.RunRequest { return r }, Files{In: map[string][]byte{"../a": nil}}, "files"},
		{"a name to take out with a slash", func(r runner.RunRequest) runner.RunRequest { return r }, Files{Out: []string{"d/out"}}, "files"},
		{"files and an input", func(r runner.RunRequest) runner.RunRequest { r.InputFile = "/dev/null"; return r }, Files{In: map[string][]byte{"a": nil}}, "input"},
	}
	for _, c := range refused {
		r, rt, _ := fakeRunner(t, prog)
		_, err := r.RunFiles(context.Background(), c.req(base), c.files)
		var re *runner.RequestError
		if !errors.As(err, &re) || re.Field != c.field {
			t.Errorf("%s: %v, want a RequestError of %s", c.name, err, c.field)
		}
		if n := len(rt.State().Created); n != 0 {
			t.Errorf("%s: %d containers created", c.name, n)
		}
	}

	for _, shimmed := range []bool{true, false} {
		r, rt, cg := fakeRunner(t, prog)
		if !shimmed {
			r.Shim = ""
		}
		out := t.TempDir()
		res, err := r.RunFiles(context.Background(), base, Files{In: map[string][]byte{"in.txt": []byte("given")}, Out: []string{"out"}, OutDir: out, TmpDir: t.TempDir()})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("shim %t: %+v %v", shimmed, res, err)
		}
		unpacked, copied := string(rt.Unpacked()["/w/in.txt"]), string(rt.CopiedIn()["/w/in.txt"])
		if shimmed && (unpacked != "given" || copied != "") || !shimmed && (copied != "given" || unpacked != "") {
			t.Errorf("shim %t: in.txt unpacked %q, copied in %q", shimmed, unpacked, copied)
		}
		if data, err := os.ReadFile(filepath.Join(out, "out")); err != nil || string(data) != "made" {
			t.Errorf("shim %t: out %q %v", shimmed, data, err)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}

	r, _, _ := fakeRunner(t, prog)
	if _, err := r.RunFiles(context.Background(), base, Files{In: map[string][]byte{"a": nil}, TmpDir: filepath.Join(t.TempDir(), "none")}); err == nil {
		t.Error("packed the files into a directory that does not exist")
	}
}

func TestRunVerdictWithoutATimeLimit(t *testing.T) {
	res := runner.RunResult{ExitCode: 1}
	if v, note := RunVerdict(runner.RunRequest{}, res); v != "" || note != "" {
		t.Errorf("no time limit: %q %q, want no verdict", v, note)
	}
	if v, _ := RunVerdict(runner.RunRequest{Limits: runner.Limits{Time: time.Second}}, res); v != RTE {
		t.Errorf("exit 1 with a time limit: %q, want RTE", v)
	}
	j := JudgeRun(runner.RunRequest{Limits: runner.Limits{Time: time.Second}}, res)
	if j.Verdict != RTE || !strings.Contains(j.VerdictNote, "1") {
		t.Errorf("JudgeRun %+v", j)
	}
}

func TestBytesText(t *testing.T) {
	for b, want := range map[int64]string{-1: "unknown", 0: "0.0 MiB", 3 << 19: "1.5 MiB"} {
		if got := bytesText(b); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", b, got, want)
		}
	}
}
