package lang

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Paths inside the containers.
const (
	// BuildDir is the build container's working directory: the source is
	// written there as Source, Compile runs there, and the Artefacts are
	// copied out of it.
	BuildDir = "/build"
	// ArtefactDir is where a run container finds the artefacts, mounted
	// read-only.
	ArtefactDir = "/run/podjail/artefact"
)

// Build limits applied when a Language leaves them zero. 30 s of processor
// time is what contest judges commonly allow a compile; a static C++ build
// of a large submission can take several seconds.
const (
	DefaultBuildTimeLimit         = 30 * time.Second
	DefaultBuildMemoryBytes int64 = 512 << 20
)

// ErrUnknownLanguage is wrapped by the errors of Lookup and ForFile when no
// language matches.
var ErrUnknownLanguage = errors.New("unknown language")

// Language says how to build and run a submission in one language.
//
// A compiled language has a Compile command: the runner writes the source
// to BuildDir/Source in a container of BuildImage, runs Compile there, and
// copies the Artefacts out; run containers of RunImage get them read-only
// under ArtefactDir and execute Run.
//
// An interpreted language may still have a Compile command that only
// checks the source (python3 -m py_compile), so that a syntax error is a
// compile error rather than a runtime error; it then lists Source itself as
// its artefact. With Compile nil there is no build container at all and
// the source itself is the only artefact (Artefacts is nil or [Source];
// a Table's languages always have it set).
//
// Commands are exec'd directly, without a shell or a PATH search, so every
// argv[0] is an absolute path.
type Language struct {
	ID         string   // e.g. "c11", "cpp17", "python3"
	Aliases    []string // other names Lookup accepts, e.g. "c", "c++", "py"
	Name       string   // human name, e.g. "C11 (gcc)"
	Extensions []string // file extensions ForFile maps to this language, e.g. ".c"

	BuildImage string // image of the build container; needed when Compile is set
	RunImage   string // image of the run containers

	Source    string   // file name of the source in BuildDir, e.g. "main.c"
	Compile   []string // argv run in BuildDir; nil: nothing to build
	Artefacts []string // plain file names in BuildDir copied out after the build
	Run       []string // argv in the run container; artefacts are under ArtefactDir

	// ExtraTime is added to the problem's time limit, for a fixed start-up
	// cost (omegaUp gives Java 1 s). It does not scale a limit for a slow
	// language: that is the problem's business.
	ExtraTime time.Duration

	BuildTimeLimit   time.Duration // zero: DefaultBuildTimeLimit
	BuildMemoryBytes int64         // zero: DefaultBuildMemoryBytes

	// Env adds NAME=VALUE entries to the environment of the build and of
	// every run (which otherwise hold only PATH and HOME=/tmp). A runtime
	// that sizes itself from the host is told the run's size here (Go's
	// GOMAXPROCS=1: a run has one core). Nil: nothing added.
	Env []string

	// MemoryExitCode is the exit code by which the language's runtime says
	// it ran out of the memory it may use (a JVM with
	// -XX:+ExitOnOutOfMemoryError exits 3): such a run is MLE, not RTE. A
	// program that exits with that code itself is judged MLE too, which is
	// why only a runtime flag should give it. Zero: no such code.
	MemoryExitCode int

	// StackBytes is a run's stack limit (RLIMIT_STACK), at most the run's
	// memory limit. Zero: the memory limit, recursion as deep as memory
	// allows. For a runtime that touches its whole stack limit as it
	// starts (Ruby's reserve_stack), which would be charged all its memory.
	StackBytes int64

	// ArtefactHint is added to the compile error when the build succeeds
	// but makes no artefact (a Java class not named Main, or in a package).
	// Empty: the error names the missing file only.
	ArtefactHint string
}

// BuildLimits returns the build's time and memory limits, defaults applied.
func (l Language) BuildLimits() (time.Duration, int64) {
	t, m := l.BuildTimeLimit, l.BuildMemoryBytes
	if t == 0 {
		t = DefaultBuildTimeLimit
	}
	if m == 0 {
		m = DefaultBuildMemoryBytes
	}
	return t, m
}

// clone returns l with its slices copied, so that a caller cannot change a
// table through the Language it got.
func (l Language) clone() Language {
	l.Aliases = slices.Clone(l.Aliases)
	l.Extensions = slices.Clone(l.Extensions)
	l.Compile = slices.Clone(l.Compile)
	l.Artefacts = slices.Clone(l.Artefacts)
	l.Run = slices.Clone(l.Run)
	l.Env = slices.Clone(l.Env)
	return l
}

// nameRE is what an ID or alias may look like (after lowercasing).
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.+#-]{0,63}$`)

// Validate checks that l can be built and run: ID and aliases well formed
// and lowercase, images set, Source and Artefacts plain file names,
// Artefacts set when Compile is set, every argv[0] absolute, no negative
// durations or sizes. Errors name the field as spelled in a languages file.
func (l Language) Validate() error {
	if err := l.validate(); err != nil {
		return &idError{l.ID, err}
	}
	return nil
}

func (l Language) validate() error {
	if !nameRE.MatchString(l.ID) {
		return bad("id", "%q must be 1-64 lowercase letters, digits or _.+#- and start with a letter or digit", l.ID)
	}
	for _, a := range l.Aliases {
		if !nameRE.MatchString(a) {
			return bad("aliases", "%q must be 1-64 lowercase letters, digits or _.+#- and start with a letter or digit", a)
		}
	}
	for _, e := range l.Extensions {
		if len(e) < 2 || e[0] != '.' || strings.ContainsAny(e[1:], "./\\") || e != strings.ToLower(e) {
			return bad("extensions", "%q must be a lowercase extension with its dot, like \".c\"", e)
		}
	}
	if err := plainName(l.Source); err != nil {
		return bad("source", "%w", err)
	}
	if l.RunImage == "" {
		return bad("run_image", "not set")
	}
	if len(l.Run) == 0 {
		return bad("run", "not set")
	}
	if err := argv0(l.Run); err != nil {
		return bad("run", "%w", err)
	}
	if len(l.Compile) > 0 {
		if l.BuildImage == "" {
			return bad("build_image", "not set, and compile needs it")
		}
		if err := argv0(l.Compile); err != nil {
			return bad("compile", "%w", err)
		}
		if len(l.Artefacts) == 0 {
			return bad("artefacts", "not set, and compile needs them (list the files to copy out of %s)", BuildDir)
		}
	} else if len(l.Artefacts) > 0 && !slices.Equal(l.Artefacts, []string{l.Source}) {
		return bad("artefacts", "%q without compile: with nothing to build, the only artefact is the source %q", l.Artefacts, l.Source)
	}
	for i, a := range l.Artefacts {
		if err := plainName(a); err != nil {
			return bad("artefacts", "%w", err)
		}
		if slices.Contains(l.Artefacts[:i], a) {
			return bad("artefacts", "%q listed twice", a)
		}
	}
	for _, e := range l.Env {
		if name, _, ok := strings.Cut(e, "="); !ok || name == "" || strings.ContainsAny(e, "\x00\n") {
			return bad("env", "%q must be NAME=VALUE on one line", e)
		}
	}
	switch {
	case l.MemoryExitCode < 0 || l.MemoryExitCode > 255:
		return bad("memory_exit_code", "%d is not an exit code (1-255)", l.MemoryExitCode)
	case l.ExtraTime < 0:
		return bad("extra_time", "%v is negative", l.ExtraTime)
	case l.BuildTimeLimit < 0:
		return bad("build_time_limit", "%v is negative", l.BuildTimeLimit)
	case l.BuildMemoryBytes < 0:
		return bad("build_memory", "%d is negative", l.BuildMemoryBytes)
	case l.StackBytes < 0:
		return bad("stack", "%d is negative", l.StackBytes)
	}
	return nil
}

// fieldError is an error about one field of a Language, named as in a
// languages file.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

func bad(field, format string, args ...any) error {
	return &fieldError{field, fmt.Errorf(format, args...)}
}

// plainName refuses anything but a plain file name: no directories, no
// "." or "..", nothing a shell or Podman might read specially.
func plainName(s string) error {
	switch {
	case s == "":
		return errors.New("not set")
	case s == "." || s == "..":
		return fmt.Errorf("%q is not a file name", s)
	case strings.ContainsAny(s, "/\\\x00"):
		return fmt.Errorf("%q must be a plain file name, without slashes", s)
	case strings.ContainsAny(s, ":,\n\r") || s[0] == '-':
		return fmt.Errorf("%q: use letters, digits, dots, _ and - only", s)
	}
	return nil
}

// argv0 checks that a command's program is an absolute, clean path: the
// runner execs it directly, with no PATH search.
func argv0(argv []string) error {
	p := argv[0]
	if !path.IsAbs(p) || path.Clean(p) != p || p == "/" {
		return fmt.Errorf("argv[0] %q must be an absolute path like \"/usr/bin/gcc\" (commands are exec'd without a shell or PATH)", p)
	}
	return nil
}
