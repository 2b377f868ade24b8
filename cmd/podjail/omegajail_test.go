package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
)

// omegaRunner replays omegaUp's Runner: the exact argument vectors of
// quark's runner/sandbox.go (as in plugin/omegajail's tests), with its
// directories moved under dir, through podjail installed as "omegajail".
type omegaRunner struct {
	t       *testing.T
	env     hosttest.Env
	bin     string // a symlink named omegajail to podjail
	runRoot string
	stderr  string // what the last call wrote to its stderr
	// extra is the front's environment beyond the test's, e.g.
	// PODJAIL_SERVICE; nil: none.
	extra []string
}

func newOmegaRunner(t *testing.T, env hosttest.Env) *omegaRunner {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "omegajail")
	if err := os.Symlink(env.Podjail, bin); err != nil {
		t.Fatal(err)
	}
	// The shim is found beside the executable's target.
	o := &omegaRunner{t: t, env: env, bin: bin, runRoot: filepath.Join(dir, "grade", "1")}
	if err := os.MkdirAll(filepath.Join(o.runRoot, "Main", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	return o
}

func (o *omegaRunner) exec(argv ...string) cmdResult {
	o.t.Helper()
	env := o.env
	env.Podjail = o.bin
	r := podjailWith(o.t, env, o.extra, argv...)
	o.t.Logf("omegajail %s: exit %d %s", strings.Join(argv, " "), r.code, r.stderr)
	o.stderr = r.stderr
	return r
}

func (o *omegaRunner) meta(name string) omegajail.Meta {
	o.t.Helper()
	f, err := os.Open(filepath.Join(o.runRoot, name))
	if err != nil {
		o.t.Fatalf(".meta: %v", err)
	}
	defer f.Close()
	m, err := omegajail.ParseMeta(f)
	if err != nil {
		o.t.Fatal(err)
	}
	return m
}

// compile is the Runner's compile argv for a Main.cpp in language lang.
func (o *omegaRunner) compile(lang, source string) omegajail.Meta {
	return o.compileFile(lang, "Main.cpp", source)
}

// compileFile is the Runner's compile argv for the source file name (Main.
// and the language's extension, as the Runner names it).
func (o *omegaRunner) compileFile(lang, name, source string) omegajail.Meta {
	o.t.Helper()
	if err := os.WriteFile(filepath.Join(o.runRoot, "Main", "bin", name), []byte(source), 0o644); err != nil {
		o.t.Fatal(err)
	}
	o.exec("--homedir", o.runRoot+"/Main/bin", "--homedir-writable",
		"-1", o.runRoot+"/Main/compile.out", "-2", o.runRoot+"/Main/compile.err", "-M", o.runRoot+"/Main/compile.meta",
		"-t", "30000", "-O", "10485760", "--root", "/var/lib/omegajail",
		"--compile", lang, "--compile-target", "Main", "--compile-source", name)
	return o.meta("Main/compile.meta")
}

// run is the Runner's run argv for case 1: untimed, 256 MiB, 10 KiB of
// output. Its callers' verdicts are not about time, and -w 0 makes the
// wall limit the time limit: at the Runner's usual 1 s a busy host's
// scheduling alone could end a run.
func (o *omegaRunner) run(lang, input string) (omegajail.Meta, string) {
	o.t.Helper()
	return o.runFor(lang, input, untimedMs)
}

// runFor is run with a time limit of ms milliseconds.
func (o *omegaRunner) runFor(lang, input, ms string) (omegajail.Meta, string) {
	o.t.Helper()
	return o.runWith(lang, input, ms, 268435456)
}

// runWith is runFor with -m memory.
func (o *omegaRunner) runWith(lang, input, ms string, memory int64) (omegajail.Meta, string) {
	o.t.Helper()
	in := filepath.Join(o.runRoot, "1.in")
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		o.t.Fatal(err)
	}
	o.exec("--homedir", o.runRoot+"/Main/bin", "-0", in, "-1", o.runRoot+"/1.out", "-2", o.runRoot+"/1.err",
		"-M", o.runRoot+"/1.meta", "-m", strconv.FormatInt(memory, 10), "-t", ms, "-w", "0", "-O", "10240",
		"--root", "/var/lib/omegajail", "--run", lang, "--run-target", "Main")
	out, _ := os.ReadFile(filepath.Join(o.runRoot, "1.out"))
	return o.meta("1.meta"), string(out)
}

// aPlusBCpp is A+B on <iostream>: TestOmegajailReplaysTheRunner compiles
// it, so that one real iostream program still runs.
const aPlusBCpp = "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }\n"

// aPlusBCstdio is A+B on <cstdio>, for the other tests' C++ compiles: each
// g++ -O2 -static of it costs some 6 s of processor time less than of
// <iostream> under the test VM's emulation.
const aPlusBCstdio = "#include <cstdio>\nint main() { long long a, b; if (scanf(\"%lld %lld\", &a, &b) != 2) return 1; printf(\"%lld\\n\", a + b); }\n"

func TestOmegajailReplaysTheRunner(t *testing.T) {
	env := hosttest.Podman(t)
	// omegaUp appends omegajail's stderr to compile.err, which the
	// contestant reads: not even podjail's debug log may reach it.
	t.Setenv("PODJAIL_LOG_LEVEL", "debug")
	o := newOmegaRunner(t, env)
	if m := o.compile("cpp17-gcc", aPlusBCpp); omegajail.RunnerVerdict(m, omegajail.ForCompile("cpp17-gcc")) != "OK" {
		errOut, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", "compile.err"))
		t.Fatalf("compile meta %+v, compile.err:\n%s", m, errOut)
	}
	if o.stderr != "" {
		t.Errorf("omegajail wrote to its stderr on a good compile (omegaUp shows it to the contestant):\n%s", o.stderr)
	}
	m, out := o.run("cpp17-gcc", "19 23\n")
	if v := omegajail.RunnerVerdict(m, omegajail.ForRun("cpp17-gcc", 268435456)); v != "OK" || out != "42\n" {
		t.Fatalf("run: verdict %s, meta %+v, output %q; want OK and 42", v, m, out)
	}
	t.Logf("meta: %+v", m)

	// cpp11: what omegaUp compiles its validators and libinteractive parents as.
	if m := o.compile("cpp11", "int main() { for (volatile unsigned long x = 0;; x++); }\n"); m.ExitStatus == nil || *m.ExitStatus != 0 {
		t.Fatalf("compile of the spinner as cpp11: %+v", m)
	}
	m, _ = o.runFor("cpp11", "", "1000") // the Runner's usual 1 s: this one is about time
	if v := omegajail.RunnerVerdict(m, omegajail.ForRun("cpp11", 268435456)); v != "TLE" {
		t.Fatalf("spinner: verdict %s, meta %+v; want TLE", v, m)
	}

	if m := o.compile("cpp17-gcc", "int main( {\n"); omegajail.RunnerVerdict(m, omegajail.ForCompile("cpp17-gcc")) == "OK" {
		t.Fatalf("a syntax error compiled: %+v", m)
	}
	if errOut, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", "compile.err")); !strings.Contains(string(errOut), "error") {
		t.Errorf("compile.err lacks the compiler's message: %q", errOut)
	}
	assertNothingLeft(t, env, "")
}

// TestOmegajailThroughService: the omegajail front with a podjail service
// up ($PODJAIL_SERVICE): the compiles and runs all through the service
// (the sources go in and the artefacts come back on the call), with the
// same verdicts, messages and output as in process; the second compile
// and the next cases of the same program are taken armed ahead. (A time
// limit through the service: TestIsolateThroughService's Judge0 spinner.)
func TestOmegajailThroughService(t *testing.T) {
	env := hosttest.Podman(t)
	sock, stop := startService(t, env, "--drain", "2s")
	t.Setenv("PODJAIL_SERVICE", sock)
	o := newOmegaRunner(t, env)
	// The Runner calls any compile that is not OK a compile error.
	if m := o.compile("cpp17-gcc", "int main() { return undeclared; }\n"); omegajail.RunnerVerdict(m, omegajail.ForCompile("cpp17-gcc")) == "OK" || m.ExitStatus == nil || *m.ExitStatus != 1 {
		t.Errorf("a broken source: compile meta %+v, want status 1 (the Runner's CE)", m)
	}
	if msg, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", "compile.err")); !strings.Contains(string(msg), "undeclared") {
		t.Errorf("compile.err %q does not hold the compiler's message", msg)
	}
	if m := o.compile("cpp17-gcc", aPlusBCstdio); omegajail.RunnerVerdict(m, omegajail.ForCompile("cpp17-gcc")) != "OK" {
		t.Fatalf("compile meta %+v", m)
	}
	if strings.Contains(o.stderr, "in this process") {
		t.Errorf("the compile fell back to the front's own process: %s", o.stderr)
	}
	for _, c := range []struct{ in, out string }{{"19 23\n", "42\n"}, {"1 2\n", "3\n"}, {"5 5\n", "10\n"}} {
		m, out := o.run("cpp17-gcc", c.in)
		if v := omegajail.RunnerVerdict(m, omegajail.ForRun("cpp17-gcc", 268435456)); v != "OK" || out != c.out {
			t.Fatalf("run on %q: verdict %s, meta %+v, output %q; want OK and %q", c.in, v, m, out, c.out)
		}
		if strings.Contains(o.stderr, "in this process") {
			t.Errorf("the run fell back to the front's own process: %s", o.stderr)
		}
	}
	l, err := lang.Default().Lookup("cpp17")
	if err != nil {
		t.Fatal(err)
	}
	code, log := stop()
	ahead := strings.Count(log, "ahead=true")
	builds := slices.ContainsFunc(strings.Split(log, "\n"), func(line string) bool {
		return strings.Contains(line, "running armed") && strings.Contains(line, "ahead=true") && strings.Contains(line, "image="+l.BuildImage)
	})
	t.Logf("service: exit %d, %d runs armed ahead, a build among them: %t", code, ahead, builds)
	if code != 0 || ahead < 3 || !builds {
		t.Errorf("service: exit %d, %d runs taken armed ahead, a build among them %t; want 0, at least 3 (the second compile, the second and third case) and true\n%s", code, ahead, builds, log)
	}
	assertNothingLeft(t, env, "")
}

// TestOmegajailUnservedLanguagesWriteNoMeta replays quark's compile in the
// omegaUp languages podjail cannot serve: no compile .meta, which quark
// turns into a judge error, and on stderr (which quark appends to
// compile.err and logs) the reason.
func TestOmegajailUnservedLanguagesWriteNoMeta(t *testing.T) {
	env := hosttest.Podman(t)
	o := newOmegaRunner(t, env)
	for lang, why := range map[string]string{"py2": "Python 2.7", "kp": "Karel", "kj": "Karel"} {
		meta := filepath.Join(o.runRoot, "Main", "compile.meta")
		o.exec("--homedir", o.runRoot+"/Main/bin", "--homedir-writable",
			"-1", o.runRoot+"/Main/compile.out", "-2", o.runRoot+"/Main/compile.err", "-M", meta,
			"-t", "30000", "-O", "10485760", "--root", "/var/lib/omegajail",
			"--compile", lang, "--compile-target", "Main", "--compile-source", "Main."+lang)
		if _, err := os.Stat(meta); err == nil {
			t.Errorf("%s: a compile .meta was written (quark would read a verdict)", lang)
		}
		if !strings.Contains(o.stderr, `"`+lang+`"`) || !strings.Contains(o.stderr, why) {
			t.Errorf("%s: stderr %q; want the language and the reason (%s)", lang, o.stderr, why)
		}
	}
}

// TestOmegajailTargetsAndFlags replays what quark's runner.go does beyond
// one Main: a libinteractive-like compile (two C++ sources, a target
// named after the interface, a flag after "--" that the program's output
// shows), its run by run target, and a custom validator in Python compiled
// and run as "validator" in its own directory, with the case name and
// language after "--" and data.in beside it, as the Runner copies it.
func TestOmegajailTargetsAndFlags(t *testing.T) {
	env := hosttest.Podman(t)
	o := newOmegaRunner(t, env)
	bin := filepath.Join(o.runRoot, "sums", "bin")
	files := map[string]string{
		"sums/bin/sums_entry.cpp": "#include <cstdio>\nint sums(int, int);\n" +
			"int main() { int a, b; if (scanf(\"%d %d\", &a, &b) != 2) return 1; printf(\"%d\\n\", sums(a, b) + 1000 * X); }\n",
		"sums/bin/sums.cpp":           "int sums(int a, int b) { return a + b; }\n",
		"validator/bin/validator.py":  "import sys\nexpected = open('data.in').read().split()\ngot = sys.stdin.read().split()\nprint(1 if got == expected else 0)\nprint(' '.join(sys.argv[1:]), file=sys.stderr)\n",
		"validator/bin/data.in":       "1042\n",
		"sums/bin/unrelated-file.txt": "not a source\n",
	}
	for name, text := range files {
		p := filepath.Join(o.runRoot, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compile := func(dir, omega, target string, rest ...string) omegajail.Meta {
		t.Helper()
		o.exec(append([]string{"--homedir", o.runRoot + "/" + dir + "/bin", "--homedir-writable",
			"-1", o.runRoot + "/" + dir + "/compile.out", "-2", o.runRoot + "/" + dir + "/compile.err", "-M", o.runRoot + "/" + dir + "/compile.meta",
			"-t", "30000", "-O", "10485760", "--root", "/var/lib/omegajail",
			"--compile", omega, "--compile-target", target}, rest...)...)
		m := o.meta(dir + "/compile.meta")
		if v := omegajail.RunnerVerdict(m, omegajail.ForCompile(omega)); v != "OK" {
			errOut, _ := os.ReadFile(filepath.Join(o.runRoot, dir, "compile.err"))
			t.Fatalf("compile of %s: verdict %s, meta %+v, compile.err:\n%s", target, v, m, errOut)
		}
		return m
	}
	run := func(dir, omega, target, in string, extra ...string) (string, string) {
		t.Helper()
		argv := []string{"--homedir", o.runRoot + "/" + dir + "/bin", "-0", in, "-1", o.runRoot + "/" + dir + "/1.out", "-2", o.runRoot + "/" + dir + "/1.err",
			"-M", o.runRoot + "/" + dir + "/1.meta", "-m", "268435456", "-t", "3000", "-w", "0", "-O", "10240",
			"--root", "/var/lib/omegajail", "--run", omega, "--run-target", target}
		if len(extra) > 0 {
			argv = append(append(argv, "--"), extra...)
		}
		o.exec(argv...)
		m := o.meta(dir + "/1.meta")
		out, _ := os.ReadFile(filepath.Join(o.runRoot, dir, "1.out"))
		errOut, _ := os.ReadFile(filepath.Join(o.runRoot, dir, "1.err"))
		if v := omegajail.RunnerVerdict(m, omegajail.ForRun(omega, 268435456)); v != "OK" {
			t.Fatalf("run of %s: verdict %s, meta %+v, output %q, 1.err %q", target, v, m, out, errOut)
		}
		return string(out), string(errOut)
	}

	compile("sums", "cpp11", "sums", "--compile-source", "sums_entry.cpp", "--compile-source", "sums.cpp", "--", "-DX=1")
	for _, name := range []string{"Main", "main"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err == nil {
			t.Errorf("the compile left %s in the home directory; want only the target sums", name)
		}
	}
	in := filepath.Join(o.runRoot, "1.in")
	if err := os.WriteFile(in, []byte("19 23\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := run("sums", "cpp11", "sums", in); out != "1042\n" {
		t.Fatalf("sums printed %q; want 1042 (42 from the two sources, 1000 from -DX=1)", out)
	}

	compile("validator", "py3", "validator", "--compile-source", "validator.py")
	out, errOut := run("validator", "py3", "validator", filepath.Join(o.runRoot, "sums", "1.out"), "1", "cpp11")
	if out != "1\n" || !strings.Contains(errOut, "1 cpp11") {
		t.Errorf("validator: output %q, stderr %q; want 1 and its arguments \"1 cpp11\"", out, errOut)
	}
	assertNothingLeft(t, env, "")
}

// forkCpp forks: under omegajail's C++ policy the fork (glibc's clone without
// CLONE_THREAD) kills the program, so "after" is never printed. stdout is a
// file, fully buffered: "before" is flushed ahead of the fork, or the kill
// would lose it (and a child that lived would not print it twice).
const forkCpp = "#include <cstdio>\n#include <sys/wait.h>\n#include <unistd.h>\n" +
	"int main() { printf(\"before\\n\"); fflush(stdout); pid_t p = fork(); if (p == 0) _exit(0);\n" +
	"  int st; waitpid(p, &st, 0); printf(\"after %d\\n\", (int)p); }\n"

// threadsCpp sums on four threads (pthread_create, what std::thread calls:
// glibc's clone with CLONE_THREAD, after clone3's ENOSYS), which omegajail's
// C++ policy's clone rule allows. <thread>'s templates would cost a compile
// tens of seconds of processor time under the test VM's emulation.
const threadsCpp = "#include <cstdio>\n#include <pthread.h>\n" +
	"static long long a, b, part[4];\n" +
	"static void *work(void *p) { long i = (long)p; part[i] = i == 0 ? a + b : 0; return p; }\n" +
	"int main() { if (scanf(\"%lld %lld\", &a, &b) != 2) return 1; pthread_t t[4];\n" +
	"  for (long i = 0; i < 4; i++) if (pthread_create(&t[i], 0, work, (void *)i)) return 2;\n" +
	"  for (int i = 0; i < 4; i++) pthread_join(t[i], 0); printf(\"%lld\\n\", part[0] + part[1] + part[2] + part[3]); }\n"

// wantForkRFE checks a fork's .meta as omegajail writes it for a call its
// policy refuses: signal SIGSYS (the Runner's RFE) and, where this user can
// read the kernel log, "syscall:clone"; the program ran up to the fork.
func wantForkRFE(t *testing.T, m omegajail.Meta, out string) {
	t.Helper()
	if v := omegajail.RunnerVerdict(m, omegajail.ForRun("cpp17-gcc", 268435456)); v != "RFE" || m.Signal != "SIGSYS" || out != "before\n" {
		t.Fatalf("fork: verdict %s, meta %+v, output %q; want RFE (signal SIGSYS) after \"before\"", v, m, out)
	}
	if f, err := os.Open("/dev/kmsg"); err == nil {
		f.Close()
		if m.Syscall != "clone" {
			t.Errorf("fork: syscall %q, want clone (the kernel log is readable here)", m.Syscall)
		}
	} else if m.Syscall != "" {
		t.Errorf("fork: syscall %q with no kernel log readable (%v): want none", m.Syscall, err)
	} else {
		t.Logf("the kernel log is not readable here (%v): the .meta names no syscall", err)
	}
}

// TestOmegajailForkIsRFE replays the Runner on a C++ program that forks:
// RFE with the syscall as omegajail's .meta gives it, in process and
// through the service (the rule crosses the protocol); a C++ program on
// std::threads is still OK.
func TestOmegajailForkIsRFE(t *testing.T) {
	env := hosttest.Podman(t)
	o := newOmegaRunner(t, env)
	if m := o.compile("cpp17-gcc", forkCpp); omegajail.RunnerVerdict(m, omegajail.ForCompile("cpp17-gcc")) != "OK" {
		errOut, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", "compile.err"))
		t.Fatalf("compile meta %+v, compile.err:\n%s", m, errOut)
	}
	m, out := o.run("cpp17-gcc", "")
	t.Logf("fork, in process: meta %+v", m)
	wantForkRFE(t, m, out)

	sock, stop := startService(t, env, "--drain", "2s")
	t.Setenv("PODJAIL_SERVICE", sock)
	m, out = o.run("cpp17-gcc", "")
	t.Logf("fork, through the service: meta %+v", m)
	wantForkRFE(t, m, out)
	if strings.Contains(o.stderr, "in this process") {
		t.Errorf("the run fell back to the front's own process: %s", o.stderr)
	}

	if m := o.compile("cpp17-gcc", threadsCpp); omegajail.RunnerVerdict(m, omegajail.ForCompile("cpp17-gcc")) != "OK" {
		errOut, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", "compile.err"))
		t.Fatalf("compile meta %+v, compile.err:\n%s", m, errOut)
	}
	m, out = o.run("cpp17-gcc", "19 23\n")
	if v := omegajail.RunnerVerdict(m, omegajail.ForRun("cpp17-gcc", 268435456)); v != "OK" || out != "42\n" {
		t.Errorf("threads: verdict %s, meta %+v, output %q; want OK and 42", v, m, out)
	}
	if code, log := stop(); code != 0 {
		t.Errorf("service: exit %d\n%s", code, log)
	}
	assertNothingLeft(t, env, "")
}

// TestOmegajailJavaMisnamedClass replays the Runner's Java compile of a
// class not named Main: as under omegajail, javac succeeds, so the compile
// .meta is status 0 (the Runner's OK) and no Main.class is in the home
// directory, which is what the Runner checks to write its own "Class `Main`
// not found" hint and make it CE; compile.err holds none of podjail's words.
func TestOmegajailJavaMisnamedClass(t *testing.T) {
	env := hosttest.Podman(t)
	o := newOmegaRunner(t, env)
	src := "import java.util.Scanner;\nclass Solution {\n  public static void main(String[] args) {\n" +
		"    Scanner s = new Scanner(System.in);\n    System.out.println(s.nextLong() + s.nextLong());\n  }\n}\n"
	m := o.compileFile("java", "Main.java", src)
	errOut, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", "compile.err"))
	if v := omegajail.RunnerVerdict(m, omegajail.ForCompile("java")); v != "OK" || m.ExitStatus == nil || *m.ExitStatus != 0 {
		t.Errorf("compile meta %+v (verdict %s), compile.err %q; want status 0, javac's success", m, v, errOut)
	}
	if _, err := os.Stat(filepath.Join(o.runRoot, "Main", "bin", "Main.class")); !os.IsNotExist(err) {
		t.Errorf("Main.class in the home directory: %v; want none (the Runner then writes its hint)", err)
	}
	if strings.Contains(string(errOut), "the build made no") || strings.Contains(string(errOut), "not found") {
		t.Errorf("compile.err holds podjail's text, the Runner adds its own: %q", errOut)
	}
	assertNothingLeft(t, env, "")
}
