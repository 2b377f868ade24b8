package problem

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/podjail/podjail/plugin/compare"
)

const problemYAML = "problem.yaml"

// plainFields are the fields of a plain-layout problem.yaml; any other
// top-level field is an error (catches typos).
var plainFields = []string{
	"name", "time_limit", "memory_limit", "output_limit",
	"comparator", "checker", "interactor", "interactive",
}

// programFields are the fields of checker and interactor.
var programFields = []string{"source", "lang"}

// plain loads the plain layout.
func (l *loader) plain() (*Problem, error) {
	const file = problemYAML
	root, err := l.readYAML(file, "every problem needs a problem.yaml with at least name and time_limit")
	if err != nil {
		return nil, err
	}
	f, err := fields(file, "", root, plainFields)
	if err != nil {
		return nil, err
	}
	p := &Problem{Format: FormatPlain, MemoryBytes: DefaultMemoryBytes, OutputBytes: DefaultOutputBytes}

	if n, ok := f["name"]; ok {
		if p.Name, err = str(file, "name", n); err != nil {
			return nil, err
		}
	}
	if p.Name == "" {
		return nil, errf(file, "name", "missing: add a line such as `name: A plus B`")
	}
	n, ok := f["time_limit"]
	if !ok {
		return nil, errf(file, "time_limit", "missing: add the time limit per test in seconds, e.g. `time_limit: 1`")
	}
	tl, err := seconds(file, "time_limit", n)
	if err != nil {
		return nil, err
	}
	p.TimeLimit = time.Duration(tl)
	if n, ok := f["memory_limit"]; ok {
		if p.MemoryBytes, err = size(file, "memory_limit", n); err != nil {
			return nil, err
		}
		if p.MemoryBytes < MinMemoryBytes {
			return nil, errf(file, "memory_limit", "must be at least 6M (the smallest limit Podman accepts), got %q", n.Value)
		}
	}
	if n, ok := f["output_limit"]; ok {
		if p.OutputBytes, err = size(file, "output_limit", n); err != nil {
			return nil, err
		}
	}
	interactive := false
	if n, ok := f["interactive"]; ok {
		if interactive, err = boolean(file, "interactive", n); err != nil {
			return nil, err
		}
	}
	if p.Checker, err = l.plainProgram(f, "checker"); err != nil {
		return nil, err
	}
	if p.Interactor, err = l.plainProgram(f, "interactor"); err != nil {
		return nil, err
	}
	n, hasCmp := f["comparator"]
	if hasCmp {
		if p.Comparator, err = str(file, "comparator", n); err != nil {
			return nil, err
		}
		if err := checkComparator(p.Comparator); err != nil {
			return nil, &Error{File: file, Field: "comparator", Err: err}
		}
	}
	switch {
	case p.Checker != nil && p.Interactor != nil:
		return nil, errf(file, "checker", "both a checker and an interactor are set: an interactor decides the verdict of an interactive problem by itself, remove the checker")
	case interactive && p.Interactor == nil:
		return nil, errf(file, "interactive", "is true but there is no interactor: add `interactor: {source: interactor/interactor.c, lang: c11}`")
	case p.Interactor != nil && !interactive:
		return nil, errf(file, "interactive", "an interactor is set but interactive is not true: add `interactive: true` (or remove the interactor)")
	case hasCmp && p.Checker != nil:
		return nil, errf(file, "comparator", "is not used when a checker decides the verdict: remove the comparator or the checker")
	case hasCmp && p.Interactor != nil:
		return nil, errf(file, "comparator", "is not used by interactive problems: remove it")
	case !hasCmp && p.Checker == nil && p.Interactor == nil:
		p.Comparator = DefaultComparator
	}

	if p.Tests, err = l.plainTests(); err != nil {
		return nil, err
	}
	return p, nil
}

// plainProgram reads the checker or interactor field (key), a mapping with
// source and lang or a bare source path. Without the field, a checker/ or
// interactor/ directory holding one source file is used.
func (l *loader) plainProgram(f map[string]*yaml.Node, key string) (*Program, error) {
	const file = problemYAML
	n, ok := f[key]
	if !ok {
		if !l.isDir(key) {
			return nil, nil
		}
		rel, err := l.onlySource(key)
		if err != nil {
			return nil, err
		}
		return l.program(file, key, filepath.ToSlash(rel), "")
	}
	var src, lang string
	var err error
	switch n.Kind {
	case yaml.ScalarNode:
		if src, err = str(file, key, n); err != nil {
			return nil, err
		}
	case yaml.MappingNode:
		pf, err := fields(file, key+".", n, programFields)
		if err != nil {
			return nil, err
		}
		if sn, ok := pf["source"]; ok {
			if src, err = str(file, key+".source", sn); err != nil {
				return nil, err
			}
		}
		if src == "" {
			return nil, errf(file, key+".source", "missing: give the source file relative to the problem directory, e.g. %s/%s.c", key, key)
		}
		if ln, ok := pf["lang"]; ok {
			if lang, err = str(file, key+".lang", ln); err != nil {
				return nil, err
			}
		}
	default:
		return nil, errf(file, key, "line %d: must be a mapping with source and lang", n.Line)
	}
	return l.program(file, key, src, lang)
}

// plainTests reads tests/NAME.in and tests/NAME.ans.
func (l *loader) plainTests() ([]Test, error) {
	const dir = "tests"
	if !l.isDir(dir) {
		return nil, errf(dir, "", "not found: put each test in tests/ as NAME.in with its answer NAME.ans")
	}
	if _, err := l.stat(dir); err != nil {
		return nil, fileErr(dir, err)
	}
	entries, err := os.ReadDir(filepath.Join(l.dir, dir))
	if err != nil {
		return nil, &Error{File: dir, Err: err}
	}
	found := map[string]*pair{}
	for _, e := range entries {
		name := e.Name()
		rel := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "."):
			continue
		case e.IsDir():
			return nil, errf(rel, "", "is a directory: the plain layout keeps every test directly in tests/")
		case strings.HasSuffix(name, ".in"):
			addFile(found, strings.TrimSuffix(name, ".in"), rel)
		case strings.HasSuffix(name, ".ans"):
			addFile(found, strings.TrimSuffix(name, ".ans"), rel)
		default:
			return nil, errf(rel, "", "is neither NAME.in nor NAME.ans: rename it (answers end in .ans) or move it out of tests/")
		}
	}
	if len(found) == 0 {
		return nil, errf(dir, "", "no tests: add NAME.in and NAME.ans pairs")
	}
	return l.tests(found, func(name string) bool { return strings.HasPrefix(name, "sample") })
}

// checkComparator checks a comparator spec as compare.Parse reads it, so
// that a typo fails at load time: the compare package owns the syntax and
// the semantics.
func checkComparator(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf(`is empty: use tokens, exact, case-insensitive or "float abs=1e-6 rel=1e-6"`)
	}
	_, err := compare.Parse(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "compare: "))
	}
	return nil
}
