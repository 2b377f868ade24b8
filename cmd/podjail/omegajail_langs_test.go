package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/omegajail"
)

// omegaLang is one omegaUp language (frontend/data/languages.json) as
// TestOmegajailEveryLanguage replays it: quark names the source Main.EXT.
type omegaLang struct {
	name, ext string
	// ac is the program; "" takes langs/<file> from the judge's sources.
	ac, file string
	// want is its output on "ac 19 23" (clang's C and C++ say so).
	want string
	// ce fails to compile; its message, in the file quark reads, has ceWord.
	ce, ceWord string
	// compileMs is the compile's -t when quark's 30 s is too little under
	// the VM's emulation (a Runner's CompileTimeLimit is configurable).
	compileMs string
	// mle: the program fills memory on "mle" (a runtime with a heap).
	mle bool
	// acIn and ceIn are the modes that judge the accepted A+B and the
	// compile error (see TestOmegajailEveryLanguage).
	acIn, ceIn modes
}

// modes is a set of the VM's two modes.
type modes uint8

const (
	rootful modes = 1 << iota
	rootless
	both = rootful | rootless
)

// has says whether the set holds the mode env runs in.
func (m modes) has(env hosttest.Env) bool {
	if env.Rootless {
		return m&rootless != 0
	}
	return m&rootful != 0
}

// cAB and cppAB read "ac A B" and say whether clang built them.
const cAB = "#include <stdio.h>\nint main(void) { char w[8]; long long a, b; if (scanf(\"%7s %lld %lld\", w, &a, &b) != 3) return 1;\n" +
	"#ifdef __clang__\n  printf(\"%lld clang\\n\", a + b);\n#else\n  printf(\"%lld\\n\", a + b);\n#endif\n  return 0; }\n"
const cppAB = "#include <cstdio>\n" + "int main() { char w[8]; long long a, b; if (std::scanf(\"%7s %lld %lld\", w, &a, &b) != 3) return 1;\n" +
	"#ifdef __clang__\n  std::printf(\"%lld clang\\n\", a + b);\n#else\n  std::printf(\"%lld\\n\", a + b);\n#endif\n}\n"

const cUndeclared = "int main() { return undeclared; }\n"

// The runtimes with a heap of their own fill memory on "mle", a page at a
// time touched so that it is charged.
const (
	luaAB = "local w = {}\nfor x in io.read(\"a\"):gmatch(\"%S+\") do w[#w + 1] = x end\n" +
		"if w[1] == \"ac\" then print(tonumber(w[2]) + tonumber(w[3]))\n" +
		"elseif w[1] == \"mle\" then local keep = {}\n  while true do keep[#keep + 1] = string.rep(\"x\", 1 << 20) .. #keep end\nend\n"
	rubyAB = "w = STDIN.read.split\ncase w[0]\nwhen \"ac\" then puts w[1].to_i + w[2].to_i\n" +
		"when \"mle\"\n  keep = []\n  loop { keep << (\"x\" * (1 << 20)) + keep.size.to_s }\nend\n"
	csAB = "using System;\nusing System.Collections.Generic;\nclass P {\n  static void Main() {\n" +
		"    string[] w = Console.In.ReadToEnd().Split((char[])null, StringSplitOptions.RemoveEmptyEntries);\n" +
		"    if (w[0] == \"ac\") Console.WriteLine(long.Parse(w[1]) + long.Parse(w[2]));\n" +
		"    else if (w[0] == \"mle\") { var keep = new List<long[]>(); while (true) { var a = new long[1 << 20]; for (int i = 0; i < a.Length; i += 512) a[i] = i; keep.Add(a); } }\n  }\n}\n"
	// java.util.Scanner: the compile sees the JDK's classes.
	kotlinAB = "import java.util.Scanner\n\nfun main() {\n    val s = Scanner(System.`in`)\n" +
		"    when (s.next()) {\n        \"ac\" -> println(s.nextLong() + s.nextLong())\n" +
		"        \"mle\" -> { val keep = mutableListOf<LongArray>(); while (true) keep.add(LongArray(1 shl 20) { it.toLong() }) }\n    }\n}\n"
	pascalAB  = "program Main;\nvar w: char; a, b: int64;\nbegin\n  read(w, w); read(a, b);\n  writeln(a + b);\nend.\n"
	haskellAB = "main :: IO ()\nmain = do\n  s <- getContents\n  print (sum (map read (drop 1 (words s))) :: Integer)\n"
	pyAB      = "w = input().split()\nprint(int(w[1]) + int(w[2]))\n"
)

// omegaLangs are every name of omegaUp's languages.json that podjail
// serves (cat, Output Only, never reaches omegajail).
var omegaLangs = []omegaLang{
	// The C and C++ names differ only in the table's -std and compiler:
	// each is judged in one mode, every mode judging gcc and clang, C and C++.
	{name: "c11-gcc", ext: "c", ac: cAB, want: "42\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootful, ceIn: rootful},
	{name: "c11-clang", ext: "c", ac: cAB, want: "42 clang\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootless, ceIn: rootless},
	{name: "cpp11-gcc", ext: "cpp", ac: cppAB, want: "42\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootless, ceIn: rootless},
	{name: "cpp11-clang", ext: "cpp", ac: cppAB, want: "42 clang\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootful, ceIn: rootful},
	{name: "cpp17-gcc", ext: "cpp", ac: cppAB, want: "42\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootful, ceIn: rootful},
	{name: "cpp17-clang", ext: "cpp", ac: cppAB, want: "42 clang\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootless, ceIn: rootless},
	{name: "cpp20-gcc", ext: "cpp", ac: cppAB, want: "42\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootless, ceIn: rootless},
	{name: "cpp20-clang", ext: "cpp", ac: cppAB, want: "42 clang\n", ce: cUndeclared, ceWord: "undeclared", acIn: rootful, ceIn: rootful},
	{name: "java", ext: "java", file: "Main.java", want: "42\n", mle: true, acIn: both, ceIn: rootful,
		ce: "class Main { public static void main(String[] a) { System.out.println(undeclared); } }\n", ceWord: "undeclared"},
	// Kotlin's compile takes minutes under emulation: one a mode, the
	// JVM's run path proven rootless by Java.
	{name: "kt", ext: "kt", ac: kotlinAB, want: "42\n", compileMs: "120000", mle: true, acIn: rootful, ceIn: rootless,
		ce: "fun main() {\n    println(undeclared)\n}\n", ceWord: "unresolved reference 'undeclared'"},
	{name: "py3", ext: "py", ac: pyAB, want: "42\n", ce: "print(undeclared\n", ceWord: "SyntaxError", acIn: both, ceIn: rootless},
	{name: "rb", ext: "rb", ac: rubyAB, want: "42\n", mle: true, ce: "puts(undeclared\n", ceWord: "syntax error", acIn: both, ceIn: rootful},
	{name: "cs", ext: "cs", ac: csAB, want: "42\n", mle: true, acIn: both, ceIn: rootless,
		ce: "class P { static void Main() { System.Console.WriteLine(undeclared); } }\n", ceWord: "undeclared"},
	{name: "pas", ext: "pas", ac: pascalAB, want: "42\n", ce: "program Main;\nbegin\n  writeln(undeclared);\nend.\n", ceWord: "undeclared", acIn: both, ceIn: rootful},
	{name: "hs", ext: "hs", ac: haskellAB, want: "42\n", ce: "main :: IO ()\nmain = print undeclared\n", ceWord: "undeclared", acIn: both, ceIn: rootless},
	{name: "lua", ext: "lua", ac: luaAB, want: "42\n", mle: true, ce: "x = = undeclared\n", ceWord: "Main.lua", acIn: both, ceIn: rootful},
	{name: "go", ext: "go", file: "main.go", want: "42\n", ce: "package main\n\nfunc main() { println(undeclared) }\n", ceWord: "undefined: undeclared", acIn: both, ceIn: rootless},
	{name: "rs", ext: "rs", file: "main.rs", want: "42\n", ce: "fn main() { println!(\"{}\", undeclared); }\n", ceWord: "undeclared", acIn: both, ceIn: rootful},
	{name: "js", ext: "js", file: "main.js", want: "42\n", mle: true, ce: "console.log(undeclared\n", ceWord: "SyntaxError", acIn: both, ceIn: rootless},
}

// mleAcceptedBound is what an accepted A+B may report in a runtime with a
// baseline: omegajail's baselines are an empty program's memory, so its A+B
// reports a few MiB; podjail's cgroup peak counts page cache too.
const mleAcceptedBound = 64 << 20

// TestOmegajailEveryLanguage replays quark's compile and run in every
// omegaUp language podjail serves, rootful and rootless, each in parallel
// (the VM's two cores wait on Podman more than they compile): an accepted
// A+B (clang's programs print that __clang__ is set), its reported memory
// within mleAcceptedBound for the runtimes with a heap (Java, Kotlin, C#,
// Ruby, Lua, Node), and a compile error whose message is in the file quark
// reads (compile.out for pas and cs). Rootful, each heap runtime's program
// out of memory is MLE: the run's limit is a cgroup's in both modes, and
// the other VM tests prove MLE rootless.
//
// What each mode judges is the language's acIn and ceIn: a compile error
// is the compiler's message in a file, which does not depend on the mode,
// so each language's is judged in one; the C and C++ names, one table
// line apart, in one mode each; Kotlin's minutes-long compile once a mode.
//
// Every other language goes through `podjail serve`, as a runner with
// $PODJAIL_SERVICE set sends it, the rest in process: the front is the same
// code either way, and the two halves swap between the modes.
func TestOmegajailEveryLanguage(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	// --max-time 3m: Kotlin's compile is given 120 s under the VM's
	// emulation (quark's -t), over the service's default bound.
	sock, stop := startService(t, env, "--drain", "2s", "--max-time", "3m")
	t.Run("each", func(t *testing.T) { everyOmegaLanguage(t, env, src, sock) })
	if code, log := stop(); code != 0 {
		t.Errorf("service: exit %d\n%s", code, log)
	}
	assertNothingLeft(t, env, "")
}

// runMemory is the -m of the accepted runs, mleMemory of the ones out of
// memory: a smaller heap to fill under emulation.
const (
	runMemory = 256 << 20
	mleMemory = 64 << 20
)

// everyOmegaLanguage runs TestOmegajailEveryLanguage's subtests, in
// parallel, the service's at sock.
func everyOmegaLanguage(t *testing.T, env hosttest.Env, src, sock string) {
	for i, c := range omegaLangs {
		if !c.acIn.has(env) && !c.ceIn.has(env) {
			continue
		}
		viaService := (i%2 == 1) != env.Rootless
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			t.Logf("through the service: %v", viaService)
			o := newOmegaRunner(t, env)
			if viaService {
				o.extra = []string{"PODJAIL_SERVICE=" + sock}
			}
			name := "Main." + c.ext
			if c.name == "cs" {
				quarkRuntimeConfigLink(t, o)
			}
			if c.ceIn.has(env) {
				wantCompileError(t, o, c, name)
			}
			if c.acIn.has(env) {
				wantAccepted(t, o, c, name, omegaSource(t, c, src))
				if c.mle && !env.Rootless {
					wantMLE(t, o, c.name, everyRunMs)
				}
			}
		})
	}
}

// omegaSource is c's accepted program: c.ac, or langs/<c.file> of the
// judge's sources at src.
func omegaSource(t *testing.T, c omegaLang, src string) string {
	t.Helper()
	if c.file == "" {
		return c.ac
	}
	data, err := os.ReadFile(filepath.Join(src, "langs", c.file))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// everyRunMs is every run's -t (and, with -w 0, its wall): none of the test's
// verdicts is about time, and under the whole suite's load the VM gives a
// run seconds of wall before its program's first instruction (a 16 ms Rust
// A+B ended at 5.9 s of wall in a 5 s limit), a JIT runtime's emulated
// start seconds of processor time.
const everyRunMs = "20000"

// wantAccepted compiles source and runs it on "ac 19 23": OK, c.want, and
// for a heap runtime a reported memory within mleAcceptedBound.
func wantAccepted(t *testing.T, o *omegaRunner, c omegaLang, name, source string) {
	t.Helper()
	if m := o.compileFor(c.name, name, source, c.compileMs); omegajail.RunnerVerdict(m, omegajail.ForCompile(c.name)) != "OK" {
		t.Fatalf("compile meta %+v, messages:\n%s", m, compileMessage(o, c.name))
	}
	notInProcess(t, o)
	m, out := o.runWith(c.name, "ac 19 23\n", everyRunMs, runMemory)
	notInProcess(t, o)
	if v := omegajail.RunnerVerdict(m, omegajail.ForRun(c.name, runMemory)); v != "OK" || out != c.want {
		t.Fatalf("run: verdict %s, meta %+v, output %q; want OK and %q", v, m, out, c.want)
	}
	t.Logf("accepted: %d bytes reported", m.MemBytes)
	if c.mle && m.MemBytes > mleAcceptedBound {
		t.Errorf("an accepted A+B reports %d bytes, over %d", m.MemBytes, mleAcceptedBound)
	}
}

// notInProcess fails t when o's last call, sent to a service, fell back to
// the front's own process.
func notInProcess(t *testing.T, o *omegaRunner) {
	t.Helper()
	if o.extra != nil && strings.Contains(o.stderr, "in this process") {
		t.Errorf("the call fell back to the front's own process: %s", o.stderr)
	}
}

// quarkRuntimeConfigLink makes what quark's C# compile makes first: a link
// to dotnet's runtime config, which does not exist here (the front must not
// need it).
func quarkRuntimeConfigLink(t *testing.T, o *omegaRunner) {
	t.Helper()
	if err := os.Symlink("/usr/share/dotnet/Main.runtimeconfig.json", filepath.Join(o.runRoot, "Main", "bin", "Main.runtimeconfig.json")); err != nil {
		t.Fatal(err)
	}
}

// compileMessage is the compile error quark shows: compile.out for Pascal
// and C#, compile.err for the rest (runner/runner.go).
func compileMessage(o *omegaRunner, lang string) string {
	file := "compile.err"
	if lang == "pas" || lang == "cs" {
		file = "compile.out"
	}
	data, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", file))
	return string(data)
}

func wantCompileError(t *testing.T, o *omegaRunner, c omegaLang, name string) {
	t.Helper()
	m := o.compileFor(c.name, name, c.ce, c.compileMs)
	if omegajail.RunnerVerdict(m, omegajail.ForCompile(c.name)) == "OK" {
		t.Errorf("a broken source compiled: meta %+v", m)
	}
	if msg := compileMessage(o, c.name); !strings.Contains(msg, c.ceWord) {
		t.Errorf("the compile error quark shows is %q; want it to hold %q", msg, c.ceWord)
	}
}

func wantMLE(t *testing.T, o *omegaRunner, lang, ms string) {
	t.Helper()
	m, _ := o.runWith(lang, "mle\n", ms, mleMemory)
	errOut, _ := os.ReadFile(filepath.Join(o.runRoot, "1.err"))
	l := omegajail.ForRun(lang, mleMemory)
	l.JavaOutOfMemory = strings.Contains(string(errOut), "java.lang.OutOfMemoryError")
	if v := omegajail.RunnerVerdict(m, l); v != "MLE" {
		t.Errorf("out of memory: verdict %s, meta %+v, 1.err %q; want MLE", v, m, errOut)
	}
}

// compileFor is compileFile with -t ms ("": quark's default 30000).
func (o *omegaRunner) compileFor(lang, name, source, ms string) omegajail.Meta {
	o.t.Helper()
	if ms == "" {
		return o.compileFile(lang, name, source)
	}
	if err := os.WriteFile(filepath.Join(o.runRoot, "Main", "bin", name), []byte(source), 0o644); err != nil {
		o.t.Fatal(err)
	}
	o.exec("--homedir", o.runRoot+"/Main/bin", "--homedir-writable",
		"-1", o.runRoot+"/Main/compile.out", "-2", o.runRoot+"/Main/compile.err", "-M", o.runRoot+"/Main/compile.meta",
		"-t", ms, "-O", "10485760", "--root", "/var/lib/omegajail",
		"--compile", lang, "--compile-target", "Main", "--compile-source", name)
	return o.meta("Main/compile.meta")
}
