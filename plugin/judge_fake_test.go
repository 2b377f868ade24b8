package plugin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/plugin/validator"
	"github.com/podjail/podjail/shim"
)

// fakeLang needs no build container: its source is its artefact.
var fakeLang = lang.Language{ID: "fake", Name: "Fake", RunImage: "fake/run", Source: "main.txt", Run: []string{"/run/podjail/artefact/main.txt"}}

// fakeProblem has one test per name: NAME.in holds "NAME", NAME.ans
// "answer NAME".
func fakeProblem(t *testing.T, names ...string) *problem.Problem {
	t.Helper()
	dir := t.TempDir()
	p := &problem.Problem{Dir: dir, Name: "fake", Format: problem.FormatPlain, TimeLimit: time.Second,
		MemoryBytes: 64 << 20, OutputBytes: 1 << 20, Comparator: "tokens"}
	for _, n := range names {
		tc := problem.Test{Name: n, Input: filepath.Join(dir, n+".in"), Answer: filepath.Join(dir, n+".ans")}
		if err := os.WriteFile(tc.Input, []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tc.Answer, []byte("answer "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p.Tests = append(p.Tests, tc)
	}
	return p
}

func right(n string) runnertest.Program {
	return runnertest.Program{Stdout: []byte("answer " + n + "\n"), CPU: 10 * time.Millisecond}
}

// inputOf names the test a container runs: its input file's base name
// without .in.
func inputOf(c *runnertest.Container) string {
	return strings.TrimSuffix(filepath.Base(c.Spec.InputFile), ".in")
}

// goneTo lists the tests whose containers got their go, sorted.
func goneTo(rt *runnertest.Runtime) []string {
	var out []string
	for _, id := range rt.State().Goes {
		out = append(out, inputOf(rt.Container(id)))
	}
	slices.Sort(out)
	return out
}

func judgeReq(p *problem.Problem) JudgeRequest {
	return JudgeRequest{Problem: p, Lang: fakeLang, Source: []byte("solution"), TmpDir: os.TempDir()}
}

func TestJudgeResultsInTestOrder(t *testing.T) {
	for _, parallel := range []int{1, 2} {
		p := fakeProblem(t, "1", "2", "3", "4", "5")
		// With two slots test 2 finishes before test 1 has written a byte.
		twoDone := make(chan struct{})
		progs := map[string]runnertest.Program{"2.in": right("2"), "3.in": {Stdout: []byte("answer 4\n"), CPU: time.Millisecond}, "4.in": right("4"), "5.in": right("5")}
		first := right("1")
		if parallel == 2 {
			first.Gate = twoDone
		}
		progs["1.in"] = first
		r, rt, cg := fakeRunner(t, runnertest.ByInput(progs))
		r.Cores = []int{0, 1}
		var once sync.Once
		rt.SetOnGo(func(c *runnertest.Container) {
			if inputOf(c) == "2" {
				go func() { <-c.Done(); once.Do(func() { close(twoDone) }) }()
			}
		})
		var progress []string
		req := judgeReq(p)
		req.Parallel = parallel
		req.Progress = func(done, total int, tr TestResult) {
			progress = append(progress, tr.Name)
			if done != len(progress) || total != 5 {
				t.Errorf("progress %d/%d for %s", done, total, tr.Name)
			}
		}
		res, err := r.Judge(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tr := range res.Tests {
			names = append(names, tr.Name)
			if tr.Critical <= 0 || tr.Time != tr.Run.Measure.Time || tr.Run.ExitCode != 0 {
				t.Errorf("P=%d test %s: critical %v, time %v, run %+v", parallel, tr.Name, tr.Critical, tr.Time, tr.Run)
			}
		}
		want := []string{"1", "2", "3", "4", "5"}
		if !slices.Equal(names, want) || !slices.Equal(progress, want) {
			t.Errorf("P=%d: results %v, progress %v", parallel, names, progress)
		}
		if res.Verdict != WA || !strings.HasPrefix(res.Note, "test 3: ") || res.Tests[2].Verdict != WA || res.Parallel != parallel || res.TestsWall <= 0 || !res.Build.OK {
			t.Errorf("P=%d: %s %q, test 3 %s, parallel %d, wall %v", parallel, res.Verdict, res.Note, res.Tests[2].Verdict, res.Parallel, res.TestsWall)
		}
		var sets []string
		for _, id := range rt.State().Created {
			sets = append(sets, rt.Container(id).Spec.CPUSet)
		}
		slices.Sort(sets)
		sets = slices.Compact(sets)
		if parallel == 1 && !slices.Equal(sets, []string{""}) || parallel == 2 && !slices.Equal(sets, []string{"0", "1"}) {
			t.Errorf("P=%d: cpusets %q", parallel, sets)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

// One slot: after the first failure no other test gets its go; what was
// armed ahead is removed unfired.
func TestJudgeStopOnFirstFailureOneSlot(t *testing.T) {
	p := fakeProblem(t, "a", "b", "c", "d", "e")
	// b fails once c and d, armed ahead, have their containers.
	aheadMade := make(chan struct{})
	var ahead sync.WaitGroup
	ahead.Add(2)
	go func() { ahead.Wait(); close(aheadMade) }()
	progs := map[string]runnertest.Program{"a.in": right("a"), "b.in": {Exit: 1, CPU: time.Millisecond, Gate: aheadMade}}
	for _, n := range []string{"c", "d", "e"} {
		progs[n+".in"] = right(n)
	}
	r, rt, cg := fakeRunner(t, func(s bindings.Spec) runnertest.Program {
		if n := filepath.Base(s.InputFile); n == "c.in" || n == "d.in" {
			ahead.Done()
		}
		return runnertest.ByInput(progs)(s)
	})
	req := judgeReq(p)
	req.StopOnFirstFailure = true
	res, err := r.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 2 || res.Verdict != RTE || !strings.Contains(res.Note, "test b: exit code 1") {
		t.Fatalf("%s %q, %d tests", res.Verdict, res.Note, len(res.Tests))
	}
	if got := goneTo(rt); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("went: %v", got)
	}
	// Armed ahead (lookahead 2): c and d, never fired.
	if s := rt.State(); len(s.Created) != 4 {
		t.Errorf("created %d containers, want a, b and the lookahead c, d", len(s.Created))
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// Two slots: test 3 fails while test 4 runs on the other slot; test 4 is
// cancelled and dropped, tests 5 and 6 never get a go.
func TestJudgeStopOnFirstFailureTwoSlots(t *testing.T) {
	p := fakeProblem(t, "1", "2", "3", "4", "5", "6")
	fourRuns := make(chan struct{})
	progs := map[string]runnertest.Program{"1.in": right("1"), "2.in": right("2"),
		"3.in": {Stdout: []byte("wrong\n"), Gate: fourRuns, CPU: time.Millisecond},
		"4.in": {Hang: true, CPU: time.Millisecond}, "5.in": right("5"), "6.in": right("6")}
	r, rt, cg := fakeRunner(t, runnertest.ByInput(progs))
	r.Cores = []int{0, 1}
	rt.SetOnGo(func(c *runnertest.Container) {
		if inputOf(c) == "4" {
			close(fourRuns)
		}
	})
	req := judgeReq(p)
	req.StopOnFirstFailure, req.Parallel = true, 2
	res, err := r.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 3 || res.Verdict != WA || res.Tests[2].Name != "3" {
		t.Fatalf("%s %q, tests %+v", res.Verdict, res.Note, res.Tests)
	}
	if got := goneTo(rt); !slices.Equal(got, []string{"1", "2", "3", "4"}) {
		t.Errorf("went: %v", got)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// A failure of ours stops the judge, StopOnFirstFailure or not.
func TestJudgeStopsAtInternalError(t *testing.T) {
	p := fakeProblem(t, "1", "2", "3", "4")
	progs := map[string]runnertest.Program{"1.in": right("1"), "2.in": {FailStep: "cgroup"}, "3.in": right("3"), "4.in": right("4")}
	r, rt, cg := fakeRunner(t, runnertest.ByInput(progs))
	res, err := r.Judge(context.Background(), judgeReq(p))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 2 || res.Verdict != IE || !strings.Contains(res.Note, "shim failed at step cgroup") {
		t.Fatalf("%s %q, %d tests", res.Verdict, res.Note, len(res.Tests))
	}
	if got := goneTo(rt); !slices.Equal(got, []string{"1"}) {
		t.Errorf("went: %v", got)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestJudgeCancelledMidway(t *testing.T) {
	p := fakeProblem(t, "1", "2", "3", "4")
	progs := map[string]runnertest.Program{"1.in": right("1"), "2.in": {Hang: true}, "3.in": right("3"), "4.in": right("4")}
	r, rt, cg := fakeRunner(t, runnertest.ByInput(progs))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt.SetOnGo(func(c *runnertest.Container) {
		if inputOf(c) == "2" {
			cancel()
		}
	})
	res, err := r.Judge(ctx, judgeReq(p))
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != IE || !strings.HasPrefix(res.Note, "judging interrupted") {
		t.Errorf("%s %q", res.Verdict, res.Note)
	}
	if len(res.Tests) > 2 || res.Tests[0].Verdict != AC {
		t.Errorf("tests %+v", res.Tests)
	}
	if got := goneTo(rt); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("went: %v", got)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestJudgeRefusals(t *testing.T) {
	p := fakeProblem(t, "1")
	r, rt, _ := fakeRunner(t, nil)
	if _, err := r.Judge(context.Background(), JudgeRequest{Problem: p, Lang: fakeLang}); err == nil {
		t.Error("empty source judged")
	}
	bad := judgeReq(p)
	bad.Lang.Run = []string{"relative"}
	if _, err := r.Judge(context.Background(), bad); err == nil {
		t.Error("invalid language judged")
	}
	rt.SetMissing(fakeLang.RunImage)
	var missing *bindings.ImageMissingError
	if _, err := r.Judge(context.Background(), judgeReq(p)); !errors.As(err, &missing) {
		t.Errorf("missing run image: %v", err)
	}
	java := judgeReq(p)
	java.Lang.RunImage = "localhost/podjail-java:latest"
	rt.SetMissing(java.Lang.RunImage)
	if _, err := r.Judge(context.Background(), java); !errors.As(err, &missing) ||
		!strings.Contains(err.Error(), "podman build -t localhost/podjail-java -f contrib/images/java.Containerfile") {
		t.Errorf("missing built-in image: %v; want the command that builds it", err)
	}
	rt.SetMissing()
	many := judgeReq(p)
	many.Parallel = 3
	r.Cores = []int{0, 1}
	var re *runner.RequestError
	if _, err := r.Judge(context.Background(), many); !errors.As(err, &re) || re.Field != "parallel" {
		t.Errorf("3 slots on 2 cores: %v", err)
	}
	if len(rt.State().Created) != 0 {
		t.Errorf("created %v", rt.State().Created)
	}
}

// A submission that does not build is CE; a checker that does not build
// voids the judgement (CF). Neither runs a test.
func TestJudgeBuildFailures(t *testing.T) {
	p := fakeProblem(t, "1")
	failing := one(runnertest.Program{Stdout: []byte("error: nope\n"), Exit: 1})
	r, rt, cg := fakeRunner(t, failing)
	req := judgeReq(p)
	req.Lang = compiled
	res, err := r.Judge(context.Background(), req)
	if err != nil || res.Verdict != CE || !strings.Contains(res.Note, "exited with code 1") || len(res.Tests) != 0 {
		t.Errorf("%s %q, %d tests, %v", res.Verdict, res.Note, len(res.Tests), err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)

	src := filepath.Join(p.Dir, "check.c")
	if err := os.WriteFile(src, []byte("checker"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Comparator, p.Checker = "", &problem.Program{Source: src, Lang: "c11"}
	r, rt, cg = fakeRunner(t, failing)
	res, err = r.Judge(context.Background(), judgeReq(p))
	if err != nil || res.Verdict != CF || res.Checker == nil || res.Checker.OK || len(res.Tests) != 0 {
		t.Errorf("%s %q, checker %+v, %d tests, %v", res.Verdict, res.Note, res.Checker, len(res.Tests), err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// withFakeChecker gives p a checker in the language "fakechk" (image
// fake/chk) and returns the table that holds that language.
func withFakeChecker(t *testing.T, p *problem.Problem) *lang.Table {
	t.Helper()
	chkSrc := filepath.Join(p.Dir, "check.txt")
	if err := os.WriteFile(chkSrc, []byte("checker"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Comparator, p.Checker = "", &problem.Program{Source: chkSrc, Lang: "fakechk"}
	langs := filepath.Join(t.TempDir(), "languages.yaml")
	if err := os.WriteFile(langs, []byte("fakechk:\n  run_image: fake/chk\n  source: check.txt\n  run: [/run/podjail/artefact/check.txt]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := lang.Load(langs)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// A checker decides each test from the output file and the answer.
func TestJudgeWithChecker(t *testing.T) {
	p := fakeProblem(t, "ac", "wa", "pa")
	table := withFakeChecker(t, p)
	checker := runnertest.Program{CPU: time.Millisecond, AtGo: func(s bindings.Spec) runnertest.Program {
		var output, answer []byte
		for _, b := range s.Binds {
			switch b.Destination {
			case checkOutput:
				output, _ = os.ReadFile(b.Source)
			case checkAnswer:
				answer, _ = os.ReadFile(b.Source)
			}
		}
		switch {
		case bytes.Equal(output, answer):
			return runnertest.Program{Stdout: []byte("ok\n")}
		case bytes.HasPrefix(output, []byte("partial")):
			return runnertest.Program{Stdout: []byte("partly right\npoints 0.5\n"), Exit: 7}
		}
		return runnertest.Program{Stdout: []byte("\n  expected " + string(answer) + "\n"), Exit: 1}
	}}
	progs := map[string]runnertest.Program{"ac.in": right("ac"), "wa.in": {Stdout: []byte("nope\n")}, "pa.in": {Stdout: []byte("partial\n")}}
	r, rt, cg := fakeRunner(t, func(s bindings.Spec) runnertest.Program {
		if s.Image == "fake/chk" {
			return checker
		}
		return runnertest.ByInput(progs)(s)
	})
	req := judgeReq(p)
	req.Languages = table
	res, err := r.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Checker == nil || !res.Checker.OK || len(res.Tests) != 3 {
		t.Fatalf("checker build %+v, %d tests", res.Checker, len(res.Tests))
	}
	got := []Verdict{res.Tests[0].Verdict, res.Tests[1].Verdict, res.Tests[2].Verdict}
	if !slices.Equal(got, []Verdict{AC, WA, PA}) || res.Tests[2].Points != 0.5 || res.Tests[1].Note != "expected answer wa" {
		t.Errorf("verdicts %v, points %v, notes %q", got, res.Tests[2].Points, res.Tests[1].Note)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestCheckVerdict(t *testing.T) {
	plain := &problem.Problem{Format: problem.FormatPlain}
	kattis := &problem.Problem{Format: problem.FormatKattis, Protocol: validator.Kattis}
	fb := t.TempDir()
	if err := os.WriteFile(filepath.Join(fb, validator.JudgeMessage), []byte("line 3: expected 7, got 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		p        *problem.Problem
		code     int32
		msg      string
		feedback string
		want     Verdict
		note     string
		points   float64
	}{
		{plain, 0, "ok 3 numbers\n", "", AC, "ok 3 numbers", 0},
		{plain, 2, "spaces", "", PE, "spaces", 0},
		{plain, 7, "points 12.5\n", "", PA, "points 12.5", 12.5},
		{plain, 7, "some points", "", CF, "without \"points X\"", 0},
		{plain, 3, "fail: bad answer file", "", CF, "the checker failed: exit code 3", 0},
		{kattis, 42, "", "", AC, "", 0},
		{kattis, 43, "differs", "", WA, "differs", 0},
		{kattis, 43, "differs", fb, WA, "line 3: expected 7, got 8", 0},
		{kattis, 0, "", fb, CF, "the checker failed: the output validator exited 0", 0},
		{kattis, 1, "crash", "", CF, "the output validator exited 1", 0},
	}
	for _, c := range cases {
		j := helperVerdict(c.p, "checker", runner.RunResult{ExitCode: c.code}, nil, c.msg, c.feedback)
		if j.Verdict != c.want || !strings.Contains(j.Note, c.note) || j.Points != c.points {
			t.Errorf("%s exit %d %q: %s %q %v", c.p.Format, c.code, c.msg, j.Verdict, j.Note, j.Points)
		}
	}
	if j := helperVerdict(plain, "checker", runner.RunResult{Killed: runner.KilledCPULimit}, nil, "", ""); j.Verdict != CF {
		t.Errorf("a checker out of time: %s", j.Verdict)
	}
	// Kattis: the validator reads the output on stdin, its feedback
	// directory ends with a slash, its arguments follow; testlib gets the
	// output as a file.
	binds := []bindings.Bind{{Source: "/t/fb", Destination: checkFeedback, Writable: true}}
	req := checkRequest(kattis, &checker{lang: fakeLang, dir: "/chk"}, problem.Test{Input: "/t/in", Answer: "/t/ans", ValidatorArgs: []string{"float_tolerance", "1e-6"}}, "/t/out", binds, nil, "3")
	if req.InputFile != "/t/out" || req.Limits.CPUSet != "3" || !slices.Equal(req.Command[len(req.Command)-5:], []string{checkInput, checkAnswer, checkFeedback + "/", "float_tolerance", "1e-6"}) || !slices.Contains(req.Binds, binds[0]) {
		t.Errorf("kattis validator: %q < %s, binds %v", req.Command, req.InputFile, req.Binds)
	}
	req = checkRequest(plain, &checker{lang: fakeLang, dir: "/chk"}, problem.Test{Input: "/t/in", Answer: "/t/ans"}, "/t/out", nil, nil, "")
	if req.InputFile != "" || !slices.Equal(req.Command[len(req.Command)-3:], []string{checkInput, checkOutput, checkAnswer}) {
		t.Errorf("testlib checker: %q < %s", req.Command, req.InputFile)
	}
}

// Interactive: the solution and the interactor talk through their attach
// streams; the interactor's exit code decides.
func TestJudgeInteractive(t *testing.T) {
	p := fakeProblem(t, "1")
	src := filepath.Join(p.Dir, "inter.txt")
	if err := os.WriteFile(src, []byte("interactor"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Comparator, p.Interactor, p.Interactive = "", &problem.Program{Source: src, Lang: "fake"}, true
	langs := filepath.Join(t.TempDir(), "languages.yaml")
	if err := os.WriteFile(langs, []byte("fake:\n  run_image: fake/inter\n  source: inter.txt\n  run: [/run/podjail/artefact/inter.txt]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := lang.Load(langs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		reply string
		want  Verdict
	}{{"ping\n", AC}, {"pong\n", WA}} {
		r, rt, cg := fakeRunner(t, func(s bindings.Spec) runnertest.Program {
			if s.Image == "fake/inter" {
				return runnertest.Program{Stdout: []byte("ping\n"), Expect: []byte(c.reply), CPU: time.Millisecond}
			}
			return runnertest.Program{Echo: true, CPU: time.Millisecond} // the solution
		})
		req := judgeReq(p)
		req.Languages = table
		res, err := r.Judge(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != c.want || len(res.Tests) != 1 {
			t.Errorf("interactor expecting %q: %s %q", c.reply, res.Verdict, res.Note)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

// A test whose first run fails for a reason of ours is IE and stops the
// judge; with RetryIE it is judged once more on a fresh container, and
// the note says so.
func TestJudgeRetryIE(t *testing.T) {
	for _, retry := range []bool{false, true} {
		p := fakeProblem(t, "1", "2", "3")
		var mu sync.Mutex
		runs := map[string]int{}
		r, rt, cg := fakeRunner(t, func(s bindings.Spec) runnertest.Program {
			n := strings.TrimSuffix(filepath.Base(s.InputFile), ".in")
			mu.Lock()
			defer mu.Unlock()
			runs[n]++
			if n == "2" && runs[n] == 1 {
				return runnertest.Program{NoReport: true} // the shim dies: not the program's doing
			}
			return right(n)
		})
		req := judgeReq(p)
		req.Parallel, req.RetryIE = 1, retry
		res, err := r.Judge(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !retry && (res.Verdict != IE || len(res.Tests) != 2):
			t.Errorf("without retry: %s (%s), %d tests; want IE after 2", res.Verdict, res.Note, len(res.Tests))
		case retry && (res.Verdict != AC || len(res.Tests) != 3 || !strings.Contains(res.Tests[1].Note, "judged again after IE")):
			t.Errorf("with retry: %s (%s), %d tests; want AC, 3 tests, test 2 noting the retry", res.Verdict, res.Note, len(res.Tests))
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

// TestJudgeLanguageRuntimeAndCeiling: a language's env reaches every run,
// its runtime's memory exit code is MLE and no other code is, and the
// Runner's memory ceiling lowers the problem's limit for every run.
func TestJudgeLanguageRuntimeAndCeiling(t *testing.T) {
	p := fakeProblem(t, "1", "oom", "exit1")
	progs := map[string]runnertest.Program{"1.in": right("1"), "oom.in": {Exit: 3, CPU: time.Millisecond}, "exit1.in": {Exit: 1, CPU: time.Millisecond}}
	r, rt, cg := fakeRunner(t, runnertest.ByInput(progs))
	r.MemoryCeiling = 32 << 20 // below the problem's 64 MiB
	req := judgeReq(p)
	req.Lang.Env, req.Lang.MemoryExitCode, req.Lang.ExtraTime = []string{"GOMAXPROCS=1"}, 3, time.Second
	res, err := r.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []Verdict{AC, MLE, RTE}
	for i, tr := range res.Tests {
		if tr.Verdict != want[i] {
			t.Errorf("test %s: %s (%s), want %s", tr.Name, tr.Verdict, tr.Note, want[i])
		}
	}
	if res.MemoryLimit != 32<<20 || res.TimeLimit != 2*time.Second {
		t.Errorf("limits reported: %d B, %v; want the ceiling and limit + extra time", res.MemoryLimit, res.TimeLimit)
	}
	for _, id := range rt.State().Goes {
		spec := rt.Container(id).Spec
		cmd := strings.Join(spec.Command, " ")
		env, err := shim.DecodeEnv(spec.Env[shim.EnvListEnv])
		if !strings.Contains(cmd, "--memory 33554432 ") || err != nil || !slices.Equal(env, []string{"GOMAXPROCS=1"}) {
			t.Errorf("%s: shim command %q, environment %q (%v): want the ceiling and the language's env", inputOf(rt.Container(id)), cmd, env, err)
		}
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}
