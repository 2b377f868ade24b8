package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLoad holds that Load, on any folder the fuzz input describes (plain
// or Kattis, symlinks included), never panics nor reads without bound;
// that what it refuses is an *Error matching ErrInvalid with a message;
// and that what it accepts is a problem podjail can judge: limits within
// range, tests non-empty with samples first, every file it names and
// every YAML file it read a regular file inside the folder.
//
// The input is NUL-separated entries "PATH\nCONTENT" (at most 16, 16 KiB
// in all): a PATH ending in "/" is a directory, CONTENT "->TARGET" a
// symlink. A TARGET starting with "/" points into a folder beside the
// problem holding problem.yaml-like text and a link to /dev/zero, which a
// loader that follows links out of the folder would read for ever.
func FuzzLoad(f *testing.F) {
	f.Add("problem.yaml\nname: A plus B\ntime_limit: 1\nmemory_limit: 64M\n\x00tests/1.in\n1 2\n\x00tests/1.ans\n3\n\x00tests/sample1.in\n\x00tests/sample1.ans\n")
	f.Add("problem.yaml\nname: x\ntime_limit: 0.5\ncomparator: float abs=1e-6\nchecker: {source: check.cpp}\n\x00check.cpp\nint main(){}\n\x00tests/2.in\n\x00tests/2.ans\n\x00tests/10.in\n\x00tests/10.ans\n")
	f.Add("problem.yaml\nname: i\ntime_limit: 2\ninteractive: true\n\x00interactor/x.py\n#!/usr/bin/python3\n\x00tests/1.in\n->../in\n\x00in\nx\n\x00tests/1.ans\n")
	f.Add("problem.yaml\nname: Hello\nlimits: {time_limit: 1, memory: 128}\nvalidation: custom\n\x00.timelimit\n2\n\x00output_validators/v/v.cpp\n\x00data/sample/1.in\n\x00data/sample/1.ans\n\x00data/secret/g1/03.in\n\x00data/secret/g1/03.ans\n\x00data/secret/testdata.yaml\nrange: 0 100\n")
	f.Add("problem.yaml\nname: k\nvalidator_flags: float_tolerance 1e-6 case_sensitive\n\x00.timelimit\n->/secret\n\x00data/secret/1.in\n\x00data/secret/1.ans\n")
	f.Add("problem.yaml\n->/secret\n\x00tests/1.in\n\x00tests/1.ans\n")
	f.Add("problem.yaml\n->/zero\n")
	f.Add("problem.yaml\nname: z\n\x00data/testdata.yaml\n->/zero\n\x00.timelimit\n->/zero\n")
	f.Fuzz(func(t *testing.T, in string) {
		entries := strings.Split(in, "\x00")
		if len(entries) > 16 || len(in) > 16<<10 {
			return
		}
		root := t.TempDir()
		dir, outside := filepath.Join(root, "p"), filepath.Join(root, "outside")
		must(t, os.MkdirAll(dir, 0o755), os.MkdirAll(outside, 0o755),
			os.WriteFile(filepath.Join(outside, "secret"), []byte("name: s\ntime_limit: 1\n"), 0o644),
			os.Symlink("/dev/zero", filepath.Join(outside, "zero")))
		for _, e := range entries {
			name, body, _ := strings.Cut(e, "\n")
			makeEntry(t, root, dir, outside, name, body)
		}
		p, err := Load(dir)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Err == nil || pe.Err.Error() == "" {
				t.Fatalf("Load: %T %v, want an *Error with a message", err, err)
			}
			return
		}
		checkProblem(t, dir, p)
	})
}

func must(t *testing.T, errs ...error) {
	t.Helper()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// makeEntry makes one entry of FuzzLoad's input under dir; names and
// targets that would lead out of root are skipped.
func makeEntry(t *testing.T, root, dir, outside, name, body string) {
	clean := filepath.Clean(name)
	if len(name) > 128 || name == "" || filepath.IsAbs(name) || clean == "." || !within(dir, filepath.Join(dir, clean)) {
		return
	}
	p := filepath.Join(dir, clean)
	if strings.HasSuffix(name, "/") {
		_ = os.MkdirAll(p, 0o755)
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return // a file is in the way
	}
	target, link := strings.CutPrefix(strings.TrimSuffix(body, "\n"), "->")
	if !link {
		_ = os.WriteFile(p, []byte(body), 0o644)
		return
	}
	resolved := filepath.Join(filepath.Dir(p), target)
	if strings.HasPrefix(target, "/") {
		target = filepath.Join(outside, target)
		resolved = target
	}
	if !within(root, resolved) {
		return
	}
	_ = os.Symlink(target, p)
}

func checkProblem(t *testing.T, dir string, p *Problem) {
	t.Helper()
	bad := func(why string) { t.Fatalf("Load = %+v: %s", p, why) }
	switch {
	case p.TimeLimit <= 0 || p.TimeLimit > MaxTimeLimit || p.TimeLimit%time.Millisecond != 0:
		bad("time limit out of range")
	case p.MemoryBytes < MinMemoryBytes || p.OutputBytes <= 0:
		bad("memory or output limit out of range")
	case p.Checker != nil && p.Interactor != nil, p.Interactive != (p.Interactor != nil):
		bad("checker and interactor mixed up")
	case (p.Comparator == "") != (p.Checker != nil || p.Interactor != nil):
		bad("a comparator exactly when no program decides")
	case len(p.Tests) == 0:
		bad("no tests")
	}
	real, _ := filepath.EvalSymlinks(dir)
	inside := func(path string) {
		target, err := filepath.EvalSymlinks(path)
		fi, serr := os.Stat(target)
		if err != nil || serr != nil || !fi.Mode().IsRegular() || !within(real, target) {
			bad(path + " is not a regular file inside the problem")
		}
	}
	samples := true
	for _, tc := range p.Tests {
		inside(tc.Input)
		inside(tc.Answer)
		if tc.Sample && !samples {
			bad("a sample after other tests")
		}
		samples = tc.Sample
	}
	for _, prog := range []*Program{p.Checker, p.Interactor} {
		if prog != nil {
			inside(prog.Source)
		}
	}
	// The YAML files Load reads, when they exist.
	for _, rel := range []string{"problem.yaml", ".timelimit", "data/testdata.yaml"} {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil && (rel == "problem.yaml" || p.Format == FormatKattis) {
			inside(filepath.Join(dir, rel))
		}
	}
}
