package lang

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParse holds that a languages file (capped at 8 KiB) never panics
// the parser, alone or merged over the built-in table; that a refusal
// names the file; that every language of a table it accepts is valid and
// found by its ID, its aliases and its extensions; and that the table
// written back as a languages file (formatTable, here only) parses to the
// same languages.
func FuzzParse(f *testing.F) {
	f.Add([]byte(docExample))
	f.Add(embedded)
	f.Add([]byte("cpp17: {run_image: registry.example.org/gcc:14, extra_time: 0.25, build_memory: 1GiB}\n"))
	f.Add([]byte("python3: ~\nkotlin:\n  name: Kotlin\n  aliases: [kt]\n  extensions: [.kt]\n  build_image: a\n  run_image: b\n  source: Main.kt\n  compile: [/usr/bin/kotlinc, Main.kt]\n  artefacts: [Main.jar]\n  run: [/usr/bin/java, -jar, /artefacts/Main.jar]\n  env: [A=1]\n  memory_exit_code: 3\n  build_time_limit: 1m\n"))
	f.Add([]byte("a: &x {run_image: i, run: [/x]}\nb: *x\nc: [1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 8<<10 {
			return
		}
		for _, base := range []*Table{nil, Default()} {
			tab, err := parse(base, data, "langs.yaml")
			if err != nil {
				if !strings.HasPrefix(err.Error(), "langs.yaml: ") {
					t.Fatalf("parse(%q): %v does not name the file", data, err)
				}
				continue
			}
			checkTable(t, data, tab)
			text := formatTable(t, tab)
			again, err := parse(nil, text, "again.yaml")
			if err != nil {
				t.Fatalf("parse(%q) accepted, written back as\n%s\nrefused: %v", data, text, err)
			}
			if !reflect.DeepEqual(again.langs, tab.langs) {
				t.Fatalf("parse(%q):\n %+v\nwritten back as\n%s\nparsed as\n %+v", data, tab.langs, text, again.langs)
			}
		}
	})
}

func checkTable(t *testing.T, data []byte, tab *Table) {
	t.Helper()
	for _, id := range tab.IDs() {
		l, err := tab.Lookup(id)
		if err != nil || l.ID != id {
			t.Fatalf("parse(%q): Lookup(%q) = %+v, %v", data, id, l, err)
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("parse(%q): accepted an invalid language: %v", data, err)
		}
		for _, a := range l.Aliases {
			if got, err := tab.Lookup(a); err != nil || got.ID != id {
				t.Fatalf("parse(%q): alias %q of %q finds %q, %v", data, a, id, got.ID, err)
			}
		}
		for _, e := range l.Extensions {
			if got, err := tab.ForFile("main" + e); err != nil || got.ID != id {
				t.Fatalf("parse(%q): extension %q of %q finds %q, %v", data, e, id, got.ID, err)
			}
		}
	}
}

// formatTable writes tab as a languages file, every field of every
// language spelled out.
func formatTable(t *testing.T, tab *Table) []byte {
	t.Helper()
	out := map[string]map[string]any{}
	for id, l := range tab.langs {
		m := map[string]any{"name": l.Name, "build_image": l.BuildImage, "run_image": l.RunImage, "source": l.Source,
			"extra_time": l.ExtraTime.String(), "build_time_limit": l.BuildTimeLimit.String(),
			"build_memory": strconv.FormatInt(l.BuildMemoryBytes, 10), "memory_exit_code": strconv.Itoa(l.MemoryExitCode),
			"stack":         strconv.FormatInt(l.StackBytes, 10),
			"artefact_hint": l.ArtefactHint}
		for name, v := range map[string][]string{"aliases": l.Aliases, "extensions": l.Extensions, "compile": l.Compile,
			"artefacts": l.Artefacts, "run": l.Run, "env": l.Env} {
			if v != nil {
				m[name] = v
			}
		}
		out[id] = m
	}
	b, err := yaml.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
