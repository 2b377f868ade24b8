package omegajail

import (
	"errors"
	"strings"
	"testing"

	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/shim"
)

// served is what the front serves each omegaUp name with: podjail's
// language, omegajail's headroom above -m and baseline in MiB (omegajail
// ed10c03 src/jail/options.rs; Java's headroom is its heap's 18 MiB), its
// policy's task rule, and the file the Runner reads a compile error from.
var served = map[string]struct {
	id                 string
	headroom, baseline int64
	tasks              string
	messages           string
}{
	"c": {"c11", 16, 0, "threads", "-2"}, "c11-gcc": {"c11", 16, 0, "threads", "-2"}, "c11-clang": {"c11-clang", 16, 0, "threads", "-2"},
	"cpp03-gcc": {"cpp03", 16, 0, "threads", "-2"}, "cpp03-clang": {"cpp03-clang", 16, 0, "threads", "-2"},
	"cpp": {"cpp11", 16, 0, "threads", "-2"}, "cpp11": {"cpp11", 16, 0, "threads", "-2"},
	"cpp11-gcc": {"cpp11", 16, 0, "threads", "-2"}, "cpp11-clang": {"cpp11-clang", 16, 0, "threads", "-2"},
	"cpp17-gcc": {"cpp17", 16, 0, "threads", "-2"}, "cpp17-clang": {"cpp17-clang", 16, 0, "threads", "-2"},
	"cpp20-gcc": {"cpp20", 16, 0, "threads", "-2"}, "cpp20-clang": {"cpp20-clang", 16, 0, "threads", "-2"},
	"pas": {"pascal", 16, 0, "none", "-1"}, "lua": {"lua", 16, 0, "none", "-2"}, "hs": {"haskell", 16, 0, "threads", "-2"},
	"java": {"java", 18, 47, "threads", "-2"}, "kt": {"kotlin", 18, 47, "threads", "-2"},
	"py": {"python3", 16, 0, "none", "-2"}, "py3": {"python3", 16, 0, "none", "-2"},
	"rb": {"ruby", 56, 12, "threads", "-2"}, "cs": {"csharp", 20, 20, "threads", "-1"},
	"rs": {"rust", 16, 0, "threads", "-2"}, "go": {"go", 512, 0, "threads", "-2"}, "js": {"javascript", 89, 31, "threads", "-2"},
}

func TestLanguageID(t *testing.T) {
	table := lang.Default()
	for _, name := range Languages() {
		id, err := LanguageID(name)
		if w, ok := served[name]; ok {
			if err != nil || id != w.id {
				t.Errorf("%s: %q %v, want %q", name, id, err, w.id)
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
	if len(Languages()) != 29 || len(front) != 29 {
		t.Errorf("%d languages, %d in the front's table, want omegajail's 29", len(Languages()), len(front))
	}
}

// TestUnservedLanguagesSayWhy: py2, kj, kp and rk are refused with the
// reason, which the Runner's log shows beside its judge error.
func TestUnservedLanguagesSayWhy(t *testing.T) {
	for name, why := range map[string]string{"py2": "Python 2.7 is not in Debian", "kj": "Karel", "kp": "Karel", "rk": "ReKarel"} {
		_, err := LanguageID(name)
		if !errors.Is(err, ErrUnsupportedLanguage) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "not served by podjail") {
			t.Errorf("%s: %v, want the reason %q", name, err, why)
		}
	}
}

// TestRunTasks: every served language gets its omegajail policy's rule for
// new tasks, and a refused one none.
func TestRunTasks(t *testing.T) {
	for _, name := range Languages() {
		want := served[name].tasks
		if got := RunTasks(name); got != want {
			t.Errorf("%s: tasks %q, want %q", name, got, want)
		}
	}
	if shim.TasksThreads != "threads" || shim.TasksNone != "none" {
		t.Fatalf("the shim's rules are named %q and %q", shim.TasksThreads, shim.TasksNone)
	}
}

func TestCompileMessagesOnStdout(t *testing.T) {
	for _, name := range Languages() {
		if got, want := CompileMessagesOnStdout(name), served[name].messages == "-1"; got != want {
			t.Errorf("%s: messages on stdout %t, want %t (quark reads compile.out for pas and cs only)", name, got, want)
		}
	}
}

// TestMemoryArithmetic: the run's limit is -m plus omegajail's headroom
// (for the JVM, its heap at -m + 18 MiB plus room outside it), and the
// reported memory has omegajail's baseline taken off, never below 0.
func TestMemoryArithmetic(t *testing.T) {
	const m = 256 * MiB
	for name, w := range served {
		limit := RunMemoryLimit(name, m)
		switch name {
		case "java", "kt":
			if JavaHeapBytes(m) != m+18*MiB || limit != JavaHeapBytes(m)+jvmOutsideHeap {
				t.Errorf("%s: heap %d, limit %d", name, JavaHeapBytes(m), limit)
			}
		default:
			if limit != m+w.headroom*MiB {
				t.Errorf("%s: limit %d, want -m + %d MiB", name, limit, w.headroom)
			}
		}
		if got := ReportedMemory(name, 100*MiB); got != (100-w.baseline)*MiB {
			t.Errorf("%s: 100 MiB reported as %d, want %d MiB off", name, got, w.baseline)
		}
		if got := ReportedMemory(name, 5*MiB); got != max(5-w.baseline, 0)*MiB {
			t.Errorf("%s: 5 MiB reported as %d", name, got)
		}
	}
	if RunMemoryLimit("py2", m) != m || ReportedMemory("py2", m) != m {
		t.Error("a refused language has headroom or baseline")
	}
}
