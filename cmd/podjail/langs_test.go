package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// langTests are the tests of langProblem: the first word of each input
// tells the language's program (testdata/judge/langs/main.*) what to do.
var langTests = []struct {
	name, in, ans string
	want          plugin.Verdict
	note          string // in the test's note; for MLE the language's own
}{
	{"1-ac", "ac 19 23\n", "42\n", plugin.AC, ""},
	{"2-wa", "wa 19 23\n", "42\n", plugin.WA, `expected "42"`},
	{"3-cpus", "cpus\n", "1\n", plugin.AC, ""}, // the runtime sizes itself for one core
	{"4-rte", "rte\n", "0\n", plugin.RTE, "exit code"},
	{"5-tle", "tle\n", "0\n", plugin.TLE, "processor ceiling"},
	{"6-mle", "mle\n", "0\n", plugin.MLE, ""},
}

// langProblem writes the problem of langTests: the time limit in seconds
// (the language's extra time on top) and the memory limit.
func langProblem(t *testing.T, limit, memory string) string {
	t.Helper()
	files := map[string]string{"problem.yaml": "name: langs\ntime_limit: " + limit + "\nmemory_limit: " + memory + "\noutput_limit: 1M\n"}
	for _, lt := range langTests {
		files["tests/"+lt.name+".in"], files["tests/"+lt.name+".ans"] = lt.in, lt.ans
	}
	return writeProblemFiles(t, files)
}

// TestJudgeLanguages judges a real program of each runtime language of the
// built-in table to every verdict, and their compile errors: the runtimes'
// quirks (a JVM's own heap, threads, JIT, processors seen) end as a judge
// expects.
func TestJudgeLanguages(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	for _, l := range []struct {
		id, main string
		// limit is the problem's time limit: under the VM's emulation a
		// runtime that compiles code as it runs (the JVM, V8) takes 2-3 s
		// of processor time to start (TCG translates every page of code
		// it writes anew); natively it is a tenth of that. JavaScript's
		// is 10: V8's emulated start was charged up to ~4.7 s (a rootful
		// AC test, 4.685 s) under the suite's load, too close to 6. So is
		// Java's: a JVM filling its heap was stopped at 5.5 s of 6 under
		// the suite's load (the omegajail front, CI 2026-12-06), and here
		// the same heap must fill before the limit for MLE. Go and Rust
		// fill 64 MiB under a 2 s limit: 256 MiB under 1 s raced the
		// processor ceiling (3 s) under the suite's load, rootless (CI
		// 2026-12-07: the kernel's page faults are system time, slow
		// under emulation).
		limit, memory string
		mle           string            // the MLE note: who stopped the program
		ce            map[string]string // source: what the CE says
	}{
		// The JVM stops at its heap (3/4 of the limit, read from the
		// cgroup) and exits 3: proof that it saw the run's limit.
		{"java", "Main.java", "10", "256M", "runtime ran out of memory (exit code 3)", map[string]string{
			"Syntax.java": "error: ';' expected",
			// A class in a package: no Main.class, as a class named
			// otherwise, so no main.jar, and the whole hint.
			"Packaged.java": "the build made no main.jar: Make sure your class is named Main and outside all packages",
		}},
		{"go", "main.go", "2", "64M", "memory limit hit", map[string]string{"syntax.go": "undefined: undefined"}},
		{"rust", "main.rs", "2", "64M", "memory limit hit", map[string]string{"syntax.rs": "mismatched types"}},
		{"javascript", "main.js", "10", "256M", "memory limit hit", map[string]string{"syntax.js": "SyntaxError"}},
	} {
		t.Run(l.id, func(t *testing.T) {
			dir := langProblem(t, l.limit, l.memory)
			res, _ := judgeJSON(t, env, "--lang", l.id, dir, filepath.Join(src, "langs", l.main))
			if !res.Build.OK || len(res.Tests) != len(langTests) {
				t.Fatalf("build ok %v (%s: %s), %d tests judged; want all %d", res.Build.OK, res.Note, res.Build.Output, len(res.Tests), len(langTests))
			}
			t.Logf("build: %.3f s, %d B", res.Build.Time.Seconds(), res.Build.Peak)
			for i, lt := range langTests {
				got, note := res.Tests[i].Verdict, lt.note
				if lt.want == plugin.MLE {
					note = l.mle
				}
				if got != lt.want || !strings.Contains(res.Tests[i].Note, note) {
					t.Errorf("test %s: %s (%s); want %s with %q", lt.name, got, res.Tests[i].Note, lt.want, note)
				}
			}
			// A compile error is the build's output shown: nothing of it
			// depends on the mode, so the rootful pass alone judges them;
			// the rootless pass's builds above prove every compiler runs
			// rootless.
			for file, want := range l.ce {
				if env.Rootless {
					break
				}
				res, code := judgeJSON(t, env, "--lang", l.id, dir, filepath.Join(src, "langs", file))
				if text := res.Note + "\n" + res.Build.Output; res.Verdict != plugin.CE || code != exitRejected || !strings.Contains(text, want) {
					t.Errorf("%s: %s, exit %d (%s); want CE, exit %d, with %q", file, res.Verdict, code, text, exitRejected, want)
				}
			}
		})
	}
}

// TestJudgeCMSImageLanguages judges A+B in each language of the table that
// lives in podjail-cms, accepted in each mode, and a source of each that
// does not compile, CE with what the build said, in one mode (alternating:
// what the build said does not depend on the mode). The other verdicts do
// not depend on the language.
func TestJudgeCMSImageLanguages(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	// 10 s: Mono's and PyPy's start is JIT compiling, slow under the VM's
	// emulation; 256 MiB: PyPy alone starts with some 50 MB.
	dir := writeProblemFiles(t, map[string]string{
		"problem.yaml": "name: aplusb\ntime_limit: 10\nmemory_limit: 256M\noutput_limit: 1M\n",
		"tests/1.in":   "19 23\n",
		"tests/1.ans":  "42\n",
	})
	for i, l := range []struct{ id, src, broken, ce string }{
		// A unit compiles to no program: the table's hint. It is named
		// main, as the file the build writes: fpc refuses a unit named
		// otherwise before it could build nothing ("Illegal unit name").
		{"pascal", "aplusb.pas", "unit main;\ninterface\nimplementation\nend.\n",
			"the build made no main: Make sure the source is a program, not a unit"},
		// A module not named Main links nothing: GHC says so.
		{"haskell", "aplusb.hs", "module Solution where\nmain :: IO ()\nmain = print 1\n", "There is no module named"},
		{"csharp", "aplusb.cs", "class B { static void Main( { } }\n", "error CS1525"},
		{"php", "aplusb.php", "<?php\necho 1 +;\n", "PHP Parse error"},
		{"pypy3", "aplusb.py", "print(1 +\n", "SyntaxError"},
	} {
		t.Run(l.id, func(t *testing.T) {
			res, code := judgeJSON(t, env, "--lang", l.id, dir, filepath.Join(src, "aplusb", l.src))
			if res.Verdict != plugin.AC || code != exitOK {
				t.Errorf("A+B: %s (%s: %s), exit %d; want AC", res.Verdict, res.Note, res.Build.Output, code)
			}
			t.Logf("build: %.3f s, %d B; run: %d B", res.Build.Time.Seconds(), res.Build.Peak, peakOf(res))
			if (i%2 == 0) == env.Rootless { // the broken source in the other mode
				return
			}
			broken := filepath.Join(t.TempDir(), "broken"+filepath.Ext(l.src))
			if err := os.WriteFile(broken, []byte(l.broken), 0o644); err != nil {
				t.Fatal(err)
			}
			res, code = judgeJSON(t, env, "--lang", l.id, dir, broken)
			if text := res.Note + "\n" + res.Build.Output; res.Verdict != plugin.CE || code != exitRejected || !strings.Contains(text, l.ce) {
				t.Errorf("broken source: %s, exit %d (%s); want CE, exit %d, with %q", res.Verdict, code, text, exitRejected, l.ce)
			}
		})
	}
}

// peakOf is the first test's peak memory, 0 if none was judged.
func peakOf(res plugin.JudgeResult) int64 {
	if len(res.Tests) == 0 {
		return 0
	}
	return res.Tests[0].Peak
}
