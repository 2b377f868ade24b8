package validator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podjail/podjail/plugin/verdict"
)

func TestCalls(t *testing.T) {
	f := Files{Input: "/in", Answer: "/ans", Output: "/out", Feedback: "/fb/"}
	if c := Testlib.Checker(f, []string{"x"}); !slices.Equal(c.Args, []string{"/in", "/out", "/ans", "x"}) || c.OutputOnStdin {
		t.Errorf("testlib checker %+v", c)
	}
	if c := Testlib.Interactor(f, nil); !slices.Equal(c.Args, []string{"/in", InteractorResult}) {
		t.Errorf("testlib interactor %+v", c)
	}
	if c := Kattis.Checker(f, []string{"float_tolerance", "1e-6"}); !slices.Equal(c.Args, []string{"/in", "/ans", "/fb/", "float_tolerance", "1e-6"}) || !c.OutputOnStdin {
		t.Errorf("kattis checker %+v", c)
	}
	if c := Kattis.Interactor(f, nil); !slices.Equal(c.Args, []string{"/in", "/ans", "/fb/"}) || c.OutputOnStdin {
		t.Errorf("kattis interactor %+v", c)
	}
	if Testlib.Feedback() || !Kattis.Feedback() {
		t.Error("only Kattis validators get a feedback directory")
	}
}

func TestKattisJudge(t *testing.T) {
	put := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty, msgs, scored, linked, long := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	put(msgs, JudgeMessage, "  wrong at line 3\n")
	put(msgs, TeamMessage, "check the order\n")
	put(scored, ScoreFile, "7\n")
	if err := os.Symlink("/etc/passwd", filepath.Join(linked, JudgeMessage)); err != nil {
		t.Fatal(err)
	}
	put(long, JudgeMessage, strings.Repeat("x", FeedbackRead+10))
	for _, c := range []struct {
		name string
		e    Ended
		want verdict.Verdict
		note string
	}{
		{"accepted", Ended{ExitCode: 42, FeedbackDir: empty}, verdict.AC, ""},
		{"rejected, its output's first line", Ended{ExitCode: 43, Output: "\nbad token\nmore", FeedbackDir: empty}, verdict.WA, "bad token"},
		{"rejected, its messages", Ended{ExitCode: 43, Output: "stderr", FeedbackDir: msgs}, verdict.WA, "wrong at line 3\nteam message: check the order"},
		{"exit 0 is a failure", Ended{ExitCode: 0, FeedbackDir: empty}, verdict.CF, "exited 0"},
		{"exit 1", Ended{ExitCode: 1, FeedbackDir: msgs}, verdict.CF, "wrong at line 3"},
		{"a score in a pass-fail problem", Ended{ExitCode: 42, FeedbackDir: scored}, verdict.CF, ScoreFile},
		{"a judge message that is a link", Ended{ExitCode: 43, FeedbackDir: linked}, verdict.CF, JudgeMessage},
		{"a long judge message is cut", Ended{ExitCode: 43, FeedbackDir: long}, verdict.WA, "cut at 4096 bytes"},
	} {
		j := Kattis.Judge(c.e)
		if j.Verdict != c.want || !strings.Contains(j.Note, c.note) || (c.note == "" && j.Note != "") || len(j.Note) > NoteKeep+40 {
			t.Errorf("%s: %s %.100q, want %s with %q", c.name, j.Verdict, j.Note, c.want, c.note)
		}
	}
}

func TestTestlibJudge(t *testing.T) {
	for _, c := range []struct {
		code   int
		out    string
		want   verdict.Verdict
		points float64
	}{
		{0, "ok", verdict.AC, 0}, {1, "wa", verdict.WA, 0}, {2, "pe", verdict.PE, 0},
		{7, "points 2.5", verdict.PA, 2.5}, {7, "no points", verdict.CF, 0}, {3, "fail", verdict.CF, 0},
	} {
		if j := Testlib.Judge(Ended{ExitCode: c.code, Output: c.out}); j.Verdict != c.want || j.Points != c.points {
			t.Errorf("exit %d %q: %+v", c.code, c.out, j)
		}
	}
	if long := FirstLine(strings.Repeat("x", 300)); len(long) != 203 {
		t.Errorf("first line kept %d bytes", len(long))
	}
}

func TestInteractorFirst(t *testing.T) {
	wa, cf, ac := Judgement{Verdict: verdict.WA}, Judgement{Verdict: verdict.CF}, Judgement{Verdict: verdict.AC}
	if Testlib.InteractorFirst(wa, true) || Testlib.InteractorFirst(cf, true) {
		t.Error("testlib: the solution's facts come first")
	}
	if !Kattis.InteractorFirst(wa, true) || Kattis.InteractorFirst(wa, false) || !Kattis.InteractorFirst(cf, false) || Kattis.InteractorFirst(ac, true) {
		t.Error("kattis: its failure, and its rejection when it ended first, come first; nothing else")
	}
}
