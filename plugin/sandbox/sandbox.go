package sandbox

import (
	"context"
	"io"
	"time"

	"github.com/podjail/podjail/plugin/killed"
	"github.com/podjail/podjail/plugin/verdict"
)

// Sandbox is what a judge gets from Open: podjail's engine in the plugin
// process, reached over gRPC. It is safe for concurrent use.
//
// What happens to a submission (a failed build, a crash, a limit, a
// verdict) is a value in the results. Failures of the infrastructure are
// errors matching one of ErrUnavailable, ErrFailedPrecondition,
// ErrInvalidArgument, ErrPermissionDenied, ErrResourceExhausted or
// ErrInternal (errors.Is), or context.Canceled and
// context.DeadlineExceeded when ctx ended.
type Sandbox interface {
	// Capabilities describes the plugin and its host. It asks Podman, so
	// it doubles as a health check.
	Capabilities(ctx context.Context) (Capabilities, error)
	// Compile builds source for a language (an ID or alias of
	// Capabilities' languages) in a fresh container. The artefacts stay
	// in the plugin under the returned handle until Release or the
	// plugin's exit; a failed build has no handle.
	Compile(ctx context.Context, language string, source []byte) (Compiled, error)
	// Run runs a handle's artefacts once in a fresh container.
	Run(ctx context.Context, req RunRequest) (RunResult, error)
	// Release deletes a handle's artefacts.
	Release(ctx context.Context, handle string) error
	// Judge builds source and runs it on every test of the problem
	// package req.ProblemDir (a directory on the plugin's host). progress,
	// if not nil, is called with each test as soon as it is judged, in
	// order, before Judge returns; the result also lists them.
	Judge(ctx context.Context, req JudgeRequest, progress func(TestResult)) (JudgeResult, error)
	// Exec runs req.Command of req.Image (an image in the plugin's Podman
	// storage) once in a fresh container, as `podjail run` does, writing
	// the program's stdout to stdout (nil: discarded) as it comes.
	Exec(ctx context.Context, req ExecRequest, stdout io.Writer) (ExecResult, error)
}

// Verdict is the judgement of one test or one job: the type of the leaf
// package plugin/verdict, aliased so that a judge's code written against
// sandbox.Verdict keeps compiling (this package is a public client API).
type Verdict = verdict.Verdict

// Verdicts. IE and CF are never the submission's fault.
const (
	AC  = verdict.AC  // accepted
	WA  = verdict.WA  // wrong answer
	PE  = verdict.PE  // presentation error (a checker says so)
	PA  = verdict.PA  // partially accepted (a checker gives points)
	TLE = verdict.TLE // time limit exceeded (which deadline in the note)
	MLE = verdict.MLE // memory limit exceeded
	OLE = verdict.OLE // output limit exceeded
	RTE = verdict.RTE // runtime error: non-zero exit code or a signal
	RFE = verdict.RFE // restricted function
	CE  = verdict.CE  // compilation error
	IE  = verdict.IE  // internal error: the run never started, the runtime or host failed
	CF  = verdict.CF  // checker (or interactor) failed or hit a limit
)

// Reasons a run was stopped (RunResult.Killed); the texts are package
// killed's, which the mechanism's KillReason writes.
const (
	KilledOutputLimit = killed.OutputLimit
	KilledWallLimit   = killed.WallLimit
	KilledTimeLimit   = killed.CPULimit
	KilledIdle        = killed.Idle
)

// Capabilities describes a plugin and its host.
type Capabilities struct {
	// Version is podjail's version (the plugin binary's).
	Version string
	// ProtocolVersion is the go-plugin protocol version (Handshake's).
	ProtocolVersion int
	Languages       []Language
	Host            Host
}

// Language is one entry of the plugin's language table.
type Language struct {
	ID         string // what Compile and Judge take, e.g. "c11"
	Name       string // e.g. "C11 (gcc)"
	Aliases    []string
	Extensions []string
	// Compiled says the language has a build step in a container.
	Compiled bool
}

// Host is what the plugin found of its host.
type Host struct {
	Rootless      bool   // the Podman service runs rootless
	CgroupManager string // "systemd" or "cgroupfs"
	// Shim says runs are measured by podjail-shim; Judge needs it.
	Shim          bool
	PodmanVersion string
}

// Build is the outcome of a build step. A failed build is a value (CE).
type Build struct {
	OK bool
	// Output is the compiler's stdout and stderr, at most 64 KiB.
	Output string
	// Note says why the build failed, when it did.
	Note string
	Time time.Duration
	// Peak is the build's peak memory in bytes; -1 if unknown.
	Peak int64
}

// Compiled is a build and the handle of its artefacts.
type Compiled struct {
	Build
	// Handle names the artefacts in the plugin; empty when !OK.
	Handle string
}

// Limits of one run. Zero values take podjail's defaults.
type Limits struct {
	// Time stops the run once it has used this much processor time, read
	// on its parent cgroup, which also counts the container's own work
	// (tens to hundreds of milliseconds): give slack, and compare
	// RunResult.Time with your own limit (Judge stops at limit + 2 s).
	// Zero: no limit.
	Time time.Duration
	// Memory is the memory limit in bytes (no swap). Zero: 256 MiB.
	Memory int64
	// Output caps stdout in bytes; past it the run is stopped. Zero: 64 MiB.
	Output int64
	// Wall stops the run after this much elapsed time. Zero: no limit.
	Wall time.Duration
}

// RunRequest runs a handle's artefacts once.
type RunRequest struct {
	Handle string
	// Input is the program's stdin; InputPath names a file on the
	// plugin's host instead (for large inputs; it must be readable by the
	// Podman service). At most one is set; neither: empty stdin.
	Input     []byte
	InputPath string
	Limits    Limits
}

// RunResult says how a program ended. It is a value: a program that
// crashed or was stopped still produced a result.
type RunResult struct {
	// ExitCode is the program's exit code; 128+N when signal N ended it.
	ExitCode int32
	// Signal names the signal that ended the program ("SIGKILL"), if any.
	Signal string
	// Killed says podjail stopped the run (one of the Killed* reasons);
	// KilledNote gives the figures.
	Killed     string
	KilledNote string
	// Time is the processor time charged to the program.
	Time time.Duration
	// Peak is the program's peak memory in bytes; -1 if unknown.
	Peak int64
	// MemoryExceeded says the memory limit was hit (MLE).
	MemoryExceeded bool
	// Output is the start of stdout, at most MaxOutput bytes;
	// OutputTruncated says OutputBytes were more.
	Output          []byte
	OutputBytes     int64
	OutputTruncated bool
	// How Time, Peak and MemoryExceeded were decided.
	TimeFrom, PeakFrom, MemoryFrom string
	// Wall is the container's elapsed time.
	Wall time.Duration
}

// JudgeRequest is one submission to judge against one problem.
type JudgeRequest struct {
	// ProblemDir is a problem package on the plugin's host (the plain
	// layout or a Kattis package).
	ProblemDir string
	// Language is an ID or alias of Capabilities' languages.
	Language string
	Source   []byte
	// StopOnFirstFailure stops after the first test that is not AC.
	StopOnFirstFailure bool
	// Parallel is how many tests run at once, each on a core of its own.
	// Zero: one per core the plugin may use; 1: one after the other.
	Parallel int
	// RetryIE judges a test that ended IE once more on a fresh container
	// before the judge stops on it. Zero value: it stops at once.
	RetryIE bool
}

// TestResult is the judgement of one test.
type TestResult struct {
	// Index is 1-based, in the order the tests ran; Total is the
	// problem's number of tests.
	Index, Total int
	Name         string
	Sample       bool
	Verdict      Verdict
	Note         string
	Time         time.Duration
	// Peak is the program's peak memory in bytes; -1 if unknown.
	Peak int64
	// Points are a checker's partial points (PA), 0 otherwise.
	Points float64
}

// JudgeResult is the judgement of a submission.
type JudgeResult struct {
	// Verdict is the worst test's, or CE, or IE/CF.
	Verdict Verdict
	Note    string
	Build   Build
	// Checker is the checker's or interactor's build, nil without one.
	Checker *Build
	Tests   []TestResult
}

// MaxOutput is how much of a run's stdout RunResult.Output holds.
const MaxOutput = 16 << 20

// MaxMessage is the largest gRPC message the client and the plugin's
// server accept (go-plugin's gRPC default is 4 MiB): sources and Input
// must stay under it, with room to spare.
const MaxMessage = 64 << 20

// ExecRequest runs a command of an image once: podjail run's request. A
// service takes only the images of its language table and its --image
// list.
type ExecRequest struct {
	// Image is an image in the plugin's Podman storage.
	Image string
	// Command is the program and its arguments; it must not be empty.
	Command []string
	// InputPath is the program's stdin, a file on the plugin's host read
	// with its rights. Zero value: empty stdin.
	InputPath string
	// Limits: Time is the processor time limit L, watched with podjail's
	// three deadlines, and gives the result a Verdict; zero: no verdict.
	Limits Limits
	// Pids is the maximum number of tasks. Zero: 64.
	Pids int64
	// CPUs is the CPU quota in cores. Zero: 1.
	CPUs float64
	// CPULimit stops the run at this much processor time. Zero: from
	// Limits.Time (L + 2 s), or none.
	CPULimit time.Duration
	// FileSize is the largest file the program may write (RLIMIT_FSIZE).
	// Zero: the size of its scratch space.
	FileSize int64
	// Stack is the program's stack limit (RLIMIT_STACK). Zero: the memory
	// limit.
	Stack int64
	// MemoryExitCode is the exit code by which the program's runtime says
	// it ran out of memory; with Limits.Time, such an exit is MLE. Zero:
	// none.
	MemoryExitCode int

	// Binds are directories of the plugin's host mounted into the
	// container, used with the plugin's rights (as InputPath is). Zero
	// value: none.
	Binds []Bind
	// WorkDir is the program's working directory. Zero value: the image's.
	WorkDir string
	// Env adds NAME=VALUE entries to the shim's clean environment. Zero
	// value: nothing added.
	Env []string

	// Stdin, when not nil, is the program's stdin, read by the caller's
	// side and sent to the plugin (InputPath must then be empty): fed as
	// it comes, or, with StdinWhole, all of it before the program starts
	// (a file: the plugin can have the run armed ahead). Zero value:
	// InputPath, or empty stdin.
	Stdin      io.Reader
	StdinWhole bool
	// The program's stderr goes nowhere (zero values), to its stdout
	// (StderrToStdout), is appended to StderrPath, an existing file of
	// the plugin's host, or is written to Stderr on the caller's side once
	// the program ended (the plugin keeps it meanwhile); bounded like every
	// file by FileSize. One of the three at most.
	StderrToStdout bool
	StderrPath     string
	Stderr         io.Writer

	// Files are written into WorkDir, each under its name (a plain file
	// name), just before the program starts (a compile's sources); its
	// stdin is then empty. Collect names files of WorkDir given back in
	// ExecResult.Files once the program ended (a compile's artefacts).
	// Both need WorkDir; at most MaxFiles each. Zero values: none.
	Files   map[string][]byte
	Collect []string
	// Writable makes the container's root writable and keeps the image's
	// resource limits, as a compiler needs. Zero value: a read-only root
	// and podjail's limits.
	Writable bool
	// Tasks is the rule for the new tasks the program may make:
	// "threads" (fork, vfork and clone without CLONE_THREAD kill it with
	// SIGSYS, judged RFE) or "none" (no thread either); see
	// runner.RunRequest.Tasks. Zero value: any.
	Tasks string
}

// MaxFiles is how many files an Exec may put in, and how many it may
// collect.
const MaxFiles = 64

// Bind mounts a directory of the plugin's host into the container.
type Bind struct {
	// Source is the absolute host path; Destination the path in the
	// container.
	Source, Destination string
	// Writable mounts it read-write. Zero value: read-only.
	Writable bool
}

// ExecResult says how an Exec ended. Run.Output is empty: stdout went to
// Exec's writer.
type ExecResult struct {
	Run RunResult
	// Verdict and VerdictNote judge the run against Limits.Time and the
	// other limits (the output is not judged). Empty without Limits.Time.
	Verdict     Verdict
	VerdictNote string
	// Container is the container's name (it is removed).
	Container string
	// Report is the whole report as `podjail run --json` prints it (JSON).
	Report []byte
	// Files are the files of ExecRequest.Collect the program made, by
	// name. Nil when it made none.
	Files map[string][]byte
}
