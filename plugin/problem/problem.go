// Package problem loads a problem folder and checks it before anything is
// judged: limits, tests, and the checker or interactor, so that a broken
// package fails at load time with a message naming the file and field to
// fix rather than halfway through judging.
//
// Two layouts are understood.
//
// The plain layout (Format "plain") is podjail's own:
//
//	problem.yaml          name, time_limit, memory_limit, output_limit,
//	                      comparator, checker, interactor, interactive
//	tests/NAME.in         one input per test
//	tests/NAME.ans        its answer (may be empty)
//	checker/ or interactor/   optional, one source file
//
// time_limit is seconds (1, 0.5; at most 60); sizes are bytes with an
// optional K, M or G suffix (binary multiples). checker and interactor are
// {source: PATH, lang: ID} or just PATH, the language then told from the
// extension (.c c11, .cpp/.cc/.cxx cpp17, .py python3); without the field a
// checker/ or interactor/ directory holding one source file is used. Unknown
// fields are errors. Tests whose NAME starts with "sample" are samples and
// come first; each part is in natural order (2 before 10).
//
// Its checker and interactor follow the testlib convention: a checker is run
// as `check input output answer` and exits 0 (accepted), 1 (wrong answer),
// 2 (presentation error) or 3 (checker failure); an interactor gets the test
// input path as argv[1], talks to the solution over stdin/stdout, and exits
// with the same codes.
//
// The Kattis layout (Format "kattis") is the Kattis problem package format
// (https://www.kattis.com/problem-package-format/), legacy and the
// versions since 2023-07: problem.yaml, data/sample/ and data/secret/
// (recursive, with their configuration files), and the output validator.
// Its validators follow the Kattis convention instead (validator.Kattis):
// run as `validator input answer feedback_dir/ [args] < output`, exit 42
// (accepted) or 43 (wrong answer), anything else is a validator failure.
// See kattis.go for how the default validator's flags map onto a
// comparator and what cannot be expressed.
//
// A folder with a data/ directory is read as a Kattis package, otherwise as
// the plain layout.
package problem

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podjail/podjail/plugin/validator"
)

// Formats of a Problem.
const (
	FormatPlain  = "plain"
	FormatKattis = "kattis"
)

// Limits and defaults.
const (
	// MaxTimeLimit is the largest time limit accepted.
	MaxTimeLimit = 60 * time.Second
	// DefaultMemoryBytes and DefaultOutputBytes apply to the plain layout
	// when problem.yaml does not set memory_limit or output_limit.
	DefaultMemoryBytes int64 = 256 << 20
	DefaultOutputBytes int64 = 64 << 20
	// KattisMemoryBytes and KattisOutputBytes apply to Kattis packages
	// without limits.memory or limits.output: the "typical system default"
	// of the Kattis specification (2048 MiB and 8 MiB).
	KattisMemoryBytes int64 = 2048 << 20
	KattisOutputBytes int64 = 8 << 20
	// MaxPasses bounds a multi-pass problem's passes: each is a run
	// (two, interactive) in a fresh container.
	MaxPasses = 100
	// MinMemoryBytes is the smallest memory limit accepted: Podman refuses
	// memory limits under 6 MB.
	MinMemoryBytes int64 = 6 << 20
	// DefaultComparator compares whitespace-separated tokens exactly.
	DefaultComparator = "tokens"
)

// Program is a checker or interactor: one source file and its language.
type Program struct {
	Source string // absolute path inside the problem directory
	Lang   string // language id such as "c11", "cpp17", "python3"
	// Extra are the other files the source builds with (a validator's
	// headers), absolute paths in Source's directory; nil: none.
	Extra []string
	// Name is the program's name in its package (its file's or its
	// directory's); "" for a checker or interactor.
	Name string
	// Unusable says why podjail cannot run this program (an input
	// validator in a form it does not build); "" when it can.
	Unusable string
}

// Test is one test case.
type Test struct {
	Name   string // "1", "sample1" (plain); "sample/1", "secret/group1/03" (kattis)
	Input  string // absolute path of the .in file
	Answer string // absolute path of the .ans file (may be an empty file)
	Sample bool   // plain: NAME starts with "sample"; kattis: under data/sample/
	// ValidatorArgs follow the validator's own arguments on this test
	// (Kattis: validator_flags, then the groups' and the test's). Nil: none.
	ValidatorArgs []string
	// InputValidatorArgs are the input validators' arguments on this
	// test (Kattis: input_validator_flags, input_validator_args), by
	// validator name, "" for every validator. Nil: none.
	InputValidatorArgs map[string][]string
	// Comparator, when set, is this test's built-in comparison in place
	// of the problem's (a Kattis group's flags for the default
	// validator). "": the problem's.
	Comparator string
}

// Problem is a loaded, checked problem.
type Problem struct {
	Dir    string // absolute path of the problem directory
	Name   string
	Format string // FormatPlain or FormatKattis

	TimeLimit   time.Duration // per test, wall clock or CPU as the judge decides
	MemoryBytes int64
	OutputBytes int64

	// Comparator is the textual spec of the built-in comparison
	// ("tokens", "exact", "case-insensitive", "float abs=1e-6 rel=1e-6").
	// It is "" when a Checker or an Interactor decides instead.
	Comparator string

	// Checker and Interactor are nil when absent; at most one is set. Their
	// calling convention follows Format (see the package comment).
	Checker    *Program
	Interactor *Program
	// Interactive is true exactly when Interactor is set.
	Interactive bool
	// InputValidators check every test's input (Kattis: input_validators/,
	// run as `validator [args] < input`, exit 42 when it is valid); judging
	// does not run them (podjail verify does). Nil: none.
	InputValidators []Program
	// Protocol is how the Checker or Interactor is called and answers:
	// validator.Testlib (plain), validator.Kattis (kattis), set by Load.
	// Zero value: validator.Testlib (see Validator).
	Protocol validator.Protocol

	// Passes is how many times a multi-pass problem's submission may run
	// on one test, each pass's input written by the validator of the pass
	// before (Kattis: validation_passes, 2 unless set). Zero value: one
	// pass, no next input read.
	Passes int

	// Timing says how a Kattis package's time limit relates to its
	// submissions' times; zero for the plain layout.
	Timing Timing

	// Languages names, by source file extension (".c"), the language a
	// submission is judged in when none is asked for, where the format's
	// judges differ from podjail's table: Kattis and DOMjudge compile C as
	// GNU C (".c": "gnu11"). Nil: the table's own.
	Languages map[string]string

	// FirstRejectionDecides makes a submission's verdict its first
	// rejected test's, in the tests' order, as Kattis and DOMjudge report
	// it (set for Kattis packages). Zero value: its worst test's.
	// Failures of the judge's or the problem's (IE, CF) decide either way.
	FirstRejectionDecides bool

	// Tests: samples first, then the others, each part in natural order
	// (2 before 10); never empty.
	Tests []Test
}

// Timing is the Kattis format's time multipliers: a time limit is at
// least ACToTimeLimit times the slowest accepted submission's time, a
// multiple of Resolution (seconds), and a time-limit-exceeded submission
// still exceeds it TimeLimitToTLE times over. Load fills in the version's
// defaults (legacy: 5 and 2; since 2023-07: 2 and 1.5; resolution 1).
type Timing struct {
	ACToTimeLimit  float64
	TimeLimitToTLE float64
	Resolution     float64
}

// Validator is p's Protocol, validator.Testlib when unset.
func (p *Problem) Validator() validator.Protocol {
	if p.Protocol == nil {
		return validator.Testlib
	}
	return p.Protocol
}

// ErrInvalid is matched by every error Load returns:
// errors.Is(err, ErrInvalid).
var ErrInvalid = errors.New("invalid problem")

// Error is a problem with a problem folder. File is relative to the problem
// directory ("" for the directory itself); Field is the problem.yaml field,
// dotted for nested ones ("checker.source"), or "" when the error is not
// about a field.
type Error struct {
	File  string
	Field string
	Err   error
}

// Error reads like `problem.yaml: time_limit: must be a positive number of
// seconds, got "abc"`.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(filepath.ToSlash(e.File))
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString(ErrInvalid.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error (for example one matching
// fs.ErrNotExist).
func (e *Error) Unwrap() error { return e.Err }

// Is makes every *Error match ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// errf builds an *Error; %w in format wraps as fmt.Errorf does.
func errf(file, field, format string, args ...any) *Error {
	return &Error{File: file, Field: field, Err: fmt.Errorf(format, args...)}
}

// loader holds what both layouts need while loading.
type loader struct {
	dir     string // absolute problem directory
	real    string // dir with symlinks resolved, for containment checks
	untimed bool   // a Kattis package may leave its time limit to be derived
}

// Load reads the problem folder dir, checks it and returns the problem.
// Every error it returns is an *Error matching ErrInvalid; it stops at the
// first problem found.
func Load(dir string) (*Problem, error) { return load(dir, false) }

// LoadUntimed is Load for a tool that derives a time limit from a Kattis
// package's submissions (podjail verify): a package that gives none loads
// with TimeLimit 0, its Timing saying how to derive it.
func LoadUntimed(dir string) (*Problem, error) { return load(dir, true) }

func load(dir string, untimed bool) (*Problem, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Err: fmt.Errorf("problem directory %q: %w", dir, err)}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, &Error{Err: fmt.Errorf("problem directory %s: %w", abs, err)}
	}
	if !fi.IsDir() {
		return nil, &Error{Err: fmt.Errorf("%s is not a directory: pass the problem folder", abs)}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, &Error{Err: fmt.Errorf("problem directory %s: %w", abs, err)}
	}
	l := &loader{dir: abs, real: real, untimed: untimed}

	hasData, hasTests := l.isDir("data"), l.isDir("tests")
	var p *Problem
	switch {
	case hasData && hasTests:
		return nil, errf("", "", "both tests/ (plain layout) and data/ (Kattis layout) exist: keep one of them")
	case hasData:
		p, err = l.kattis()
	default:
		p, err = l.plain()
	}
	if err != nil {
		return nil, err
	}
	p.Dir = abs
	p.Interactive = p.Interactor != nil
	if p.Protocol = validator.Testlib; p.Format == FormatKattis {
		p.Protocol = validator.Kattis
	}
	return p, nil
}

// isDir reports whether rel is a directory (following symlinks).
func (l *loader) isDir(rel string) bool {
	fi, err := os.Stat(filepath.Join(l.dir, rel))
	return err == nil && fi.IsDir()
}

// langOf maps a source file extension to a language id, "" if unknown.
func langOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".c":
		return "c11"
	case ".cpp", ".cc", ".cxx", ".c++":
		return "cpp17"
	case ".py":
		return "python3"
	}
	return ""
}

// timeLimit converts seconds into a Duration rounded to the millisecond and
// checks it is within (0, MaxTimeLimit].
func timeLimit(file, field string, secs float64, raw string) (time.Duration, error) {
	if !(secs > 0) || secs > 1e9 { // also rejects NaN
		return 0, errf(file, field, "must be a positive number of seconds, got %q", raw)
	}
	d := time.Duration(secs*1000+0.5) * time.Millisecond
	if d <= 0 {
		return 0, errf(file, field, "must be at least 0.001 seconds, got %q", raw)
	}
	if d > MaxTimeLimit {
		return 0, errf(file, field, "must be at most %d seconds, got %q", int(MaxTimeLimit/time.Second), raw)
	}
	return d, nil
}
