package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
)

// cmsImage holds everything CMS's language classes call
// (contrib/images/cms.Containerfile; in the test VM, packages-cms.txt).
const cmsImage = "localhost/podjail-cms:latest"

// cmsLang is one of CMS's language classes (cms/grading/languages/*.py,
// github.com/cms-dev/cms at c3659b810cfd1fab37904f6c6148d460f2854eff) as
// the Batch task type uses it for the submission format ["batch.%l"]: the
// commands its get_compilation_commands returns for ["batch"+ext] and the
// executable "batch"+executable_extension, and its
// get_evaluation_commands(executable, main="batch").
type cmsLang struct {
	name     string // as a contest lists it
	src      string // the A+B, in testdata/judge/aplusb
	ext      string
	compile  [][]string
	evaluate []string
	exe      string // what the compile leaves for the evaluation
	broken   string // a source that does not compile
	ceText   string // in what CMS shows of that compile
	// brokenRuns: the language has no compile step that reads the source
	// (PHP's is a copy or /bin/true), so the broken source is a runtime
	// error, ceText in the evaluation's stderr.txt.
	brokenRuns bool
	// limit is the evaluation's time limit in seconds: under the VM's
	// emulation a runtime that compiles code as it runs (the JVM, Mono,
	// PyPy) takes seconds of processor time to start.
	limit string
}

func gpp(std string) cmsLang {
	return cmsLang{
		name: "C++" + std + " / g++", src: "aplusb.cpp", ext: ".cpp",
		compile:  [][]string{{"/usr/bin/g++", "-DEVAL", "-std=gnu++" + std, "-O2", "-pipe", "-static", "-s", "-o", "batch", "batch.cpp"}},
		evaluate: []string{"./batch"}, exe: "batch", broken: "int main( {\n", ceText: "error", limit: "2",
	}
}

// cmsLangs are CMS's 13 languages, in the order of its languages/ directory.
var cmsLangs = []cmsLang{
	{
		name: "C11 / gcc", src: "aplusb.c", ext: ".c",
		compile:  [][]string{{"/usr/bin/gcc", "-DEVAL", "-std=gnu11", "-O2", "-pipe", "-static", "-s", "-o", "batch", "batch.c", "-lm"}},
		evaluate: []string{"./batch"}, exe: "batch", broken: "int main( {\n", ceText: "error", limit: "2",
	},
	gpp("11"), gpp("14"), gpp("17"), gpp("20"),
	{
		name: "C# / Mono", src: "aplusb.cs", ext: ".cs",
		compile:  [][]string{{"/usr/bin/mcs", "-out:batch.exe", "-optimize+", "batch.cs"}},
		evaluate: []string{"/usr/bin/mono", "batch.exe"}, exe: "batch.exe",
		broken: "class B { static void Main( { } }\n", ceText: "error CS1525", limit: "10",
	},
	{
		name: "Haskell / ghc", src: "aplusb.hs", ext: ".hs",
		compile:  [][]string{{"/usr/bin/ghc", "-static", "-O2", "-Wall", "-o", "batch", "batch.hs"}},
		evaluate: []string{"./batch"}, exe: "batch", broken: "main = print (1 +\n", ceText: "parse error", limit: "2",
	},
	{
		name: "Java / JDK", src: "batch.java", ext: ".java",
		compile:  [][]string{{"/usr/bin/javac", "batch.java"}, {"/bin/sh", "-c", "jar cf batch.jar *.class"}},
		evaluate: []string{"/usr/bin/java", "-Deval=true", "-Xmx512M", "-Xss64M", "-cp", "batch.jar", "batch"}, exe: "batch.jar",
		broken: "public class batch { void f( }\n", ceText: "error: illegal start of type", limit: "10",
	},
	{
		name: "Pascal / fpc", src: "aplusb.pas", ext: ".pas",
		compile:  [][]string{{"/usr/bin/fpc", "-dEVAL", "-O2", "-XSs", "-obatch", "batch.pas"}},
		evaluate: []string{"./batch"}, exe: "batch",
		broken: "program broken;\nbegin\n  writeln(1\nend.\n", ceText: `Fatal: Syntax error, ")" expected`, limit: "2",
	},
	{
		name: "PHP", src: "aplusb.php", ext: ".php",
		compile:  [][]string{{"/bin/true"}},
		evaluate: []string{"/usr/bin/php", "-d", "memory_limit=-1", "batch.php"}, exe: "batch.php",
		broken: "<?php\necho 1 +;\n", ceText: "PHP Parse error", brokenRuns: true, limit: "5",
	},
	{
		name: "Python 3 / CPython", src: "aplusb.py", ext: ".py",
		compile: [][]string{{"/usr/bin/python3", "-m", "compileall", "-b", "."}, {"/bin/mv", "batch.pyc", "__main__.pyc"},
			{"/usr/bin/zip", "batch.pyz", "__main__.pyc"}},
		evaluate: []string{"/usr/bin/python3", "batch.pyz"}, exe: "batch.pyz",
		broken: "print(1 +\n", ceText: "SyntaxError", limit: "5",
	},
	{
		name: "Python 3 / PyPy", src: "aplusb.py", ext: ".py",
		compile: [][]string{{"/usr/bin/pypy3", "-m", "compileall", "-b", "."}, {"/bin/mv", "batch.pyc", "__main__.pyc"},
			{"/usr/bin/zip", "batch.pyz", "__main__.pyc"}},
		evaluate: []string{"/usr/bin/pypy3", "batch.pyz"}, exe: "batch.pyz",
		broken: "print(1 +\n", ceText: "SyntaxError", limit: "10",
	},
	{
		name: "Rust", src: "aplusb.rs", ext: ".rs",
		compile:  [][]string{{"/usr/bin/rustc", "-O", "-o", "batch", "batch.rs"}},
		evaluate: []string{"./batch"}, exe: "batch", broken: "fn main( {\n", ceText: "unclosed delimiter", limit: "2",
	},
}

// testName is the language's name without the slash, which would make a
// subtest of its own: "C11 gcc", "Python 3 PyPy".
func (l cmsLang) testName() string { return strings.ReplaceAll(l.name, " / ", " ") }

// cmsDefaultContest are a new contest's languages (cms/db/contest.py).
var cmsDefaultContest = map[string]bool{"C11 / gcc": true, "C++20 / g++": true, "Pascal / fpc": true}

// TestIsolateCMSLanguages judges each of CMS's 13 languages as CMS's Batch
// task type has isolate do it, through the front with podjail-cms: an A+B
// compiled and accepted in each mode, and in one of them a source that does
// not compile, with the compiler's message in what CMS shows.
//
// A default contest's languages (C11, C++20, Pascal) go through `podjail
// serve`, as a worker with $PODJAIL_SERVICE set sends them, with one
// process each: a contest without Java or C# allows no more. podjail-cms is
// an image of the language table, so the service allows it without
// --image. The others run in process with 1000 processes, as in a contest
// that offers Java or C#. The front is the same code either way: each
// language is judged once a mode. Two languages at once: their compiles
// wait on the VM's two processors.
func TestIsolateCMSLanguages(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	sock, stop := startService(t, env, "--drain", "2s")
	inProcess := []string{"PODJAIL_ISOLATE_IMAGE=" + cmsImage}
	viaService := []string{"PODJAIL_ISOLATE_IMAGE=" + cmsImage, "PODJAIL_SERVICE=" + sock}
	t.Run("each", func(t *testing.T) {
		for i, l := range cmsLangs {
			t.Run(l.testName(), func(t *testing.T) {
				t.Parallel()
				// The broken source in one mode, alternating (what CMS
				// shows of it does not depend on the mode); Pascal's
				// rootless, so that each mode sends one to the service.
				broken := (i%2 == 0) != env.Rootless != (l.name == "Pascal / fpc")
				if cmsDefaultContest[l.name] {
					cmsAcceptsAndRejects(t, env, viaService, src, l, 2000+i, 1, broken)
					return
				}
				cmsAcceptsAndRejects(t, env, inProcess, src, l, 2000+i, 1000, broken)
			})
		}
	})
	if code, log := stop(); code != 0 || !strings.Contains(log, cmsImage) {
		t.Errorf("service: exit %d, its log does not name %s\n%s", code, cmsImage, log)
	}
	assertNothingLeft(t, env, "")
}

// cmsAcceptsAndRejects submits l's A+B (accepted: output 42) and, when
// broken, its broken source (a compile error showing ceText, or PHP's
// runtime error).
func cmsAcceptsAndRejects(t *testing.T, env hosttest.Env, extra []string, src string, l cmsLang, box, processes int, broken bool) {
	aplusb, err := os.ReadFile(filepath.Join(src, "aplusb", l.src))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	_ = os.Chmod(root, 0o777)
	c := cmsBox{t: t, env: env, root: root, extra: extra, id: box}
	ok, text := c.compile(l, string(aplusb))
	if !ok {
		t.Fatalf("A+B did not compile:\n%s", text)
	}
	meta, out, _ := c.evaluate(l, processes)
	if meta["status"] != "" || meta["exitcode"] != "0" || out != "42\n" {
		t.Errorf("A+B: meta %v, output.txt %q; want exit code 0 and 42", meta, out)
	}
	if broken {
		cmsRejects(t, &c, l, processes)
	}
	if code := c.isolate("--box-id="+strconv.Itoa(box), "--cg", "--cleanup"); code != 0 {
		t.Errorf("the last --cleanup: exit %d", code)
	}
}

// cmsRejects submits l's broken source in c: a compile error showing
// ceText, or PHP's runtime error.
func cmsRejects(t *testing.T, c *cmsBox, l cmsLang, processes int) {
	t.Helper()
	ok, text := c.compile(l, l.broken)
	switch {
	case l.brokenRuns:
		meta, _, stderr := c.evaluate(l, processes)
		if !ok || meta["status"] != "RE" || !strings.Contains(stderr, l.ceText) {
			t.Errorf("broken source: compiled %v, meta %v, stderr.txt %q; want a runtime error with %q", ok, meta, stderr, l.ceText)
		}
	case ok || !strings.Contains(text, l.ceText):
		t.Errorf("broken source: compiled %v, CMS shows %q; want a compile error with %q", ok, text, l.ceText)
	}
}

// cmsBox is one worker's box, driven as CMS's Sandbox.py drives isolate.
type cmsBox struct {
	t     *testing.T
	env   hosttest.Env
	root  string   // $PODJAIL_ISOLATE_ROOT
	extra []string // the front's environment
	id    int
	exe   []byte // the last compile's executable
}

// isolate runs the front as CMS does and returns its exit code.
func (c *cmsBox) isolate(args ...string) int {
	c.t.Helper()
	return isolateWith(c.t, c.env, c.root, c.extra, nil, args...).code
}

// sandbox is Sandbox.__init__: a fresh box (--cleanup, then --init) and a
// home of its own, bound at /tmp, with its files; it returns the home and
// the options every run of the box starts with (build_box_options).
func (c *cmsBox) sandbox(files map[string]string) (home string, opts []string) {
	c.t.Helper()
	box := "--box-id=" + strconv.Itoa(c.id)
	if code := c.isolate(box, "--cg", "--cleanup"); code != 0 {
		c.t.Fatalf("--cleanup: exit %d", code)
	}
	if code := c.isolate(box, "--cg", "--init"); code != 0 {
		c.t.Fatalf("--init: exit %d", code)
	}
	home = c.t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(data), 0o777); err != nil {
			c.t.Fatal(err)
		}
		_ = os.Chmod(filepath.Join(home, name), 0o777)
	}
	_ = os.Chmod(home, 0o777) // allow_writing_all
	opts = []string{"--cg", box, "--chdir=/tmp", "--dir=/tmp=" + home + ":rw", "--dir=/dev/shm:tmp"}
	// maybe_add_mapped_directory: only where the host has them; the front
	// skips a directory bound onto itself, so the image's are used.
	for _, d := range []struct{ path, opts string }{{"/etc/alternatives", ""}, {"/opt/pypy3", ""}, {"/etc/mono", ":noexec"}} {
		if _, err := os.Stat(d.path); err == nil {
			opts = append(opts, "--dir="+d.path+"="+d.path+d.opts)
		}
	}
	return home, opts
}

// compile is Batch.compile: the source as batch+ext in a compilation
// sandbox, each command run in turn until one fails (steps/compilation.py),
// the executable kept. It returns whether all succeeded and what CMS shows
// the contestant: every command's stdout and stderr.
//
// The limits are conf.py's defaults (512 MiB, 1000 processes) but for the
// time: 60 s instead of 10 (compilation_sandbox_max_time_s), because
// under the VM's emulation GHC, javac and mcs take ten times longer.
func (c *cmsBox) compile(l cmsLang, source string) (bool, string) {
	c.t.Helper()
	home, opts := c.sandbox(map[string]string{"batch" + l.ext: source})
	opts = append(opts, "--dir=/etc=/etc")
	if _, err := os.Stat("/var/lib/ghc"); err == nil {
		opts = append(opts, "--dir=/var/lib/ghc=/var/lib/ghc")
	}
	opts = append(opts, "--full-env", "--env=HOME=/tmp", "--cg-mem=524288")
	var shown strings.Builder
	for i, cmd := range l.compile {
		stdout, stderr := fmt.Sprintf("compilation_stdout_%d.txt", i), fmt.Sprintf("compilation_stderr_%d.txt", i)
		meta := filepath.Join(c.t.TempDir(), "run.meta")
		args := append(append([]string{}, opts...), "--stdout=/tmp/"+stdout, "--processes=1000", "--stderr=/tmp/"+stderr,
			"--time=60", "--wall-time=121", "--meta="+meta, "--run", "--")
		code := c.isolate(append(args, cmd...)...)
		for _, f := range []string{stdout, stderr} {
			b, _ := os.ReadFile(filepath.Join(home, f))
			shown.Write(b)
		}
		if m := readMeta(c.t, meta); code != 0 || m["status"] != "" {
			if code > 1 {
				c.t.Fatalf("compile %q: exit %d, a sandbox error (meta %v)", cmd, code, m)
			}
			return false, shown.String()
		}
	}
	exe, err := os.ReadFile(filepath.Join(home, l.exe))
	if err != nil {
		c.t.Fatalf("the compile made no %s: %v", l.exe, err)
	}
	c.exe = exe
	return true, shown.String()
}

// evaluate is Batch.evaluate: the executable and input.txt in an
// evaluation sandbox that only output.txt and stderr.txt may be written in
// (allow_writing_only), the program run with the task's limits (256 MiB,
// the language's time) and fsize 1 GiB; it returns the meta, output.txt
// and stderr.txt.
func (c *cmsBox) evaluate(l cmsLang, processes int) (meta map[string]string, output, stderr string) {
	c.t.Helper()
	home, opts := c.sandbox(map[string]string{l.exe: string(c.exe), "input.txt": "19 23\n"})
	for _, f := range []string{l.exe, "input.txt"} {
		_ = os.Chmod(filepath.Join(home, f), 0o755)
	}
	for _, f := range []string{"output.txt", "stderr.txt"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o722); err != nil {
			c.t.Fatal(err)
		}
		_ = os.Chmod(filepath.Join(home, f), 0o722)
	}
	_ = os.Chmod(home, 0o755)
	limit, err := strconv.ParseFloat(l.limit, 64)
	if err != nil {
		c.t.Fatal(err)
	}
	metaFile := filepath.Join(c.t.TempDir(), "run.meta")
	args := append(opts, "--env=HOME=/tmp", "--fsize=1048576", "--stdin=/tmp/input.txt", "--cg-mem=262144",
		"--stdout=/tmp/output.txt", "--processes="+strconv.Itoa(processes), "--stderr=/tmp/stderr.txt",
		"--time="+l.limit, fmt.Sprintf("--wall-time=%g", 2*limit+1), "--meta="+metaFile, "--run", "--")
	if code := c.isolate(append(args, l.evaluate...)...); code > 1 {
		c.t.Fatalf("evaluate: exit %d, a sandbox error", code)
	}
	out, _ := os.ReadFile(filepath.Join(home, "output.txt"))
	errText, _ := os.ReadFile(filepath.Join(home, "stderr.txt"))
	return readMeta(c.t, metaFile), string(out), string(errText)
}
