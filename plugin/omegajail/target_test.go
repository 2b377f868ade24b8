package omegajail

import (
	"errors"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/podjail/podjail/plugin/lang"
)

func tableLang(t *testing.T, omegaName string) lang.Language {
	t.Helper()
	id, err := LanguageID(omegaName)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lang.Default().Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func compileRequest(t *testing.T, argv ...string) Request {
	t.Helper()
	if !slices.Contains(argv, "--homedir") {
		argv = append([]string{"--homedir", "h"}, argv...)
	}
	r, err := ParseArgs(argv)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// What quark's runner/runner.go compiles: libinteractive's C++ parent
// (several sources, -Wl,-e__entry), a child under a target of its own, a
// validator, and the contestant's Main.
func TestCompileLanguageGcc(t *testing.T) {
	for _, c := range []struct {
		omega    string
		argv     []string
		wantArgv string
		target   string
	}{
		{"cpp11", []string{"--compile", "cpp11", "--compile-target", "Main_entry", "--compile-source", "Main.cpp",
			"--compile-source", "Main_entry.cpp", "--", "-Wl,-e__entry"},
			"/usr/bin/g++ -std=c++11 -O2 -pipe -static -s -o Main_entry -xc++ Main.cpp Main_entry.cpp -Wl,-e__entry", "Main_entry"},
		{"c", []string{"--compile", "c", "--compile-target", "sums", "--compile-source", "sums.c", "--compile-source", "x.S",
			"--compile-source", "y.c", "--", "-DX=1"},
			"/usr/bin/gcc -std=c11 -O2 -pipe -static -s -o sums -xc sums.c -xassembler-with-cpp x.S -xc y.c -lm -DX=1", "sums"},
		{"cpp17-gcc", runnerCompile[len(runnerCompile)-6:], // --compile cpp17-gcc --compile-target Main --compile-source Main.cpp
			"/usr/bin/g++ -std=c++17 -O2 -pipe -static -s -o Main -xc++ Main.cpp", "Main"},
	} {
		l, err := CompileLanguage(tableLang(t, c.omega), compileRequest(t, c.argv...))
		if err != nil {
			t.Fatalf("%v: %v", c.argv, err)
		}
		if got := strings.Join(l.Compile, " "); got != c.wantArgv {
			t.Errorf("%v: compile\n %s\nwant\n %s", c.argv, got, c.wantArgv)
		}
		if !slices.Equal(l.Artefacts, []string{c.target}) {
			t.Errorf("%v: artefacts %q, want the target", c.argv, l.Artefacts)
		}
	}
}

func TestCompileLanguageOthers(t *testing.T) {
	for _, c := range []struct {
		omega     string
		argv      []string
		wantArgv  string
		artefacts []string
	}{
		{"go", []string{"--compile", "go", "--compile-target", "Main", "--compile-source", "Main.go"},
			"/usr/bin/go build -trimpath -ldflags=-s -o Main Main.go", []string{"Main"}},
		{"rs", []string{"--compile", "rs", "--compile-target", "Main", "--compile-source", "Main.rs"},
			"/usr/bin/rustc --edition=2021 -O -C target-feature=+crt-static -C strip=symbols -o Main Main.rs", []string{"Main"}},
		{"py3", []string{"--compile", "py3", "--compile-target", "Main_entry", "--compile-source", "Main_entry.py", "--compile-source", "sums.py"},
			"/usr/bin/python3 -S -m py_compile Main_entry.py sums.py", []string{"Main_entry.py", "sums.py"}},
		{"js", []string{"--compile", "js", "--compile-target", "Main", "--compile-source", "Main.js"},
			"/usr/bin/node --check Main.js", []string{"Main.js"}},
	} {
		l, err := CompileLanguage(tableLang(t, c.omega), compileRequest(t, c.argv...))
		if err != nil {
			t.Fatalf("%v: %v", c.argv, err)
		}
		if got := strings.Join(l.Compile, " "); got != c.wantArgv {
			t.Errorf("%v: compile\n %s\nwant\n %s", c.argv, got, c.wantArgv)
		}
		if !slices.Equal(l.Artefacts, c.artefacts) {
			t.Errorf("%v: artefacts %q, want %q", c.argv, l.Artefacts, c.artefacts)
		}
	}
}

func TestCompileLanguageJava(t *testing.T) {
	table := tableLang(t, "java")
	same, err := CompileLanguage(table, compileRequest(t, "--compile", "java", "--compile-target", "Main", "--compile-source", "Main.java"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(strings.Replace(table.Compile[2], "Main.java", "'Main.java'", 1), "-f Main.class", "-f 'Main.class'", 1); same.Compile[2] != want {
		t.Errorf("Main from Main.java: script\n %s\nwant the table's\n %s", same.Compile[2], want)
	}
	l, err := CompileLanguage(table, compileRequest(t, "--compile", "java", "--compile-target", "Main_entry",
		"--compile-source", "Main_entry.java", "--compile-source", "sums.java", "--", "-g"))
	if err != nil {
		t.Fatal(err)
	}
	script := l.Compile[2]
	if !strings.Contains(script, " -d . 'Main_entry.java' 'sums.java' '-g' && if [ -f 'Main_entry.class' ]; then ") || strings.Contains(script, "Main.") {
		t.Errorf("script %s", script)
	}
	if !slices.Equal(l.Artefacts, []string{"main.jar", "Main_entry.class"}) || !strings.Contains(l.ArtefactHint, "`Main_entry`") {
		t.Errorf("artefacts %q, hint %q", l.Artefacts, l.ArtefactHint)
	}
	if !slices.Equal(table.Artefacts, []string{"main.jar", "Main.class"}) {
		t.Errorf("the table's language changed: %q", table.Artefacts)
	}
}

func TestCompileLanguageRefuses(t *testing.T) {
	for _, argv := range [][]string{
		{"--compile", "cpp11", "--compile-source", "dir/Main.cpp"},
		{"--compile", "cpp11", "--compile-source", "../Main.cpp"},
		{"--compile", "cpp11", "--compile-source", "Main.cpp", "--compile-source", "Main.cpp"},
		{"--compile", "cpp11", "--compile-source", "Main.cpp", "--compile-target", "bin/Main"},
		{"--compile", "cpp11", "--compile-source", "Main.cpp", "--compile-target", ".."},
		// quark's debug mode
		{"--compile", "cpp11", "--compile-source", "Main.cpp", "--", "-static-libasan", "-fsanitize=address"},
	} {
		_, err := CompileLanguage(tableLang(t, "cpp11"), compileRequest(t, argv...))
		if !errors.Is(err, ErrUnsupportedRequest) {
			t.Errorf("%v: err %v, want ErrUnsupportedRequest", argv, err)
		}
	}
	odd := tableLang(t, "cpp11")
	odd.Compile = []string{"/bin/sh", "-c", "g++ main.cpp"}
	if _, err := CompileLanguage(odd, compileRequest(t, "--compile", "cpp11", "--compile-source", "Main.cpp")); !errors.Is(err, ErrUnsupportedRequest) || !strings.Contains(err.Error(), "-o main") {
		t.Errorf("a compile without -o: %v", err)
	}
}

func TestRunCommand(t *testing.T) {
	for _, c := range []struct {
		omega string
		argv  []string
		want  string
	}{
		{"cpp17-gcc", runnerRun, "/run/podjail/artefact/Main"},
		{"cpp11", []string{"--run", "cpp11", "--run-target", "validator", "--", "1", "cpp17-gcc"}, "/run/podjail/artefact/validator 1 cpp17-gcc"},
		{"go", []string{"--run", "go", "--run-target", "Main"}, "/run/podjail/artefact/Main"},
		{"py3", []string{"--run", "py3", "--run-target", "validator"}, "/usr/bin/python3 -S /run/podjail/artefact/validator.py"},
		{"js", []string{"--run", "js", "--run-target", "Main"}, "/usr/bin/node --max-old-space-size=65536 /run/podjail/artefact/Main.js"},
	} {
		got, err := RunCommand(tableLang(t, c.omega), compileRequest(t, c.argv...))
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%v: %q %v, want %s", c.argv, got, err, c.want)
		}
	}
	got, err := RunCommand(tableLang(t, "java"), compileRequest(t, "--run", "java", "--run-target", "Main_entry"))
	if err != nil || got[len(got)-1] != "Main_entry" || !slices.Contains(got, "/run/podjail/artefact/main.jar") {
		t.Errorf("java: %q %v", got, err)
	}
	if _, err := RunCommand(tableLang(t, "cpp11"), compileRequest(t, "--run", "cpp11", "--run-target", "../x")); !errors.Is(err, ErrUnsupportedRequest) {
		t.Errorf("a target outside the home directory: %v", err)
	}
}

// Every language the front maps keeps to the rules CompileLanguage and
// RunCommand read the table by (languages.yaml says so to its editors).
func TestEveryMappedLanguageHasTargets(t *testing.T) {
	for _, omega := range Languages() {
		if _, err := LanguageID(omega); err != nil {
			continue
		}
		l := tableLang(t, omega)
		c, err := CompileLanguage(l, compileRequest(t, "--compile", omega, "--compile-target", "T", "--compile-source", "a"+path.Ext(l.Source)))
		if err != nil {
			t.Errorf("%s: compile: %v", omega, err)
			continue
		}
		if strings.Contains(strings.Join(c.Compile, " "), l.Source) {
			t.Errorf("%s: compile %q still names %s", omega, c.Compile, l.Source)
		}
		if _, err := RunCommand(l, compileRequest(t, "--run", omega, "--run-target", "T")); err != nil {
			t.Errorf("%s: run: %v", omega, err)
		}
	}
}
