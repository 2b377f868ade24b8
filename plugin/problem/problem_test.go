package problem

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// examples is the folder of example problems, from this package.
var examples = filepath.Join("..", "..", "examples", "problems")

// write creates files under dir: a key ending in "/" is a directory, a
// value starting with "->" makes a symlink to the rest.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(body, "->"); ok {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(body), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func names(p *Problem) []string {
	var out []string
	for _, tc := range p.Tests {
		out = append(out, tc.Name)
	}
	return out
}

func loadExample(t *testing.T, name string) (*Problem, string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(examples, name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	if p.Dir != dir {
		t.Errorf("Dir = %q, want %q", p.Dir, dir)
	}
	for _, tc := range p.Tests {
		for _, f := range []string{tc.Input, tc.Answer} {
			if !filepath.IsAbs(f) || !strings.HasPrefix(f, dir+string(filepath.Separator)) {
				t.Errorf("test %s: path %q is not absolute inside %s", tc.Name, f, dir)
			}
		}
	}
	return p, dir
}

func TestExampleAPlusB(t *testing.T) {
	p, dir := loadExample(t, "aplusb")
	if p.Name != "A plus B" || p.Format != FormatPlain || p.TimeLimit != time.Second ||
		p.MemoryBytes != 64<<20 || p.OutputBytes != DefaultOutputBytes {
		t.Errorf("got %+v", p)
	}
	if p.Comparator != "" || p.Interactor != nil || p.Interactive {
		t.Errorf("comparator %q, interactor %v, interactive %v; want a checker only", p.Comparator, p.Interactor, p.Interactive)
	}
	want := &Program{Source: filepath.Join(dir, "checker", "check.c"), Lang: "c11"}
	if !reflect.DeepEqual(p.Checker, want) {
		t.Errorf("Checker = %+v, want %+v", p.Checker, want)
	}
	if got := names(p); !reflect.DeepEqual(got, []string{"sample1", "1", "2", "3"}) {
		t.Errorf("tests %v", got)
	}
	first := p.Tests[0]
	if !first.Sample || first.Input != filepath.Join(dir, "tests", "sample1.in") || first.Answer != filepath.Join(dir, "tests", "sample1.ans") {
		t.Errorf("first test %+v", first)
	}
	if p.Tests[1].Sample {
		t.Errorf("test 1 marked as a sample")
	}
}

func TestExampleGuess(t *testing.T) {
	p, dir := loadExample(t, "guess")
	want := &Program{Source: filepath.Join(dir, "interactor", "interactor.c"), Lang: "c11"}
	if !p.Interactive || !reflect.DeepEqual(p.Interactor, want) || p.Checker != nil || p.Comparator != "" {
		t.Errorf("interactive %v, interactor %+v, checker %+v, comparator %q", p.Interactive, p.Interactor, p.Checker, p.Comparator)
	}
	if p.TimeLimit != time.Second || p.MemoryBytes != DefaultMemoryBytes {
		t.Errorf("limits %v %d", p.TimeLimit, p.MemoryBytes)
	}
	if got := names(p); !reflect.DeepEqual(got, []string{"1", "2", "3"}) {
		t.Errorf("tests %v", got)
	}
}

func TestExampleKattisHello(t *testing.T) {
	p, dir := loadExample(t, "kattis-hello")
	if p.Name != "Hello" || p.Format != FormatKattis || p.TimeLimit != time.Second ||
		p.MemoryBytes != KattisMemoryBytes || p.OutputBytes != KattisOutputBytes ||
		p.Comparator != "case-insensitive" || p.Checker != nil || p.Interactor != nil {
		t.Errorf("got %+v", p)
	}
	want := []Test{
		{Name: "sample/1", Input: filepath.Join(dir, "data/sample/1.in"), Answer: filepath.Join(dir, "data/sample/1.ans"), Sample: true},
		{Name: "secret/1", Input: filepath.Join(dir, "data/secret/1.in"), Answer: filepath.Join(dir, "data/secret/1.ans")},
	}
	if !reflect.DeepEqual(p.Tests, want) {
		t.Errorf("tests %+v", p.Tests)
	}
}

func TestPlainVariants(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"problem.yaml": "name: X\ntime_limit: 0.5\nmemory_limit: 512MiB\noutput_limit: 1k\ncomparator: float abs=1e-6 rel=1e-9\n",
		"tests/10.in":  "", "tests/10.ans": "", "tests/2.in": "", "tests/2.ans": "",
		"tests/1.in": "", "tests/1.ans": "", "tests/sample2.in": "", "tests/sample2.ans": "",
		"tests/sample10.in": "", "tests/sample10.ans": "", "tests/.gitkeep": "",
	})
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.TimeLimit != 500*time.Millisecond || p.MemoryBytes != 512<<20 || p.OutputBytes != 1024 ||
		p.Comparator != "float abs=1e-6 rel=1e-9" {
		t.Errorf("got %+v", p)
	}
	if got := names(p); !reflect.DeepEqual(got, []string{"sample2", "sample10", "1", "2", "10"}) {
		t.Errorf("tests %v", got)
	}

	// Defaults, and a checker found in checker/ without a problem.yaml field
	// (headers ignored, language from the extension).
	dir = t.TempDir()
	write(t, dir, map[string]string{
		"problem.yaml": "name: Y\ntime_limit: 2\n",
		"tests/a.in":   "1", "tests/a.ans": "1",
		"checker/check.cpp": "", "checker/testlib.h": "",
	})
	if p, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	want := &Program{Source: filepath.Join(dir, "checker", "check.cpp"), Lang: "cpp17"}
	if !reflect.DeepEqual(p.Checker, want) || p.Comparator != "" || p.MemoryBytes != DefaultMemoryBytes {
		t.Errorf("got %+v, checker %+v", p, p.Checker)
	}

	// No checker: the default comparator; a symlink inside the directory is
	// fine; the checker may be given as a bare path.
	dir = t.TempDir()
	write(t, dir, map[string]string{
		"problem.yaml": "name: Z\ntime_limit: 1\n",
		"tests/1.in":   "1", "tests/1.ans": "->1.in",
	})
	if p, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if p.Comparator != DefaultComparator || p.Checker != nil {
		t.Errorf("comparator %q, checker %+v", p.Comparator, p.Checker)
	}
}

func TestNaturalOrder(t *testing.T) {
	in := []string{"10", "b", "a10", "2", "a2", "1", "01", "a", "secret/group10/1", "secret/group2/10", "secret/group2/9", "x1y10", "x1y9"}
	want := []string{"1", "01", "2", "10", "a", "a2", "a10", "b", "secret/group2/9", "secret/group2/10", "secret/group10/1", "x1y9", "x1y10"}
	sort.Slice(in, func(i, j int) bool { return naturalLess(in[i], in[j]) })
	if !reflect.DeepEqual(in, want) {
		t.Errorf("got  %v\nwant %v", in, want)
	}
	for _, s := range want {
		if naturalLess(s, s) {
			t.Errorf("naturalLess(%q, %q) = true", s, s)
		}
	}
}

// brokenCase is a problem folder that must fail to load with an *Error
// about file and field whose message contains msg.
type brokenCase struct {
	name        string
	files       map[string]string
	file, field string
	msg         string
}

func runBroken(t *testing.T, cases []brokenCase) {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{}
			for k, v := range tc.files {
				files[k] = strings.ReplaceAll(v, "OUTSIDE", outside)
			}
			write(t, dir, files)
			p, err := Load(dir)
			if err == nil {
				t.Fatalf("loaded %+v, want an error", p)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%v (%T) is not an *Error", err, err)
			}
			if pe.File != tc.file || pe.Field != tc.field {
				t.Errorf("File %q Field %q, want %q %q (%v)", pe.File, pe.Field, tc.file, tc.field, err)
			}
			msg := err.Error()
			for _, part := range []string{tc.file, tc.field, tc.msg} {
				if !strings.Contains(msg, part) {
					t.Errorf("message %q lacks %q", msg, part)
				}
			}
		})
	}
}

const okYAML = "name: X\ntime_limit: 1\n"

var okTest = map[string]string{"tests/1.in": "1\n", "tests/1.ans": "1\n"}

// with returns okTest plus the given files.
func with(kv ...string) map[string]string {
	m := map[string]string{}
	for k, v := range okTest {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestBrokenPlain(t *testing.T) {
	y := "problem.yaml"
	runBroken(t, []brokenCase{
		{"missing problem.yaml", okTest, y, "", "not found"},
		{"yaml syntax", with(y, "name: X\ntime_limit: [1\n"), y, "", "invalid YAML: line"},
		{"not a mapping", with(y, "- a\n- b\n"), y, "", "mapping"},
		{"typo", with(y, okYAML+"memory_limt: 64M\n"), y, "memory_limt", `unknown field (line 3); did you mean "memory_limit"?`},
		{"duplicate", with(y, okYAML+"name: Y\n"), y, "name", "set twice (lines 1 and 3)"},
		{"no name", with(y, "time_limit: 1\n"), y, "name", "missing"},
		{"empty yaml", with(y, ""), y, "name", "missing"},
		{"no time limit", with(y, "name: X\n"), y, "time_limit", "missing"},
		{"time limit text", with(y, "name: X\ntime_limit: abc\n"), y, "time_limit", `must be a positive number of seconds, got "abc"`},
		{"time limit zero", with(y, "name: X\ntime_limit: 0\n"), y, "time_limit", "positive"},
		{"time limit negative", with(y, "name: X\ntime_limit: -1\n"), y, "time_limit", "positive"},
		{"time limit huge", with(y, "name: X\ntime_limit: 61\n"), y, "time_limit", "at most 60"},
		{"memory text", with(y, okYAML+"memory_limit: lots\n"), y, "memory_limit", `such as "256M"`},
		{"memory tiny", with(y, okYAML+"memory_limit: 1K\n"), y, "memory_limit", "at least 6M"},
		{"output zero", with(y, okYAML+"output_limit: 0\n"), y, "output_limit", "size"},
		{"comparator", with(y, okYAML+"comparator: tokns\n"), y, "comparator", `unknown comparator "tokns"`},
		{"float option", with(y, okYAML+"comparator: float eps=1\n"), y, "comparator", "abs=X"},
		{"interactive text", with(y, okYAML+"interactive: yes\n"), y, "interactive", "true or false"},
		{"no tests dir", map[string]string{y: okYAML}, "tests", "", "not found"},
		{"no tests", map[string]string{y: okYAML, "tests/": ""}, "tests", "", "no tests"},
		{"input without answer", map[string]string{y: okYAML, "tests/2.in": "", "tests/2.ans": "", "tests/10.in": "", "tests/3.in": ""},
			"tests/3.in", "", "has no answer file tests/3.ans"},
		{"answer without input", map[string]string{y: okYAML, "tests/1.ans": ""}, "tests/1.ans", "", "has no input file tests/1.in"},
		{"stray file", with(y, okYAML, "tests/1.out", ""), "tests/1.out", "", "neither NAME.in nor NAME.ans"},
		{"subdirectory", with(y, okYAML, "tests/g/", ""), "tests/g", "", "is a directory"},
		{"checker missing", with(y, okYAML+"checker: {source: checker/nope.c, lang: c11}\n"), y, "checker.source", "checker/nope.c does not exist"},
		{"checker no source", with(y, okYAML+"checker: {lang: c11}\n"), y, "checker.source", "missing"},
		{"checker field typo", with(y, okYAML+"checker: {src: c.c}\n"), y, "checker.src", `did you mean "source"?`},
		{"checker bad lang", with(y, okYAML+"checker: {source: c.x}\n", "c.x", ""), y, "checker.lang", "cannot be told"},
		{"checker dir empty", with(y, okYAML, "checker/README", ""), "checker", "", "no source file"},
		{"checker dir two", with(y, okYAML, "checker/a.c", "", "checker/b.py", ""), "checker", "", "more than one source file (a.c, b.py)"},
		{"dotdot", with(y, okYAML+"checker: {source: ../check.c, lang: c11}\n"), y, "checker.source", "outside the problem directory"},
		{"absolute", with(y, okYAML+"checker: {source: /etc/passwd, lang: c11}\n"), y, "checker.source", "absolute path"},
		{"symlink test outside", with(y, okYAML, "tests/1.ans", "->OUTSIDE"), "tests/1.ans", "", "outside the problem directory"},
		{"symlink checker outside", with(y, okYAML+"checker: {source: c.c, lang: c11}\n", "c.c", "->OUTSIDE"), "c.c", "", "outside the problem directory"},
		{"broken symlink", with(y, okYAML, "tests/1.ans", "->nowhere"), "tests/1.ans", "", "broken symlink"},
		{"interactive without interactor", with(y, okYAML+"interactive: true\n"), y, "interactive", "no interactor"},
		{"interactor not interactive", with(y, okYAML+"interactor: {source: i.c}\n", "i.c", ""), y, "interactive", "add `interactive: true`"},
		{"checker and interactor", with(y, okYAML+"interactive: true\nchecker: c.c\ninteractor: i.c\n", "c.c", "", "i.c", ""), y, "checker", "both a checker and an interactor"},
		{"comparator and checker", with(y, okYAML+"comparator: exact\nchecker: c.c\n", "c.c", ""), y, "comparator", "not used when a checker"},
		{"both layouts", with(y, okYAML, "data/secret/1.in", ""), "", "", "both tests/"},
	})
}

func TestErrorFormat(t *testing.T) {
	e := errf("problem.yaml", "time_limit", "must be a positive number of seconds, got %q", "abc")
	if got, want := e.Error(), `problem.yaml: time_limit: must be a positive number of seconds, got "abc"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(e, ErrInvalid) {
		t.Error("not ErrInvalid")
	}
	_, err := Load(filepath.Join(t.TempDir(), "nope"))
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
	dir := t.TempDir()
	write(t, dir, okTest)
	if _, err := Load(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing problem.yaml does not match fs.ErrNotExist: %v", err)
	}
}
