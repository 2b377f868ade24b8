package lang

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEmbeddedTable parses languages.yaml directly, so that a broken table
// fails here instead of panicking in Default.
func TestEmbeddedTable(t *testing.T) {
	tab, err := parse(nil, embedded, embeddedName)
	if err != nil {
		t.Fatalf("embedded languages.yaml: %v", err)
	}
	if got, want := tab.IDs(), []string{"c11", "c11-clang", "cpp03", "cpp03-clang", "cpp11", "cpp11-clang", "cpp17", "cpp17-clang",
		"cpp20", "cpp20-clang", "csharp", "gnu11", "go", "haskell", "java", "javascript", "kotlin", "lua", "pascal", "php", "pypy3", "python3",
		"ruby", "rust"}; !slices.Equal(got, want) {
		t.Fatalf("IDs() = %q, want %q", got, want)
	}
	if Default() != Default() {
		t.Error("Default() parsed twice")
	}
	for _, id := range tab.IDs() {
		l, err := tab.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		// Only the JVM's start is paid for; only the slow compilers get more.
		if (l.ExtraTime != 0) != slices.Contains([]string{"java", "kotlin"}, id) ||
			(l.BuildTimeLimit != 0) != slices.Contains([]string{"java", "kotlin", "go", "rust", "haskell", "csharp"}, id) {
			t.Errorf("%s: extra time or build limits: %+v", id, l)
		}
		// Only programs that both the Debian images (hack/testvm) and the
		// Fedora ones (contrib/images) have, at these paths; podjail-cms's
		// are Debian's in both (TestCMSImageLanguages).
		for _, argv := range [][]string{l.Compile, l.Run} {
			if len(argv) == 0 {
				continue
			}
			if p := argv[0]; !slices.Contains([]string{"/usr/bin/gcc", "/usr/bin/g++", "/usr/bin/python3", "/bin/sh", "/usr/bin/java",
				"/usr/bin/go", "/usr/bin/rustc", "/usr/bin/node"}, p) && !slices.Contains(cmsPrograms, p) &&
				!strings.HasPrefix(p, ArtefactDir+"/") {
				t.Errorf("%s: unexpected program %q", id, p)
			}
		}
		if len(l.Compile) > 0 && slices.Contains([]string{"/usr/bin/gcc", "/usr/bin/g++", "/usr/bin/go", "/usr/bin/rustc"}, l.Compile[0]) {
			// Run containers only mount the binary: it must be static.
			if !(slices.Contains(l.Compile, "-static") || slices.Contains(l.Compile, "target-feature=+crt-static") || slices.Contains(l.Env, "CGO_ENABLED=0")) || !slices.Equal(l.Artefacts, []string{"main"}) ||
				!slices.Equal(l.Run, []string{ArtefactDir + "/main"}) {
				t.Errorf("%s: not a static build of main run from %s: %+v", id, ArtefactDir, l)
			}
		}
	}
	c, _ := tab.Lookup("c11")
	want := []string{"/usr/bin/gcc", "-std=c11", "-O2", "-pipe", "-static", "-s", "-o", "main", "main.c", "-lm"}
	if !slices.Equal(c.Compile, want) || c.Source != "main.c" || c.BuildImage != "localhost/podjail-gcc:latest" {
		t.Errorf("c11 = %+v", c)
	}
	py, _ := tab.Lookup("python3")
	if !slices.Equal(py.Artefacts, []string{py.Source}) || !slices.Equal(py.Run, []string{"/usr/bin/python3", "-S", ArtefactDir + "/main.py"}) ||
		py.RunImage != "localhost/podjail-python3:latest" || py.BuildImage != py.RunImage {
		t.Errorf("python3 = %+v", py)
	}
}

// cmsPrograms are the programs of the languages that live in podjail-cms,
// each at the path CMS's language classes call it too.
var cmsPrograms = []string{"/usr/bin/fpc", "/usr/bin/ghc", "/usr/bin/mcs", "/usr/bin/mono", "/usr/bin/php", "/usr/bin/pypy3",
	"/usr/bin/clang-19", "/usr/bin/clang++-19", "/usr/bin/luac5.3", "/usr/bin/lua5.3", "/usr/bin/ruby"}

// TestCMSImageLanguages: the languages that need podjail-cms build and run
// there, and both recipes of that image install their programs' packages.
func TestCMSImageLanguages(t *testing.T) {
	want := map[string][]string{ // ID: the programs its commands start
		"pascal": {"/usr/bin/fpc"}, "haskell": {"/usr/bin/ghc"}, "csharp": {"/usr/bin/mcs", "/usr/bin/mono"},
		"php": {"/usr/bin/php"}, "pypy3": {"/usr/bin/pypy3"},
		// omegaUp's set (docs/omegajail.md)
		"c11-clang": {"/usr/bin/clang-19"}, "cpp03-clang": {"/usr/bin/clang++-19"}, "cpp11-clang": {"/usr/bin/clang++-19"},
		"cpp17-clang": {"/usr/bin/clang++-19"}, "cpp20-clang": {"/usr/bin/clang++-19"},
		"lua": {"/usr/bin/luac5.3", "/usr/bin/lua5.3"}, "ruby": {"/usr/bin/ruby"}, "kotlin": {"/bin/sh", "/usr/bin/java"},
	}
	for id, progs := range want {
		l, err := Default().Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if l.BuildImage != "localhost/podjail-cms:latest" || l.RunImage != l.BuildImage {
			t.Errorf("%s: images %q, %q; want localhost/podjail-cms:latest", id, l.BuildImage, l.RunImage)
		}
		var got []string
		for _, argv := range [][]string{l.Compile, l.Run} {
			if !strings.HasPrefix(argv[0], ArtefactDir+"/") && !slices.Contains(got, argv[0]) {
				got = append(got, argv[0])
			}
		}
		if !slices.Equal(got, progs) {
			t.Errorf("%s: starts %q, want %q", id, got, progs)
		}
	}
	packages := []string{"fp-compiler", "ghc", "mono-mcs", "mono-runtime", "php-cli", "pypy3", "zip", "clang-19", "lua5.3", "ruby"}
	for _, file := range []string{"../../hack/testvm/packages-cms.txt", "../../contrib/images/cms.Containerfile"} {
		words := fileWords(t, file)
		for _, p := range packages {
			if !slices.Contains(words, p) {
				t.Errorf("%s does not install %s", file, p)
			}
		}
	}
}

// TestKotlinCompilerFetchedAlike: the test VM fetches the Kotlin compiler
// the Containerfile adds, checked by the same sha256.
func TestKotlinCompilerFetchedAlike(t *testing.T) {
	fetch := fileWords(t, "../../hack/testvm/fetch-cms.txt")
	if len(fetch) < 3 || !strings.Contains(fetch[0], "/kotlin-compiler-") {
		t.Fatalf("fetch-cms.txt fetches %q; want the kotlin-compiler tarball, its sha256 and a path", fetch)
	}
	add := fileWords(t, "../../contrib/images/cms.Containerfile")
	if !slices.Contains(add, fetch[0]) || !slices.Contains(add, "--checksum=sha256:"+fetch[1]) {
		t.Errorf("cms.Containerfile does not ADD %s with --checksum=sha256:%s", fetch[0], fetch[1])
	}
}

// fileWords are the words of file outside '#' comments.
func fileWords(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "#")
		words = append(words, strings.Fields(line)...)
	}
	return words
}

// TestImagesHaveStaticLibraries ties the table's -static to the image
// recipes: libc.a/libm.a (libc6-dev, glibc-static) and libstdc++.a (g++ ->
// libstdc++-14-dev, libstdc++-static).
func TestImagesHaveStaticLibraries(t *testing.T) {
	for file, want := range map[string][]string{
		"../../hack/testvm/packages-gcc.txt":         {"gcc", "g++", "libc6-dev"},
		"../../hack/testvm/packages-python3.txt":     {"python3"},
		"../../contrib/images/gcc.Containerfile":     {"gcc", "gcc-c++", "glibc-static", "libstdc++-static"},
		"../../contrib/images/python3.Containerfile": {"python3"},
	} {
		words := fileWords(t, file)
		for _, w := range want {
			if !slices.Contains(words, w) {
				t.Errorf("%s does not install %s", file, w)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	tab := Default()
	for name, id := range map[string]string{
		"c11": "c11", "C": "c11", "gcc": "c11",
		"cpp17": "cpp17", "C++": "cpp17", "CPP": "cpp17", "c++17": "cpp17",
		"CPP20": "cpp20", "c++20": "cpp20",
		"python3": "python3", "Py": "python3", "PY3": "python3", " python ": "python3",
		"pas": "pascal", "FPC": "pascal", "hs": "haskell", "ghc": "haskell", "C#": "csharp", "cs": "csharp", "mono": "csharp",
		"php": "php", "PHP8": "php", "pypy": "pypy3", "PyPy3": "pypy3",
	} {
		l, err := tab.Lookup(name)
		if err != nil || l.ID != id {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, l.ID, err, id)
		}
	}
	// A Language is a copy: changing it does not change the table.
	l, _ := tab.Lookup("c11")
	l.Compile[0] = "/bin/false"
	l.Aliases[0] = "x"
	if l2, _ := tab.Lookup("c"); l2.Compile[0] != "/usr/bin/gcc" {
		t.Errorf("table changed through a Lookup result: %q", l2.Compile)
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{"rust", "", "c11 "} {
		_, err := Default().Lookup(name + "x")
		if !errors.Is(err, ErrUnknownLanguage) {
			t.Fatalf("Lookup(%q): %v, want ErrUnknownLanguage", name, err)
		}
		for _, s := range []string{"c11", "cpp17", "cpp20", "python3", "--languages"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("Lookup(%q) error %q does not mention %q", name, err, s)
			}
		}
	}
	if _, err := Default().Lookup(""); !errors.Is(err, ErrUnknownLanguage) || !strings.Contains(err.Error(), "python3") {
		t.Errorf("Lookup(\"\") = %v", err)
	}
}

func TestForFile(t *testing.T) {
	tab := Default()
	for file, id := range map[string]string{
		"main.c": "c11", "/tmp/x/A.C": "c11", "sol.cpp": "cpp17", "sol.cc": "cpp17", "a.b.CXX": "cpp17",
		"x.c++": "cpp17", "dir.py/solution.PY": "python3", "Main.java": "java", "main.go": "go", "main.rs": "rust", "a.js": "javascript",
		"main.pas": "pascal", "main.PP": "pascal", "Main.hs": "haskell", "Main.cs": "csharp", "index.php": "php",
		"main.kt": "kotlin", "a.lua": "lua", "a.rb": "ruby",
	} {
		l, err := tab.ForFile(file)
		if err != nil || l.ID != id {
			t.Errorf("ForFile(%q) = %q, %v; want %q", file, l.ID, err, id)
		}
	}
	for _, file := range []string{"main.kts", "Makefile", "dir.c/noext", "main."} {
		_, err := tab.ForFile(file)
		if !errors.Is(err, ErrUnknownLanguage) || !strings.Contains(err.Error(), ".cpp") {
			t.Errorf("ForFile(%q) = %v", file, err)
		}
	}
}

func TestBuildLimits(t *testing.T) {
	d, m := Language{}.BuildLimits()
	if d != DefaultBuildTimeLimit || m != DefaultBuildMemoryBytes {
		t.Errorf("defaults = %v, %d", d, m)
	}
	d, m = Language{BuildTimeLimit: time.Minute, BuildMemoryBytes: 1 << 30}.BuildLimits()
	if d != time.Minute || m != 1<<30 {
		t.Errorf("set = %v, %d", d, m)
	}
}

func TestValidate(t *testing.T) {
	good := func() Language {
		l, _ := Default().Lookup("cpp17")
		return l
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	interp := Language{ID: "sh", RunImage: "img", Source: "main.sh", Run: []string{"/bin/sh", ArtefactDir + "/main.sh"}}
	if err := interp.Validate(); err != nil {
		t.Errorf("no compile, no artefacts: %v", err)
	}
	interp.Artefacts = []string{"main.sh"}
	if err := interp.Validate(); err != nil {
		t.Errorf("no compile, artefacts [source]: %v", err)
	}
	for _, c := range []struct {
		field string
		edit  func(*Language)
	}{
		{"id", func(l *Language) { l.ID = "" }},
		{"id", func(l *Language) { l.ID = "Cpp17" }},
		{"id", func(l *Language) { l.ID = "cpp 17" }},
		{"aliases", func(l *Language) { l.Aliases = []string{"c/c++"} }},
		{"extensions", func(l *Language) { l.Extensions = []string{"cpp"} }},
		{"extensions", func(l *Language) { l.Extensions = []string{".CPP"} }},
		{"source", func(l *Language) { l.Source = "" }},
		{"source", func(l *Language) { l.Source = "src/main.cpp" }},
		{"source", func(l *Language) { l.Source = ".." }},
		{"run_image", func(l *Language) { l.RunImage = "" }},
		{"build_image", func(l *Language) { l.BuildImage = "" }},
		{"run", func(l *Language) { l.Run = nil }},
		{"run", func(l *Language) { l.Run = []string{"main"} }},
		{"run", func(l *Language) { l.Run = []string{"./main"} }},
		{"compile", func(l *Language) { l.Compile[0] = "g++" }},
		{"compile", func(l *Language) { l.Compile[0] = "/usr/bin/../bin/g++" }},
		{"artefacts", func(l *Language) { l.Artefacts = nil }},
		{"artefacts", func(l *Language) { l.Artefacts = []string{"../main"} }},
		{"artefacts", func(l *Language) { l.Artefacts = []string{"out/main"} }},
		{"artefacts", func(l *Language) { l.Artefacts = []string{"main", "main"} }},
		{"artefacts", func(l *Language) { l.Artefacts = []string{"."} }},
		{"artefacts", func(l *Language) { l.Compile = nil }}, // artefacts [main] but nothing builds it
		{"extra_time", func(l *Language) { l.ExtraTime = -time.Second }},
		{"build_time_limit", func(l *Language) { l.BuildTimeLimit = -1 }},
		{"build_memory", func(l *Language) { l.BuildMemoryBytes = -1 }},
	} {
		l := good()
		c.edit(&l)
		err := l.Validate()
		if err == nil || !strings.Contains(err.Error(), "language \""+l.ID+"\": "+c.field+": ") {
			t.Errorf("%s: %+v: got %v", c.field, l, err)
		}
	}
}
