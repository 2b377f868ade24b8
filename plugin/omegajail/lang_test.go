package omegajail

import (
	"errors"
	"strings"
	"testing"

	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/shim"
)

func TestLanguageID(t *testing.T) {
	want := map[string]string{
		"c": "c11", "c11-gcc": "c11", "c11-clang": "c11",
		"cpp03-gcc": "cpp03", "cpp03-clang": "cpp03",
		"cpp": "cpp11", "cpp11": "cpp11", "cpp11-gcc": "cpp11", "cpp11-clang": "cpp11",
		"cpp17-gcc": "cpp17", "cpp17-clang": "cpp17",
		"cpp20-gcc": "cpp20", "cpp20-clang": "cpp20",
		"py": "python3", "py3": "python3",
		"java": "java", "go": "go", "rs": "rust", "js": "javascript",
	}
	table := lang.Default()
	for _, name := range Languages() {
		id, err := LanguageID(name)
		if w, ok := want[name]; ok {
			if err != nil || id != w {
				t.Errorf("%s: %q %v, want %q", name, id, err, w)
			}
			// The ID must exist in podjail's own table.
			if l, err := table.Lookup(id); err != nil || l.ID != id {
				t.Errorf("%s: podjail has no language %q: %v", name, id, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnsupportedLanguage) || id != "" || !strings.Contains(err.Error(), `"`+name+`"`) {
			t.Errorf("%s: %q %v, want an ErrUnsupportedLanguage naming it", name, id, err)
		}
	}
	if _, err := LanguageID("cobol"); !errors.Is(err, ErrUnsupportedLanguage) {
		t.Errorf("cobol: %v", err)
	}
	if len(Languages()) != 29 {
		t.Errorf("%d languages, want omegajail's 29", len(Languages()))
	}
}

// TestRunTasks: every language LanguageID maps gets omegajail's rule for new
// tasks (threads only, or for Python nothing), and a refused one none.
func TestRunTasks(t *testing.T) {
	for _, name := range Languages() {
		id, err := LanguageID(name)
		got := RunTasks(name)
		switch {
		case err != nil:
			if got != shim.TasksAny {
				t.Errorf("%s (refused): tasks %q, want none", name, got)
			}
		case id == "python3":
			if got != shim.TasksNone {
				t.Errorf("%s: tasks %q, want %q (py.policy lists no clone)", name, got, shim.TasksNone)
			}
		default:
			if got != shim.TasksThreads {
				t.Errorf("%s: tasks %q, want %q (clone with the thread flags only)", name, got, shim.TasksThreads)
			}
		}
	}
}
