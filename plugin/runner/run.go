package runner

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

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/policy"
	"github.com/podjail/podjail/shim"
)

// cleanupTimeout bounds removing a container after the run's context ended.
const cleanupTimeout = 60 * time.Second

// exitWaitTimeout bounds waiting for a reported run's container to exit
// before it is removed (awaitExit): seconds on a busy host, or never, if
// Podman's service went away.
const exitWaitTimeout = 10 * time.Second

// attachDrainTimeout bounds how long after the container stopped the attach
// stream may take to deliver what is left; the stream normally ends at once.
const attachDrainTimeout = 30 * time.Second

// RunRequest asks for one program to run in one fresh container. Its
// fields are grouped the way go-judge's envexec.Cmd groups them: what to
// run and where (image, command, environment, working directory, mounts),
// its stdio, its Limits, when to stop it (Wait), and the files that go in
// and come out (Copy), as data. Each field documents its zero value.
type RunRequest struct {
	// Image holds the program. Required.
	Image string
	// Command is the program and its arguments. Required.
	Command []string
	// Env adds NAME=VALUE entries to the program's environment, which is
	// otherwise the shim's clean one. Zero value: nothing added.
	Env []string
	// Writable, WorkDir and Binds are passed to the container spec (see
	// bindings.Spec). Writable also drops podjail's rlimits (a build keeps
	// the image's: see rlimits). Zero values: read-only root, the image's
	// working directory, no extra mounts.
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
	// MemoryExitCode is the exit code by which the program's runtime says
	// it ran out of memory (lang.Language.MemoryExitCode): plugin.RunVerdict
	// judges a run ending with it MLE. The mechanism does not read it.
	// Zero value: no such code.
	MemoryExitCode int

	// InputFile is given to the program as stdin and bind-mounted
	// read-only at bindings.InputPath. Zero value: empty stdin (or
	// StdinStream).
	InputFile string
	// StdinStream is streamed to the program's stdin (down the control
	// pipe under the shim, through attach without it) as
	// it runs (an interactor's output). Zero value: InputFile's content.
	StdinStream io.Reader
	// Output receives the program's stdout, up to Limits.Output bytes.
	// Zero value: discarded (still counted).
	Output io.Writer
	// StderrFile is a host file, made by the caller and writable by the
	// container's root, that receives the program's stderr (appended to;
	// bounded like every file by Limits.FileSize). StderrToStdout gives
	// the program its stdout as stderr, counted against Limits.Output (the
	// isolate front's --stderr-to-stdout). Both need the shim; they
	// exclude each other. Zero values: stderr is /dev/null.
	StderrFile     string
	StderrToStdout bool

	// Limits are the run's resource limits (see Limits; plugin/limits.go builds
	// them with the deadlines, as Bounds).
	Limits Limits
	// Wait says when the run is stopped before it ends (see Wait).
	Wait Wait
	// Copy are the files put into the container before the program starts
	// and taken out of it once it ended (see Copy). Zero value: none.
	Copy Copy
}

// Copy is what a run puts into its working directory before the program
// starts and takes out of it once the program ended, as data (a build's
// sources and artefacts; plugin.Runner.RunFiles fills it in from plugin.Files).
type Copy struct {
	// Unpack says the request's InputFile is a tar of plain files
	// (shim.Pack) that the shim writes into WorkDir just before the
	// program starts, whose stdin is then empty: a build's sources, put in
	// without a copy into the container through Podman, so that the run
	// can be armed before they are known (Warm). Needs the shim. Zero
	// value: InputFile is stdin.
	Unpack bool
	// In are written into WorkDir, each under its name (a plain file
	// name), through Podman after the container is created and before it
	// starts: a build without the shim. Zero value: nothing.
	In map[string][]byte
	// Out names files of WorkDir copied, after the container stopped and
	// before it is removed, into OutDir, a host directory; one the
	// program did not make is left out. Zero value: nothing.
	Out    []string
	OutDir string
}

// RunResult says how the program ended. It is a value, not an error: a
// program that crashed or was stopped still produced a result. It holds
// the facts of the run (Status classifies them) and its figures, no
// verdict: a caller that wants one asks plugin.RunVerdict (or plugin.JudgeRun).
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
	// TimeAtStop is the run's processor time (its parent cgroup's, the
	// shim's share included) when podjail decided to stop it: what it
	// used before the stop's own latency. Zero if podjail did not stop
	// it, or the run has no parent cgroup.
	TimeAtStop time.Duration `json:"time_at_stop_ns,omitempty"`
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
	l, d := r.Limits, r.Wait.Deadlines
	switch {
	case r.Image == "":
		return &RequestError{"image", errors.New("no image given")}
	case len(r.Command) == 0:
		return &RequestError{"command", errors.New("no program given")}
	case !filepath.IsAbs(r.Command[0]):
		return &RequestError{"command", fmt.Errorf("the program %q must be an absolute path in the image (no PATH search)", r.Command[0])}
	case r.InputFile != "" && r.StdinStream != nil:
		return &RequestError{"input", errors.New("an input file and an input stream are exclusive")}
	case r.Copy.Unpack && r.InputFile == "":
		return &RequestError{"input", errors.New("files to unpack need an input file")}
	case r.StderrFile != "" && r.StderrToStdout:
		return &RequestError{"stderr", errors.New("a stderr file and stderr to stdout are exclusive")}
	case shim.CheckTasks(r.Tasks) != nil:
		return &RequestError{"tasks", shim.CheckTasks(r.Tasks)}
	case l.Output < 0 || l.Memory < 0 || l.FileSize < 0 || l.Stack < 0 || l.Pids < 0 || l.CPUs < 0 || d.Wall < 0 || l.Time < 0 || d.CPU < 0 || d.Idle < 0:
		return &RequestError{"limits", errors.New("limits must not be negative")}
	case l.Memory > maxMemoryBytes || l.Pids > maxPids:
		// The shim's headroom is added to both: past these they overflow.
		return &RequestError{"limits", fmt.Errorf("memory %d or pids %d is beyond any host: ask for at most %d bytes and %d processes", l.Memory, l.Pids, int64(maxMemoryBytes), maxPids)}
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
	// MemoryCeiling is the most memory any run may have: a request's larger
	// MemoryBytes is lowered to it (omegaUp keeps every run under 640 MiB
	// so that a worker's runs fit its machine). Zero value: no ceiling.
	MemoryCeiling int64
	// Observer is told what the runner does, for metrics. Zero value:
	// nobody is told.
	Observer Observer

	warned sync.Map // images already warned about running without the shim
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
		MemoryBytes:    req.Limits.Memory,
		Pids:           req.Limits.Pids,
		CPUs:           req.Limits.CPUs,
		CPUSet:         req.Limits.CPUSet,
		InputFile:      req.InputFile,
		StderrFile:     req.StderrFile,
		Stdin:          req.StdinStream != nil && r.Shim == "",
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
		if req.Copy.Unpack {
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
	// In the shim's environment, not its argv, which any local user reads.
	env, err := shim.EncodeEnv(req.Env)
	if err != nil {
		return spec, nil, &RequestError{"env", err}
	}
	if env != "" {
		spec.Env[shim.EnvListEnv] = env
	}
	spec.MemoryBytes += shimMemoryHeadroom
	spec.Pids += shimPidsHeadroom
	cmd := []string{bindings.ShimPath, "--armed", "--status", bindings.StatusPath, "--control", bindings.ControlPath, "--stdout", bindings.StdoutPath,
		"--memory", strconv.FormatInt(req.Limits.Memory, 10),
		"--pids", strconv.FormatInt(req.Limits.Pids, 10)}
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
		if req.Copy.Unpack {
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
			return MarkHost(fmt.Errorf("read the run's parent cgroup: %w", err))
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
		return &ShimError{Step: "report", Err: fmt.Sprintf("no report on its status pipe (container exit code %d): the shim was killed, or died before it opened the pipe (a code of 128 + 31, SIGSYS, is the seccomp profile refusing it a call)", res.ContainerExitCode)}
	}
	res.Measure = decide(rep, res.Cgroup, res.Shimmed, setup)
	if rep != nil {
		res.ExitCode, res.Signal = int32(rep.ExitCode), rep.Signal
		if rep.Signal != "" {
			res.ExitCode = 128 + int32(shim.SignalNumber(rep.Signal))
		}
	}
	return nil
}

// awaitExit waits, a while at most, for the container of a run that
// ended at the shim's report to exit before it is removed. The shim
// reports last, so the container is about to exit; a forced removal
// before it has makes Podman stop it (a kill, the stop's own wait)
// beside conmon's cleanup process. In podjail bench's spec steps a
// removal right after the exit cost Podman the least: 0.1 s of processor
// time less than one before the exit, or half a second after it (within
// the loop's noise). A wait that fails or runs out leaves the forced
// removal to do it.
func (r *Runner) awaitExit(ctx context.Context, id string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), exitWaitTimeout)
	defer cancel()
	if _, err := r.Runtime.Wait(wctx, id); err != nil {
		r.log().Debug("container not seen to exit before its removal", "id", id, "error", err)
	}
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
