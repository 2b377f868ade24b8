package lang

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T, yaml string) (*Table, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "langs.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path)
}

func mustLookup(t *testing.T, tab *Table, name string) Language {
	t.Helper()
	l, err := tab.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoadMergesPartialOverride(t *testing.T) {
	tab, err := load(t, "cpp17: {run_image: registry.example.org/gcc:14, extra_time: 0.25, build_memory: 1GiB, stack: 64MiB}\n")
	if err != nil {
		t.Fatal(err)
	}
	got, def := mustLookup(t, tab, "c++"), mustLookup(t, Default(), "cpp17")
	if got.RunImage != "registry.example.org/gcc:14" || got.ExtraTime != 250*time.Millisecond || got.BuildMemoryBytes != 1<<30 || got.StackBytes != 64<<20 {
		t.Errorf("override not applied: %+v", got)
	}
	got.RunImage, got.ExtraTime, got.BuildMemoryBytes, got.StackBytes = def.RunImage, 0, 0, 0
	if !slices.Equal(got.Compile, def.Compile) || !slices.Equal(got.Aliases, def.Aliases) || got.Name != def.Name ||
		got.BuildImage != def.BuildImage || got.Source != def.Source || !slices.Equal(got.Run, def.Run) {
		t.Errorf("fields not in the file changed:\n got %+v\nwant %+v", got, def)
	}
	if c := mustLookup(t, tab, "c11"); !slices.Equal(c.Compile, mustLookup(t, Default(), "c11").Compile) {
		t.Errorf("c11 changed: %+v", c)
	}
	if d := mustLookup(t, Default(), "cpp17"); d.RunImage != "localhost/podjail-gcc:latest" {
		t.Errorf("Load changed the default table: %+v", d)
	}
}

// docExample is the example in doc.go.
const docExample = `
# Use a site image for C++17 and give .cpp files to C++20 instead.
cpp17:
  run_image: registry.example.org/judge/gcc:14
  extensions: [.cc, .cxx]
cpp20:
  extensions: [.cpp]

# No Python on this host.
python3: ~

# Ruby 3 from a site image, every field of the built-in ruby replaced.
ruby:
  name: Ruby 3
  aliases: [rb]
  extensions: [.rb]
  build_image: registry.example.org/judge/ruby:3
  run_image: registry.example.org/judge/ruby:3
  source: main.rb
  compile: [/usr/bin/ruby, -c, main.rb]
  artefacts: [main.rb]
  run: [/usr/bin/ruby, --disable-gems, /run/podjail/artefact/main.rb]
  env: [RUBY_MAX_CPU=1]
  extra_time: 500ms
  build_memory: 1GiB
`

func TestLoadDocExample(t *testing.T) {
	tab, err := load(t, docExample)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tab.IDs(), []string{"c11", "c11-clang", "cpp03", "cpp03-clang", "cpp11", "cpp11-clang", "cpp17", "cpp17-clang",
		"cpp20", "cpp20-clang", "csharp", "gnu11", "go", "haskell", "java", "javascript", "kotlin", "lua", "pascal", "php", "pypy3",
		"ruby", "rust"}; !slices.Equal(got, want) {
		t.Errorf("IDs() = %q, want %q", got, want)
	}
	j := mustLookup(t, tab, "RB")
	if j.ID != "ruby" || j.ExtraTime != 500*time.Millisecond || j.BuildMemoryBytes != 1<<30 || j.Run[0] != "/usr/bin/ruby" ||
		!slices.Equal(j.Env, []string{"RUBY_MAX_CPU=1"}) {
		t.Errorf("ruby = %+v", j)
	}
	for file, id := range map[string]string{"a.cpp": "cpp20", "a.cc": "cpp17", "a.rb": "ruby"} {
		if l, err := tab.ForFile(file); err != nil || l.ID != id {
			t.Errorf("ForFile(%q) = %q, %v; want %q", file, l.ID, err, id)
		}
	}
	if _, err := tab.Lookup("py"); err == nil || strings.Contains(err.Error(), "python3") {
		t.Errorf("python3 not removed: %v", err)
	}
}

func TestLoadValues(t *testing.T) {
	tab, err := load(t, `
C11:
  compile: ["/usr/bin/gcc", "-std=gnu11", "-o", "main", main.c]
  build_time_limit: 30s
  build_memory: 268435456
  aliases: [C, GNU-C]
python3:
  compile: []
  artefacts: []
  extra_time: 1.5
`)
	if err != nil {
		t.Fatal(err)
	}
	c := mustLookup(t, tab, "gnu-c")
	if c.ID != "c11" || c.Compile[1] != "-std=gnu11" || c.BuildTimeLimit != 30*time.Second || c.BuildMemoryBytes != 256<<20 {
		t.Errorf("c11 = %+v", c)
	}
	py := mustLookup(t, tab, "python3")
	if py.Compile != nil || !slices.Equal(py.Artefacts, []string{"main.py"}) || py.ExtraTime != 1500*time.Millisecond {
		t.Errorf("python3 without a check = %+v", py)
	}
	for _, empty := range []string{"", "# nothing\n", "{}\n"} {
		tab, err := load(t, empty)
		if err != nil || !slices.Equal(tab.IDs(), Default().IDs()) {
			t.Errorf("%q: %v, %v", empty, tab.IDs(), err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	for _, c := range []struct{ yaml, want string }{
		{"cpp17:\n  run_image: [a\n", "langs.yaml: line "},
		{"cpp17:\n\trun_image: x\n", "line 2"},
		{"- c11\n", "line 1: the file must map language IDs"},
		{"cpp17: gcc\n", `line 1: language "cpp17": want a mapping`},
		{"cpp17:\n  image: x\n", `line 2: language "cpp17": image: unknown field`},
		{"cpp17:\n  run_image: a\n  run_image: b\n", `line 3: language "cpp17": run_image: already set at line 2`},
		{"cpp17: {}\nCPP17: {}\n", `line 2: language "cpp17" is already defined at line 1`},
		{"cpp17:\n  compile: /usr/bin/g++ main.cpp\n", `line 2: language "cpp17": compile: want a list`},
		{"cpp17:\n  run: [[a]]\n", `line 2: language "cpp17": run: want a list of plain values`},
		{"c:\n  name: C\n", `line 1: language "c": "c" is an alias of "c11"`},
		{"cpp17:\n  name: [a]\n", `line 2: language "cpp17": name: want a single value`},
		{"cpp17:\n  extra_time: soon\n", `line 2: language "cpp17": extra_time: "soon" is not a duration`},
		{"cpp17:\n  build_memory: 1TiB\n", `line 2: language "cpp17": build_memory: "1TiB" is not a size`},
		{"cpp17:\n  build_memory: lots\n", `build_memory: "lots" is not a size`},
		{"go:\n  env: [GOMAXPROCS]\n", `line 2: language "go": env: "GOMAXPROCS" must be NAME=VALUE`},
		{"ruby:\n  stack: deep\n", `line 2: language "ruby": stack: "deep" is not a size`},
		{"java:\n  memory_exit_code: three\n", `line 2: language "java": memory_exit_code: "three" is not a whole number`},
		{"java:\n  memory_exit_code: 300\n", `line 2: language "java": memory_exit_code: 300 is not an exit code`},
		{"cobol: ~\n", `line 1: language "cobol": a null entry removes a language, but there is none`},
		// Validation after the merge blames the field's line, or the entry's.
		{"cpp17:\n  name: x\n  run: [main]\n", `line 3: language "cpp17": run: argv[0] "main" must be an absolute path`},
		{"cpp17:\n  artefacts: [../main]\n", `line 2: language "cpp17": artefacts: "../main" must be a plain file name`},
		{"cpp17:\n  compile: ~\n", `line 1: language "cpp17": artefacts: ["main"] without compile`},
		{"cobol:\n  name: COBOL\n  source: main.cob\n  run: [/run/podjail/artefact/main]\n", `line 1: language "cobol": run_image: not set`},
		{"cobol:\n  run_image: x\n  source: main.cob\n  compile: [/usr/bin/cobc, -x, main.cob]\n  artefacts: [main]\n  run: [/x]\n",
			`line 1: language "cobol": build_image: not set`},
		{"Rust Lang: {}\n", `language "rust lang": id: "rust lang" must be`},
		{"c11:\n  extensions: [.c, .cpp]\n", `line 2: language "c11": extensions: ".cpp" is already claimed by "cpp17"`},
		{"python3:\n  aliases: [c]\n", `line 2: language "python3": aliases: the name "c" is already taken by "c11"`},
	} {
		_, err := load(t, c.yaml)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant …%s…", c.yaml, err, c.want)
		}
	}
}
