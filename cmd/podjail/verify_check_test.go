package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/problem"
)

func TestVerifyCheck(t *testing.T) {
	tests := func(vs ...plugin.Verdict) plugin.JudgeResult {
		res := plugin.JudgeResult{Verdict: plugin.AC}
		for i, v := range vs {
			res.Tests = append(res.Tests, plugin.TestResult{Name: string(rune('1' + i)), Verdict: v})
			if v != plugin.AC && res.Verdict == plugin.AC {
				res.Verdict = v
			}
		}
		return res
	}
	for _, c := range []struct {
		folder string
		res    plugin.JudgeResult
		ok     bool
		note   string
	}{
		{"accepted", tests(plugin.AC, plugin.AC), true, ""},
		{"accepted", tests(plugin.AC, plugin.WA), false, "test 2 is WA, which accepted/ does not allow (AC)"},
		{"wrong_answer", tests(plugin.AC, plugin.WA), true, ""},
		{"wrong_answer", tests(plugin.AC, plugin.PE), true, ""},
		{"wrong_answer", tests(plugin.AC, plugin.AC), false, "no test is WA"},
		{"wrong_answer", tests(plugin.WA, plugin.TLE), false, "test 2 is TLE"},
		{"time_limit_exceeded", tests(plugin.AC, plugin.TLE), true, ""},
		{"run_time_error", tests(plugin.MLE), true, ""},
		{"run_time_error", tests(plugin.RFE, plugin.AC), true, ""},
		{"rejected", tests(plugin.AC, plugin.TLE), true, ""},
		{"rejected", tests(plugin.AC), false, "no test is WA or TLE or RTE"},
		{"brute_force", tests(plugin.AC, plugin.TLE), true, ""},
		{"brute_force", tests(plugin.WA, plugin.TLE), false, "test 1 is WA"},
		{"accepted", plugin.JudgeResult{Verdict: plugin.CE, Note: "main.c:1: error"}, false, "CE: main.c:1: error"},
	} {
		v := Verification{Folder: c.folder}
		check(&v, c.res, expectations[c.folder])
		if v.OK != c.ok || !strings.Contains(v.Note, c.note) {
			t.Errorf("%s %v: ok %v %q, want %v %q", c.folder, c.res.Tests, v.OK, v.Note, c.ok, c.note)
		}
	}
}

func TestDerivedLimit(t *testing.T) {
	modern := problem.Timing{ACToTimeLimit: 2, TimeLimitToTLE: 1.5, Resolution: 1}
	for _, c := range []struct {
		slowest time.Duration
		t       problem.Timing
		want    time.Duration
	}{
		{10 * time.Millisecond, modern, time.Second},
		{500 * time.Millisecond, modern, time.Second},
		{501 * time.Millisecond, modern, 2 * time.Second},
		{300 * time.Millisecond, problem.Timing{ACToTimeLimit: 5, Resolution: 1}, 2 * time.Second},
		{300 * time.Millisecond, problem.Timing{ACToTimeLimit: 2, Resolution: 0.25}, 750 * time.Millisecond},
		{100 * time.Millisecond, problem.Timing{ACToTimeLimit: 2, Resolution: 0.25}, 250 * time.Millisecond},
	} {
		if got := derivedLimit(c.slowest, c.t); got != c.want {
			t.Errorf("slowest %s, %+v: %s, want %s", c.slowest, c.t, got, c.want)
		}
	}
}

func TestVerifySubmissions(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"submissions/accepted/a.c", "submissions/accepted/multi/x.c", "submissions/wrong_answer/w.py", "submissions/accepted/.hidden"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	subs, err := submissions(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range subs {
		got = append(got, s.rel)
		if s.rel == "accepted/multi" && !s.dir {
			t.Error("a directory submission not marked as one")
		}
	}
	if strings.Join(got, " ") != "accepted/a.c accepted/multi wrong_answer/w.py" {
		t.Errorf("submissions %q", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, "submissions", "slow"), 0o755); err != nil {
		t.Fatal(err)
	}
	if subs, err := submissions(dir); err != nil || len(subs) != 4 || subs[2].rel != "slow/" || !subs[2].unknown {
		t.Errorf("an unknown folder: %+v, %v", subs, err)
	}
	if subs, err := submissions(t.TempDir()); err != nil || len(subs) != 0 {
		t.Errorf("no submissions/: %v, %v; want none, the inputs checked all the same", subs, err)
	}
}
