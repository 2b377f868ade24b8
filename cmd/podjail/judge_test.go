package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// judgeFiles is where the payload holds examples/problems (judge/problems)
// and the programs below (judge/src), outside the VM the repository.
func judgeFiles(t *testing.T, env hosttest.Env) (problems, src string) {
	t.Helper()
	if p := os.Getenv("PODJAIL_PAYLOAD"); p != "" {
		problems, src = filepath.Join(p, "judge", "problems"), filepath.Join(p, "judge", "src")
		if os.Getenv("PODJAIL_SELINUX") == "" {
			return problems, src
		}
		// Under SELinux Podman relabels what a run mounts, and a user's
		// Podman may relabel only the user's own files: the rootful and
		// rootless passes, at once, each judge a copy of their own.
		dir := t.TempDir()
		for _, d := range []string{problems, src} {
			if err := os.CopyFS(filepath.Join(dir, filepath.Base(d)), os.DirFS(d)); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(dir, "problems"), filepath.Join(dir, "src")
	}
	return filepath.Join("..", "..", "examples", "problems"), filepath.Join("testdata", "judge")
}

// judgeJSON runs `podjail judge --json` and returns the judgement and the
// exit code.
func judgeJSON(t *testing.T, env hosttest.Env, args ...string) (plugin.JudgeResult, int) {
	t.Helper()
	r := podjail(t, env, append([]string{"judge", "--json"}, args...)...)
	t.Logf("podjail judge %v: exit %d\n%s", args, r.code, r.stderr)
	var res plugin.JudgeResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("judgement is not JSON (exit %d): %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}
	for _, tr := range res.Tests {
		t.Logf("  test %s: %s %.3f s %d B (%s) wall %v first output %v", tr.Name, tr.Verdict, tr.Time.Seconds(), tr.Peak, tr.Note, tr.Run.Wall, tr.Run.FirstOutput)
	}
	t.Cleanup(func() { assertNothingLeft(t, env, "") })
	return res, r.code
}

// writeProblem makes a one-test plain A+B problem with small limits, but
// untimed: its callers want CE, PA, CF or IE, never TLE.
func writeProblem(t *testing.T, extra string) string {
	t.Helper()
	return writeProblemFiles(t, map[string]string{
		"problem.yaml": "name: tiny\ntime_limit: " + untimed + "\nmemory_limit: 64M\noutput_limit: 1M\n" + extra,
		"tests/1.in":   "19 23\n",
		"tests/1.ans":  "42\n",
	})
}

// writeProblemFiles writes files (path: content) into a new problem
// directory and returns it, readable by everyone: the rootless Podman
// service and user 65534 in the container read it.
func writeProblemFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
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
	return dir
}

func TestJudgeExampleAPlusB(t *testing.T) {
	env := hosttest.Podman(t)
	problems, _ := judgeFiles(t, env)
	// The example as shipped, but 5 s a test instead of 1: none of its
	// verdicts is about time, and under the VM's emulation Python's start
	// alone was charged 0.16-0.68 s a test with only this test running
	// (2026-12-06); the whole suite's load can push it over 1 s (the
	// likely cause of CI failing this test that day).
	dir := withTimeLimit(t, filepath.Join(problems, "aplusb"), untimed)
	for _, c := range []struct {
		solution string
		want     plugin.Verdict
		code     int
	}{
		{"accepted.c", plugin.AC, exitOK},
		{"accepted.py", plugin.AC, exitOK},
		{"pe.c", plugin.PE, exitRejected},
	} {
		// Python rootless is proven by the Kattis package's hello.py
		// (TestJudgeKattisPackage): accepted.py runs in the rootful pass alone.
		if env.Rootless && c.solution == "accepted.py" {
			continue
		}
		t.Run(c.solution, func(t *testing.T) {
			res, code := judgeJSON(t, env, dir, filepath.Join(dir, "solutions", c.solution))
			if res.Verdict != c.want || code != c.code {
				t.Fatalf("verdict %s (%s), exit %d; want %s, exit %d", res.Verdict, res.Note, code, c.want, c.code)
			}
			if c.want == plugin.AC && len(res.Tests) != 4 {
				t.Errorf("%d tests judged, want 4", len(res.Tests))
			}
		})
	}
}

// withTimeLimit copies the problem directory dir and sets the copy's
// time_limit (the problem.yaml line) to seconds; it fails the test if dir's
// problem.yaml has no such line.
func withTimeLimit(t *testing.T, dir, seconds string) string {
	t.Helper()
	// Readable by everyone, as writeProblemFiles makes them: the rootless
	// Podman service and user 65534 read the copy (CopyFS makes what is in
	// it 0755 and 0644 under the usual umask).
	top := t.TempDir()
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(top, filepath.Base(dir))
	if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	yaml := filepath.Join(cp, "problem.yaml")
	b, err := os.ReadFile(yaml)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^time_limit:.*$`)
	if !re.Match(b) {
		t.Fatalf("%s has no time_limit line", yaml)
	}
	if err := os.WriteFile(yaml, re.ReplaceAll(b, []byte("time_limit: "+seconds)), 0o644); err != nil {
		t.Fatal(err)
	}
	return cp
}

// verdictTests are the tests of TestJudgeVerdicts: the first word of each
// input tells testdata/judge/verdicts.c what to do.
var verdictTests = []struct {
	name, in string
	want     plugin.Verdict
	note     string
}{
	{"1-ac", "ac 19 23\n", plugin.AC, ""},
	{"2-wa", "wa 19 23\n", plugin.WA, `expected "42"`},
	{"3-spin", "spin 19 23\n", plugin.TLE, "processor ceiling"},
	{"4-sleep", "sleep 19 23\n", plugin.TLE, "no progress"},
	{"5-tick", "tick 19 23\n", plugin.TLE, "absolute cap"},
	{"6-hog", "hog 19 23\n", plugin.MLE, "memory.events"},
	{"7-flood", "flood 19 23\n", plugin.OLE, "output"},
	{"8-exit3", "exit3 19 23\n", plugin.RTE, "exit code 3"},
	{"9-segv", "segv 19 23\n", plugin.RTE, "SIGSEGV"},
}

// TestJudgeVerdicts reaches each verdict with a real program: one build of
// verdicts.c judged on a test per verdict, one at a time (as each ran alone
// in a judge of its own before: a deadline's note is the same either way),
// and a compile error.
func TestJudgeVerdicts(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	files := map[string]string{"problem.yaml": "name: verdicts\ntime_limit: 0.5\nmemory_limit: 64M\noutput_limit: 1M\n"}
	for _, vt := range verdictTests {
		files["tests/"+vt.name+".in"], files["tests/"+vt.name+".ans"] = vt.in, "42\n"
	}
	start := time.Now()
	res, code := judgeJSON(t, env, "--parallel", "1", writeProblemFiles(t, files), filepath.Join(src, "verdicts.c"))
	t.Logf("verdicts.c: %s (%s) in %v", res.Verdict, res.Note, time.Since(start))
	if !res.Build.OK || len(res.Tests) != len(verdictTests) {
		t.Fatalf("build ok %v (%s: %s), %d tests judged; want all %d", res.Build.OK, res.Note, res.Build.Output, len(res.Tests), len(verdictTests))
	}
	if code != exitRejected {
		t.Errorf("exit %d, want %d", code, exitRejected)
	}
	for i, vt := range verdictTests {
		tr := res.Tests[i]
		if tr.Name != vt.name || tr.Verdict != vt.want || !strings.Contains(tr.Note, vt.note) {
			t.Errorf("test %s: %s (%s); want %s with %q", vt.name, tr.Verdict, tr.Note, vt.want, vt.note)
		}
		if vt.want != plugin.WA {
			continue
		}
		// The stop is decided within a second of the first token; the
		// container's teardown after it is the runtime's (seconds under
		// emulation), logged beside.
		run := tr.Run
		stopIn := run.StoppedAt - run.FirstOutput
		t.Logf("first output at %v, stop decided %v later at %v of processor time (%v in all), container gone %v after the first output, %d bytes crossed",
			run.FirstOutput, stopIn, run.TimeAtStop, tr.Time, run.Wall-run.FirstOutput, run.OutputBytes)
		if run.FirstOutput == 0 || run.StoppedAt == 0 || stopIn > time.Second || run.OutputBytes > 256<<20 {
			t.Errorf("wrong answer not stopped early: first output at %v, stop decided %v later, %d bytes", run.FirstOutput, stopIn, run.OutputBytes)
		}
	}

	res, code = judgeJSON(t, env, writeProblem(t, ""), filepath.Join(src, "syntax.c"))
	if res.Verdict != plugin.CE || !strings.Contains(res.Note, "exited with code") || code != exitRejected {
		t.Errorf("syntax.c: %s (%s), exit %d; want CE with %q, exit %d", res.Verdict, res.Note, code, "exited with code", exitRejected)
	}
	if !strings.Contains(res.Build.Output, "error") {
		t.Errorf("CE without the compiler's message: %q", res.Build.Output)
	}
}

func TestJudgeCheckerVerdicts(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	for _, c := range []struct {
		checker string
		want    plugin.Verdict
		code    int
	}{
		{"checker_partial.c", plugin.PA, exitRejected},
		{"checker_crash.c", plugin.CF, exitFailure},
		{"checker_loop.c", plugin.CF, exitFailure},
	} {
		t.Run(c.checker, func(t *testing.T) {
			dir := writeProblem(t, "checker: checker/check.c\n")
			data, err := os.ReadFile(filepath.Join(src, c.checker))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "checker"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "checker", "check.c"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			res, code := judgeJSON(t, env, dir, filepath.Join(src, "aplusb.c"))
			if res.Verdict != c.want || code != c.code {
				t.Fatalf("verdict %s (%s), exit %d; want %s, exit %d", res.Verdict, res.Note, code, c.want, c.code)
			}
		})
	}
}

// A run that never starts (the language's program is not in its image) is
// IE, not the submission's fault.
func TestJudgeRunThatNeverStartsIsIE(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	langs := filepath.Join(t.TempDir(), "languages.yaml")
	broken := "c11:\n  run: [/nonexistent/main]\n"
	if err := os.WriteFile(langs, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	res, code := judgeJSON(t, env, "--languages", langs, writeProblem(t, ""), filepath.Join(src, "aplusb.c"))
	if res.Verdict != plugin.IE || code != exitFailure {
		t.Fatalf("verdict %s (%s), exit %d; want IE, exit %d", res.Verdict, res.Note, code, exitFailure)
	}
}

func TestJudgeBadInput(t *testing.T) {
	env := hosttest.Podman(t)
	problems, src := judgeFiles(t, env)
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "problem.yaml"), []byte("name: x\ntime_limit: abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		args     []string
		contains string
	}{
		{"broken problem", []string{broken, filepath.Join(src, "aplusb.c")}, "time_limit"},
		{"unknown language", []string{"--lang", "cobol", filepath.Join(problems, "aplusb"), filepath.Join(src, "aplusb.c")}, "unknown language"},
		{"unknown extension", []string{filepath.Join(problems, "aplusb"), filepath.Join(problems, "aplusb", "problem.yaml")}, "unknown language"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := podjail(t, env, append([]string{"judge"}, c.args...)...)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.contains) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, exitUsage, c.contains)
			}
			assertNothingLeft(t, env, "")
		})
	}
}

func TestJudgeKattisPackage(t *testing.T) {
	env := hosttest.Podman(t)
	problems, _ := judgeFiles(t, env)
	dir := filepath.Join(problems, "kattis-hello")
	res, code := judgeJSON(t, env, dir, filepath.Join(dir, "submissions", "accepted", "hello.py"))
	if res.Verdict != plugin.AC || code != exitOK || len(res.Tests) != 2 {
		t.Fatalf("verdict %s (%s), exit %d, %d tests; want AC on 2 tests", res.Verdict, res.Note, code, len(res.Tests))
	}
}

// The Kattis examples through podjail verify and podjail judge: output
// validators called as the format calls them (2025-09 and 2023-07 draft
// layouts, the groups' arguments, the feedback directory's judge message
// in the note, an interactive validator's rejection deciding before the
// crash that follows it, as problemtools judges it, a multi-pass problem's
// passes each fed by the validator of the pass before, GNU C), the input
// validators, a time limit derived from the accepted submissions, a
// misplaced submission named (exit 3), an input a validator rejects, a
// crashing validator (CF). Each package is verified whole in one mode and
// its rejected submission judged in the other, alternating, so that every
// validator protocol path runs in both modes; the checks of verify's own
// logic (the derived limit, the rejected input, the crash) run in one.
func TestVerifyKattisPackages(t *testing.T) {
	env := hosttest.Podman(t)
	problems, _ := judgeFiles(t, env)
	even := filepath.Join(problems, "kattis-even")
	type pkg struct{ name, wrong, note string }
	packages := []pkg{
		{"kattis-even", "wrong_answer/smallest.c", "3 is odd, and this group wants an even number"},
		{"kattis-guess", "wrong_answer/crash_after_reject.c", `guess 1 is not an integer in 1..1000000: "0" (at most 20 guesses)`},
		// the third pass's input is the second's 2x+1, written by its validator
		{"kattis-double", "wrong_answer/small_only.c", "pass 3 of 3: pass 3: 15 is not twice 15"},
	}
	wrongOn := func(name string, tests []plugin.TestResult, want string) {
		t.Helper()
		for _, tr := range tests {
			if tr.Name == "secret/1" && (tr.Verdict != plugin.WA || !strings.Contains(tr.Note, want)) {
				t.Errorf("%s: test %s %s %q, want WA with %q", name, tr.Name, tr.Verdict, tr.Note, want)
			}
		}
	}
	for i, p := range packages {
		dir := filepath.Join(problems, p.name)
		// kattis-even (the input validators) is verified in both modes.
		if p.name != "kattis-even" && (i%2 == 0) != env.Rootless {
			res, code := judgeJSON(t, env, dir, filepath.Join(dir, "submissions", p.wrong))
			if res.Verdict != plugin.WA || code != exitRejected {
				t.Errorf("%s %s: %s (%s), exit %d; want WA", p.name, p.wrong, res.Verdict, res.Note, code)
			}
			wrongOn(p.name+" "+p.wrong, res.Tests, p.note)
			continue
		}
		r := podjail(t, env, "verify", "--json", dir)
		var rep VerifyReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK || len(rep.Submissions) != 2 || rep.TimeLimit != time.Second {
			t.Errorf("verify %s: exit %d, %d submissions, time limit %s (%v); stderr %s", p.name, r.code, len(rep.Submissions), rep.TimeLimit, err, r.stderr)
			continue
		}
		if p.name == "kattis-even" && (len(rep.Inputs) != 1 || rep.Inputs[0].Validator != "validate" || rep.Inputs[0].Checked != 2 || len(rep.Inputs[0].Rejected) != 0 || rep.Inputs[0].Skipped != "") {
			t.Errorf("kattis-even's input validator: %+v; want validate, 2 inputs valid", rep.Inputs)
		}
		for _, v := range rep.Submissions {
			// C is GNU C in a Kattis package: strdup is declared.
			if v.Submission == "accepted/smallest_even.c" && v.Language != "gnu11" {
				t.Errorf("%s %s: judged as %s, want gnu11", p.name, v.Submission, v.Language)
			}
			if !v.OK || v.Judgement == nil {
				t.Errorf("%s %s: %s (%s)", p.name, v.Submission, v.Verdict, v.Note)
				continue
			}
			if v.Submission == p.wrong {
				wrongOn(p.name+" "+p.wrong, v.Judgement.Tests, p.note)
			}
		}
	}
	// GNU C's compile error, in each mode (its accepted build above).
	broken := filepath.Join(t.TempDir(), "broken.c")
	if err := os.WriteFile(broken, []byte("int main(void) { return 0 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, code := judgeJSON(t, env, even, broken); res.Verdict != plugin.CE || code != exitRejected || !strings.Contains(res.Build.Output, "error") {
		t.Errorf("a C source that does not compile, in a Kattis package: %s (%s: %s), exit %d; want CE, exit %d", res.Verdict, res.Note, res.Build.Output, code, exitRejected)
	}
	write := func(dir string, files map[string]string) {
		t.Helper()
		for rel, text := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	source := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(even, "submissions", rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if !env.Rootless {
		// No time limit: derived from the accepted submission (1 s); the
		// other "accepted" submission is wrong, named, exit 3. Two tests.
		dir := filepath.Join(t.TempDir(), "untimed")
		if err := os.CopyFS(filepath.Join(dir, "output_validator"), os.DirFS(filepath.Join(even, "output_validator"))); err != nil {
			t.Fatal(err)
		}
		write(dir, map[string]string{
			"problem.yaml":     "problem_format_version: 2025-09\nname: Untimed\nuuid: 1b0c2f34-5e6f-4a1b-8c9d-0e1f2a3b4c5d\n",
			"data/sample/1.in": "1 1\n", "data/sample/1.ans": "1\n",
			"data/secret/test_group.yaml": "output_validator_args: [even]\n",
			"data/secret/1.in":            "3 6\n", "data/secret/1.ans": "4\n",
			"submissions/accepted/smallest_even.c": source("accepted/smallest_even.c"),
			"submissions/accepted/smallest.c":      source("wrong_answer/smallest.c"),
		})
		r := podjail(t, env, "verify", dir)
		if r.code != exitRejected || !strings.Contains(r.stdout, "time limit: 1.000 s (derived: the slowest accepted submission's") ||
			!strings.Contains(r.stdout, "NOT AS EXPECTED: test secret/1 is WA, which accepted/ does not allow") || !strings.Contains(r.stdout, "accepted/smallest.c") {
			t.Errorf("an untimed package with a wrong accepted submission: exit %d, stdout %s, stderr %s; want exit %d, a derived limit of 1 s, accepted/smallest.c named", r.code, r.stdout, r.stderr, exitRejected)
		}
	} else {
		// An input its validator rejects (with the secret group's
		// argument), in a package without submissions: the inputs are
		// checked all the same.
		bad := filepath.Join(t.TempDir(), "badinput")
		for _, d := range []string{"data", "output_validator", "input_validators"} {
			if err := os.CopyFS(filepath.Join(bad, d), os.DirFS(filepath.Join(even, d))); err != nil {
				t.Fatal(err)
			}
		}
		write(bad, map[string]string{"problem.yaml": "problem_format_version: 2025-09\nname: Bad\nuuid: 2c1d3e45-6f70-4b2c-9d0e-1f2a3b4c5d6e\nlimits: {time_limit: 1}\n",
			"data/secret/3.in": "5 2\n", "data/secret/3.ans": "5\n"})
		r := podjail(t, env, "verify", bad)
		if r.code != exitRejected || !strings.Contains(r.stdout, "input validator validate: 1 of 3 inputs rejected") ||
			!strings.Contains(r.stdout, "input validator validate rejects secret/3: exit code 43 (42 accepts): want 1 <= a <= b <= 10^9, got 5 2") {
			t.Errorf("a package with an invalid input: exit %d, stdout %s, stderr %s; want exit %d naming secret/3", r.code, r.stdout, r.stderr, exitRejected)
		}
		// A validator that crashes is the problem's failure: CF, never WA.
		crashing := filepath.Join(t.TempDir(), "crashing")
		if err := os.CopyFS(crashing, os.DirFS(even)); err != nil {
			t.Fatal(err)
		}
		write(crashing, map[string]string{"output_validator/validate.c": "#include <signal.h>\nint main(void) { raise(SIGSEGV); return 42; }\n"})
		res, code := judgeJSON(t, env, crashing, filepath.Join(crashing, "submissions", "accepted", "smallest_even.c"))
		if res.Verdict != plugin.CF || code != exitFailure || !strings.Contains(res.Note, "the checker failed: killed by SIGSEGV") {
			t.Errorf("a crashing validator: %s (%s), exit %d; want CF, exit %d", res.Verdict, res.Note, code, exitFailure)
		}
	}
	assertNothingLeft(t, env, "")
}

func TestJudgeInteractiveGuess(t *testing.T) {
	env := hosttest.Podman(t)
	problems, src := judgeFiles(t, env)
	dir := filepath.Join(problems, "guess")
	res, code := judgeJSON(t, env, dir, filepath.Join(dir, "solutions", "accepted.c"))
	if res.Verdict != plugin.AC || code != exitOK || len(res.Tests) != 3 {
		t.Fatalf("verdict %s (%s), exit %d, %d tests; want AC on 3 tests", res.Verdict, res.Note, code, len(res.Tests))
	}
	// A solution that never asks: the interactor sees EOF and says WA.
	res, code = judgeJSON(t, env, "--stop-on-first-failure", dir, filepath.Join(src, "exit0.c"))
	if res.Verdict != plugin.WA || code != exitRejected {
		t.Fatalf("silent solution: verdict %s (%s), exit %d; want WA", res.Verdict, res.Note, code)
	}
}
