package plugin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/policy"
	"github.com/podjail/podjail/shim"
)

// cleanupTimeout bounds removing a container after the run's context ended.
const cleanupTimeout = 60 * time.Second

// attachDrainTimeout bounds how long after the container stopped the attach
// stream may take to deliver what is left; the stream normally ends at once.
const attachDrainTimeout = 30 * time.Second

// RunRequest asks for one program to run in one fresh container.
type RunRequest struct {
	// Image holds the program. Required.
	Image string
	// Command is the program and its arguments. Required.
	Command []string
	// InputFile is given to the program as stdin and bind-mounted
	// read-only at bindings.InputPath. Zero value: empty stdin (or
	// StdinStream).
	InputFile string
	// StderrFile is a host file, made by the caller and writable by the
	// container's root, that receives the program's stderr (appended to;
	// bounded like every file by FileSizeBytes). StderrToStdout gives the
	// program its stdout as stderr, counted against OutputLimit. Both need
	// the shim; they exclude each other. Zero values: stderr is /dev/null.
	StderrFile     string
	StderrToStdout bool
	// StdinStream is streamed to the program's stdin through attach as
	// it runs (an interactor's output). Zero value: InputFile's content.
	StdinStream io.Reader
	// Output receives the program's stdout, up to OutputLimit bytes.
	// Zero value: discarded (still counted).
	Output io.Writer
	// OutputLimit caps stdout; past it the container is killed. Zero
	// value: DefaultOutputLimit.
	OutputLimit int64
	// MemoryBytes is the memory limit (swap equal). Zero value: DefaultMemory.
	MemoryBytes int64
	// Pids caps tasks. Zero value: DefaultPids.
	Pids int64
	// CPUs is the CPU quota in cores. Zero value: DefaultCPUs.
	CPUs float64
	// CPUSet pins the run to these cores ("3", "0-1"), so that runs side
	// by side do not share a core. Zero value: any core.
	CPUSet string
	// TimeLimit is the program's processor time limit L. When set, the
	// three deadlines default from it (CPULimit L+2s, IdleLimit 4L+4s,
	// WallLimit 5(L+2s)) and the result carries a verdict, the answer
	// aside. Zero value: no verdict.
	TimeLimit time.Duration
	// WallLimit stops the run after this much elapsed time. Zero value:
	// no limit.
	WallLimit time.Duration
	// CPULimit stops the run once its parent cgroup has used this much
	// processor time (read on the host every watchInterval). Zero value:
	// no limit. Needs a Runner with Cgroups.
	CPULimit time.Duration
	// IdleLimit stops the run after this much elapsed time in which its
	// processor time did not grow while cpu.pressure shows it was not
	// waiting for a processor either. Zero value: no limit. Needs Cgroups.
	IdleLimit time.Duration
	// Stop, once closed, stops the run (KilledByCaller: a comparator's
	// first difference). Zero value: never.
	Stop <-chan struct{}

	// FileSizeBytes is the largest file the program may write
	// (RLIMIT_FSIZE: past it, SIGXFSZ). Zero value: the size of its
	// scratch space, so that no file outgrows it.
	FileSizeBytes int64
	// StackBytes is the program's stack limit (RLIMIT_STACK: past it,
	// SIGSEGV), at most MemoryBytes. Zero value: MemoryBytes, recursion as
	// deep as memory allows.
	StackBytes int64

	// Env adds NAME=VALUE entries to the program's environment, which is
	// otherwise the shim's clean one. Zero value: nothing added.
	Env []string
	// MemoryExitCode is the exit code by which the program's runtime says
	// it ran out of memory (lang.Language.MemoryExitCode); with TimeLimit
	// set, a run ending with it is MLE. Zero value: no such code.
	MemoryExitCode int
	// Writable, WorkDir and Binds are passed to the container spec (see
	// bindings.Spec). Zero values: read-only root, the image's working
	// directory, no extra mounts.
	Writable bool
	WorkDir  string
	Binds    []bindings.Bind
	// Tasks is the rule for the new tasks the program may make:
	// shim.TasksThreads ("threads": threads only; fork, vfork and clone
	// without CLONE_THREAD kill the program with SIGSYS, judged RFE) or
	// shim.TasksNone ("none": no thread either), as a judge's language
	// policy refuses processes (omegajail's do). clone3 is ENOSYS whatever
	// the rule (libcs fall back to clone). Needs the shim. Zero value: any.
	Tasks string
	// UnpackInput says InputFile is a tar of plain files (shim.Pack) that
	// the shim writes into WorkDir just before the program starts, whose
	// stdin is then empty: a build's sources, put in without a copy into
	// the container through Podman, so that the run can be armed before
	// they are known (Warm). Needs the shim. Zero value: InputFile is stdin.
	UnpackInput bool
	// Prepare runs after the container is created, before it starts
	// (a build without the shim copies its sources in). Zero value: nothing.
	Prepare func(ctx context.Context, rt bindings.Runtime, id string) error
	// Collect runs after the container stopped, before it is removed (the
	// build step copies the artefacts out). Zero value: nothing.
	Collect func(ctx context.Context, rt bindings.Runtime, id string) error
}

// RunResult says how the program ended. It is a value, not an error: a
// program that crashed or was stopped still produced a result.
type RunResult struct {
	Container   string `json:"container"`
	ContainerID string `json:"container_id"`
	Image       string `json:"image"`
	// ExitCode is the program's exit code (the shim reports it); 128+N
	// when signal N ended it.
	ExitCode int32 `json:"exit_code"`
	// Signal names the signal that ended the program ("SIGKILL"), when
	// podjail killed it or the exit code says so. Empty otherwise.
	Signal string `json:"signal,omitempty"`
	// Syscall names the system call the seccomp filter killed the program
	// for, as the kernel logged it ("getpid (i386 system call 20)"). Empty
	// unless SIGSYS ended the program; then SyscallUnknown says why it is
	// empty (the log unreadable, say, rootless).
	// SyscallName is the call's bare name ("getpid"; "#N" when the table
	// has none), as omegajail's meta file writes it.
	Syscall        string `json:"syscall,omitempty"`
	SyscallName    string `json:"syscall_name,omitempty"`
	SyscallUnknown string `json:"syscall_unknown,omitempty"`
	// Killed says podjail stopped the run, and why; KilledNote gives the
	// figures. Status() classifies the whole end.
	Killed     KillReason `json:"killed,omitempty"`
	KilledNote string     `json:"killed_note,omitempty"`
	// OutputBytes is how many stdout bytes the program wrote (counted past
	// the cap until it was stopped).
	OutputBytes int64 `json:"output_bytes"`
	OutputLimit int64 `json:"output_limit"`
	// OOMKilledFlag is Podman's flag: set when any process of the
	// container was OOM-killed. Informational only, and read only when
	// the runner waited for the container's exit (a shimmed run that
	// reported is done before that: false).
	OOMKilledFlag bool          `json:"podman_oom_killed"`
	Wall          time.Duration `json:"wall_ns"`
	// FirstOutput is when the first byte of stdout came, from the start;
	// zero if none came.
	FirstOutput time.Duration `json:"first_output_ns"`
	// StoppedAt is when podjail decided to stop the run, from the start;
	// zero if it did not. The container is gone some time after it.
	StoppedAt time.Duration `json:"stopped_at_ns"`
	// ContainerExitCode is the container's own exit code (under the shim,
	// the shim's, from its report when it reported).
	ContainerExitCode int32 `json:"container_exit_code"`
	// Shimmed says the program ran under the shim.
	Shimmed bool `json:"shimmed"`
	// Report is the shim's report, nil without one.
	Report *shim.Report `json:"shim_report,omitempty"`
	// Cgroup is the parent cgroup's reading, nil without a parent.
	Cgroup *cgroupdrv.Counters `json:"parent_cgroup,omitempty"`
	// Measure is what the program is charged for.
	Measure Measure `json:"measure"`
	// Verdict and VerdictNote judge the run against the request's
	// TimeLimit and limits (the answer is not looked at: AC means it ran
	// within them). Empty without a TimeLimit.
	Verdict     Verdict `json:"verdict,omitempty"`
	VerdictNote string  `json:"verdict_note,omitempty"`
}

// RequestError says a request cannot be run as given; nothing was created.
type RequestError struct {
	Field string
	Err   error
}

func (e *RequestError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// Check validates a request without touching the runtime, filling in the
// defaults of its zero-valued limits.
func (r *RunRequest) Check() error {
	switch {
	case r.Image == "":
		return &RequestError{"image", errors.New("no image given")}
	case len(r.Command) == 0:
		return &RequestError{"command", errors.New("no program given")}
	case !filepath.IsAbs(r.Command[0]):
		return &RequestError{"command", fmt.Errorf("the program %q must be an absolute path in the image (no PATH search)", r.Command[0])}
	case r.InputFile != "" && r.StdinStream != nil:
		return &RequestError{"input", errors.New("an input file and an input stream are exclusive")}
	case r.UnpackInput && r.InputFile == "":
		return &RequestError{"input", errors.New("files to unpack need an input file")}
	case r.StderrFile != "" && r.StderrToStdout:
		return &RequestError{"stderr", errors.New("a stderr file and stderr to stdout are exclusive")}
	case shim.CheckTasks(r.Tasks) != nil:
		return &RequestError{"tasks", shim.CheckTasks(r.Tasks)}
	case r.OutputLimit < 0 || r.MemoryBytes < 0 || r.FileSizeBytes < 0 || r.StackBytes < 0 || r.Pids < 0 || r.CPUs < 0 || r.WallLimit < 0 || r.TimeLimit < 0 || r.CPULimit < 0 || r.IdleLimit < 0:
		return &RequestError{"limits", errors.New("limits must not be negative")}
	case r.MemoryBytes > maxMemoryBytes || r.Pids > maxPids:
		// The shim's headroom is added to both: past these they overflow.
		return &RequestError{"limits", fmt.Errorf("memory %d or pids %d is beyond any host: ask for at most %d bytes and %d processes", r.MemoryBytes, r.Pids, int64(maxMemoryBytes), maxPids)}
	}
	if r.InputFile != "" {
		// The Podman service resolves a bind mount's source in its own
		// working directory, not ours.
		abs, err := filepath.Abs(r.InputFile)
		if err != nil {
			return &RequestError{"input", err}
		}
		r.InputFile = abs
		fi, err := os.Stat(r.InputFile)
		if err != nil {
			return &RequestError{"input", err}
		}
		if !fi.Mode().IsRegular() {
			return &RequestError{"input", fmt.Errorf("%s is not a regular file", r.InputFile)}
		}
	}
	if r.StderrFile != "" {
		abs, err := filepath.Abs(r.StderrFile)
		if err != nil {
			return &RequestError{"stderr", err}
		}
		r.StderrFile = abs
		if fi, err := os.Lstat(abs); err != nil || !fi.Mode().IsRegular() {
			return &RequestError{"stderr", fmt.Errorf("%s must be an existing regular file (%v)", abs, err)}
		}
	}
	defaultLimits(r)
	if r.Output == nil {
		r.Output = io.Discard
	}
	return nil
}

// stderrKeep is how much of the end of a shimmed container's stderr is
// kept: the report is the last line.
const stderrKeep = 64 << 10

// Runner runs programs in containers.
type Runner struct {
	// Runtime is the container engine. Required.
	Runtime bindings.Runtime
	// Self labels every container. Required: see Self.
	Self Instance
	// Cgroups makes each run's parent cgroup, read on the host after the
	// run. Zero value: no parent; the figures are the shim's alone.
	Cgroups cgroupdrv.Driver
	// Shim is the host path of the podjail-shim binary, mounted into
	// every container as its entrypoint. Zero value: programs run without
	// the shim, measured by the parent cgroup alone (a warning is logged
	// once per image).
	Shim string
	// Seccomp is the host path of the seccomp profile every container
	// gets (policy.WriteSeccomp). Zero value: Podman's default profile.
	Seccomp string
	// Levels gives every run its own SELinux MCS level. Zero value: Podman
	// picks the levels.
	Levels *policy.LevelPool
	// SeccompLogs are where the kernel's records of seccomp kills are read,
	// to name the call a SIGSYS run was killed for. Zero value:
	// seccomplog.Sources.
	SeccompLogs []string
	// Log receives debug output and warnings. Zero value: nothing is logged.
	Log hclog.Logger
	// Cores are the cores runs may be pinned to, one run on each, for
	// judging tests side by side (JudgeRequest.Parallel). Zero value:
	// tests run one at a time.
	Cores []int
	// MemoryCeiling is the most memory any run may have: a request's larger
	// MemoryBytes is lowered to it (omegaUp keeps every run under 640 MiB
	// so that a worker's runs fit its machine). Zero value: no ceiling.
	MemoryCeiling int64
	// Observer is told what the runner does, for metrics. Zero value:
	// nobody is told.
	Observer Observer

	warned sync.Map // images already warned about running without the shim
	builds *Warm    // NewWarm's, which builds are then armed ahead by; nil: none
}

// ShimError is a failure of the shim, not of the program: the run says
// nothing about the submission.
type ShimError struct {
	Step string
	Err  string
}

func (e *ShimError) Error() string {
	return fmt.Sprintf("shim failed at step %s: %s", e.Step, e.Err)
}

func (r *Runner) log() hclog.Logger {
	if r.Log == nil {
		return hclog.NewNullLogger()
	}
	return r.Log
}

// Run runs one program in one fresh container under its own parent cgroup,
// and removes both, whatever happens, also when ctx is cancelled.
func (r *Runner) Run(ctx context.Context, req RunRequest) (RunResult, error) {
	a, err := r.Arm(ctx, req)
	if err != nil {
		return RunResult{Image: req.Image}, err
	}
	res, err := a.Fire(ctx)
	<-a.Done()
	return res, err
}

// spec builds the container for req, and opens the input when it is to be
// streamed through attach (runs without the shim).
func (r *Runner) spec(req RunRequest, name string) (bindings.Spec, *os.File, error) {
	spec := bindings.Spec{
		Name:           name,
		Image:          req.Image,
		Command:        req.Command,
		Labels:         r.Self.Labels("run"),
		Profile:        policy.Default(),
		MemoryBytes:    req.MemoryBytes,
		Pids:           req.Pids,
		CPUs:           req.CPUs,
		CPUSet:         req.CPUSet,
		InputFile:      req.InputFile,
		StderrFile:     req.StderrFile,
		Stdin:          req.StdinStream != nil || r.Shim != "",
		Binds:          req.Binds,
		Writable:       req.Writable,
		WorkDir:        req.WorkDir,
		SeccompProfile: r.Seccomp,
	}
	spec.Rlimits = rlimits(req, spec.Profile.ScratchBytes)
	if r.Shim == "" {
		if req.StderrFile != "" || req.StderrToStdout {
			return spec, nil, &RequestError{"stderr", errors.New("the program's stderr is given only with podjail-shim")}
		}
		if req.UnpackInput {
			return spec, nil, &RequestError{"input", errors.New("files are unpacked only by podjail-shim")}
		}
		if req.Tasks != "" {
			return spec, nil, &RequestError{"tasks", errors.New("a rule for new tasks is applied only by podjail-shim")}
		}
		if _, warned := r.warned.LoadOrStore(req.Image, true); !warned {
			r.log().Warn("running without the shim: time and memory are the container's cgroup readings, which include the container's own work", "image", req.Image)
		}
		if req.InputFile == "" {
			return spec, nil, nil
		}
		f, err := os.Open(req.InputFile)
		if err != nil {
			return spec, nil, &RequestError{"input", err}
		}
		spec.Stdin = true
		return spec, f, nil
	}
	spec.Profile = policy.Shim()
	spec.ShimFile = r.Shim
	spec.Env = map[string]string{shim.NonceEnv: randomHex(16)}
	spec.MemoryBytes += shimMemoryHeadroom
	spec.Pids += shimPidsHeadroom
	cmd := []string{bindings.ShimPath, "--armed",
		"--memory", strconv.FormatInt(req.MemoryBytes, 10),
		"--pids", strconv.FormatInt(req.Pids, 10)}
	for _, e := range req.Env {
		cmd = append(cmd, "--env", e)
	}
	for _, b := range req.Binds {
		if b.Writable {
			cmd = append(cmd, "--hand-back", b.Destination)
		}
	}
	switch {
	case req.StdinStream != nil:
		cmd = append(cmd, "--stdin", shim.StdinInherit)
	case req.InputFile != "":
		cmd = append(cmd, "--stdin", bindings.InputPath)
		if req.UnpackInput {
			cmd = append(cmd, "--unpack")
		}
	}
	switch {
	case req.StderrFile != "":
		cmd = append(cmd, "--stderr", bindings.StderrPath)
	case req.StderrToStdout:
		cmd = append(cmd, "--stderr-to-stdout")
	}
	if req.Tasks != "" {
		cmd = append(cmd, "--tasks", req.Tasks)
	}
	spec.Command = append(append(cmd, "--"), req.Command...)
	return spec, nil, nil
}

// finish reads the shim's report and the parent cgroup and decides.
func (r *Runner) finish(res *RunResult, parent *cgroupdrv.Parent, stderr []byte, nonce string, setup time.Duration) error {
	if res.Shimmed {
		if rep, ok := shim.ParseReport(stderr, nonce); ok {
			res.Report = &rep
		}
	}
	if parent != nil {
		c, err := cgroupdrv.Read(parent.Path)
		if err != nil {
			return markHost(fmt.Errorf("read the run's parent cgroup: %w", err))
		}
		res.Cgroup = &c
	}
	rep := res.Report
	switch {
	case rep != nil && rep.Error != "":
		return &ShimError{Step: string(rep.Step), Err: rep.Error}
	case res.Shimmed && rep == nil && res.Killed == NotKilled:
		// Either end may be at fault: the shim killed before it reported,
		// or the Podman service cutting the stream (restarted or crashed
		// while the program ran on). Neither is the program's.
		return &ShimError{Step: "report", Err: fmt.Sprintf("no report on the container's stderr (container exit code %d): the shim was killed, or the Podman service cut the stream (restarted or failed)", res.ContainerExitCode)}
	}
	res.Measure = decide(rep, res.Cgroup, res.Shimmed, setup)
	if rep != nil {
		res.ExitCode, res.Signal = int32(rep.ExitCode), rep.Signal
		if rep.Signal != "" {
			res.ExitCode = 128 + int32(unix.SignalNum(rep.Signal))
		}
	}
	return nil
}

func (r *Runner) remove(ctx context.Context, id string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := r.Runtime.Remove(cctx, id); err != nil {
		r.log().Error("container not removed", "id", id, "error", err)
	}
}

func (r *Runner) destroy(ctx context.Context, p cgroupdrv.Parent) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := r.Cgroups.Destroy(cctx, p); err != nil {
		r.log().Error("parent cgroup not removed", "parent", p.CgroupParent, "error", err)
		return
	}
	r.log().Debug("parent cgroup removed", "parent", p.CgroupParent)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
