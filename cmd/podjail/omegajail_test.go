package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
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
	r := podjail(o.t, env, argv...)
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
	o.t.Helper()
	if err := os.WriteFile(filepath.Join(o.runRoot, "Main", "bin", "Main.cpp"), []byte(source), 0o644); err != nil {
		o.t.Fatal(err)
	}
	o.exec("--homedir", o.runRoot+"/Main/bin", "--homedir-writable",
		"-1", o.runRoot+"/Main/compile.out", "-2", o.runRoot+"/Main/compile.err", "-M", o.runRoot+"/Main/compile.meta",
		"-t", "30000", "-O", "10485760", "--root", "/var/lib/omegajail",
		"--compile", lang, "--compile-target", "Main", "--compile-source", "Main.cpp")
	return o.meta("Main/compile.meta")
}

// run is the Runner's run argv for case 1: 1 s, 256 MiB, 10 KiB of output.
func (o *omegaRunner) run(lang, input string) (omegajail.Meta, string) {
	o.t.Helper()
	in := filepath.Join(o.runRoot, "1.in")
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		o.t.Fatal(err)
	}
	o.exec("--homedir", o.runRoot+"/Main/bin", "-0", in, "-1", o.runRoot+"/1.out", "-2", o.runRoot+"/1.err",
		"-M", o.runRoot+"/1.meta", "-m", "268435456", "-t", "1000", "-w", "0", "-O", "10240",
		"--root", "/var/lib/omegajail", "--run", lang, "--run-target", "Main")
	out, _ := os.ReadFile(filepath.Join(o.runRoot, "1.out"))
	return o.meta("1.meta"), string(out)
}

const aPlusBCpp = "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }\n"

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
	m, _ = o.run("cpp11", "")
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

func TestOmegajailUnknownLanguageWritesNoMeta(t *testing.T) {
	env := hosttest.Podman(t)
	o := newOmegaRunner(t, env)
	meta := filepath.Join(o.runRoot, "x.meta")
	r := o.exec("--homedir", o.runRoot+"/Main/bin", "-M", meta, "--run", "java", "--run-target", "Main")
	if r.code == 0 || !strings.Contains(r.stderr, "java") {
		t.Errorf("exit %d, stderr %q; want a failure naming the language", r.code, r.stderr)
	}
	if _, err := os.Stat(meta); err == nil {
		t.Error("a .meta was written for an unsupported language")
	}
}
