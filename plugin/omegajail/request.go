package omegajail

import "time"

// Mode says what omegajail is asked to do: compile sources or run a
// compiled target.
type Mode int

// Modes. The zero value is no mode; ParseArgs never returns it, since
// omegajail requires exactly one of --compile and --run.
const (
	ModeNone Mode = iota
	ModeCompile
	ModeRun
)

// String returns "compile", "run" or "none".
func (m Mode) String() string {
	switch m {
	case ModeCompile:
		return "compile"
	case ModeRun:
		return "run"
	}
	return "none"
}

// Defaults omegajail applies to flags that are not given (clap
// default_value in src/args.rs).
const (
	DefaultRoot            = "."
	DefaultTarget          = "Main"
	DefaultExtraWallTimeMs = 1000
	DefaultCgroupPath      = "/system.slice/omegaup-runner.service/omegajail"
)

// Bind is one --bind SOURCE:TARGET: a host path mounted read-only at
// TARGET inside the jail (omegaUp's libinteractive pipes).
type Bind struct {
	Source string // host path, as given
	Target string // path inside the jail, e.g. "/home/Main_pipes"; never empty
}

// Request is one omegajail invocation, every flag as parsed. Paths are
// kept as given: omegajail resolves them against its own working
// directory, and so must the wiring.
type Request struct {
	// Mode is ModeCompile (--compile) or ModeRun (--run).
	Mode Mode
	// Language is the omegaUp language name given to --compile or --run,
	// e.g. "cpp17-gcc" (one of Languages()). LanguageID maps it to
	// podjail's.
	Language string

	// Root is --root, omegajail's install directory (default "."). The
	// Runner also reads <Root>/root/dev/null as an empty input.
	Root string
	// Homedir is --homedir (required): mounted at /home inside the jail
	// and the program's working directory.
	Homedir string
	// HomedirWritable is --homedir-writable: /home is read-write (the
	// Runner sets it for compiles). Zero value: read-only.
	HomedirWritable bool

	// CompileSources are the --compile-source values in order, relative
	// to Homedir as the Runner passes them. Required with --compile.
	CompileSources []string
	// CompileTarget is --compile-target (default "Main"): the artefact
	// name the compiler writes in Homedir.
	CompileTarget string
	// RunTarget is --run-target (default "Main"): the artefact to run.
	RunTarget string

	// Stdin is -0/--stdin, a file. Zero value: not given (omegajail then
	// uses its root's dev/null unless its own stdin is a terminal).
	Stdin string
	// Stdout is -1/--stdout, created or truncated. Zero value: not given.
	Stdout string
	// Stderr is -2/--stderr, truncated, then appended to by the program
	// and omegajail's own log. Zero value: not given.
	Stderr string
	// Meta is -M/--meta, the .meta file written at the end. Zero value:
	// not given, no .meta is written.
	Meta string

	// TimeLimitMs is -t/--time-limit in milliseconds of processor time.
	// Nil: no processor time limit.
	TimeLimitMs *uint64
	// ExtraWallTimeMs is -w/--extra-wall-time-limit (default 1000): wall
	// time allowed on top of TimeLimitMs.
	ExtraWallTimeMs uint64
	// OutputLimit is -O/--output-limit in bytes (RLIMIT_FSIZE). Nil: no
	// limit.
	OutputLimit *uint64
	// MemoryLimit is -m/--memory-limit in bytes. Nil: no limit.
	MemoryLimit *uint64

	// CgroupPath is --cgroup-path (default DefaultCgroupPath). podjail
	// makes its own cgroups and ignores it.
	CgroupPath string
	// DisableSandboxing is --disable-sandboxing. podjail always
	// containerizes and ignores it.
	DisableSandboxing bool
	// AllowSigsysFallback is --allow-sigsys-fallback, an old-kernel
	// switch of omegajail's syscall detector; ignored.
	AllowSigsysFallback bool
	// Binds are the --bind values in order.
	Binds []Bind

	// ExtraArgs are the arguments after "--" (or after the first
	// positional argument): appended to the compiler's or the program's
	// argv. Nil when there are none.
	ExtraArgs []string
}

// CPUTimeLimit is the processor time at which omegajail stops the
// program: RLIMIT_CPU's soft limit, -t rounded up to whole seconds
// (src/jail/child.rs), where SIGXCPU comes. 0 without -t (or -t 0).
// Between -t and it a program ends as it would have: omegajail does not
// compare the time with -t, nor does the Runner.
func (r Request) CPUTimeLimit() time.Duration {
	if r.TimeLimitMs == nil || *r.TimeLimitMs == 0 {
		return 0
	}
	return time.Duration((*r.TimeLimitMs+999)/1000) * time.Second
}

// WallTimeLimit is the wall-clock limit omegajail derives: TimeLimitMs +
// ExtraWallTimeMs, or ExtraWallTimeMs alone without -t
// (src/jail/options.rs). On reaching it omegajail kills the program and
// reports signal:SIGXCPU.
func (r Request) WallTimeLimit() time.Duration {
	ms := r.ExtraWallTimeMs
	if r.TimeLimitMs != nil {
		ms += *r.TimeLimitMs
	}
	return time.Duration(ms) * time.Millisecond
}
