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
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/policy"
)

// Defaults of a RunRequest's zero-valued limits.
const (
	DefaultOutputLimit = 64 << 20
	DefaultMemory      = 256 << 20
	DefaultPids        = 64
	DefaultCPUs        = 1.0
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
	// read-only at bindings.InputPath. Zero value: empty stdin.
	InputFile string
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
	// WallLimit kills the container after this much elapsed time. Zero
	// value: no limit.
	WallLimit time.Duration
}

// RunResult says how the program ended. It is a value, not an error: a
// program that crashed or was stopped still produced a result.
type RunResult struct {
	Container   string `json:"container"`
	ContainerID string `json:"container_id"`
	Image       string `json:"image"`
	// ExitCode is the container's exit code; 128+N when signal N ended it.
	ExitCode int32 `json:"exit_code"`
	// Signal names the signal that ended the program ("SIGKILL"), when
	// podjail killed it or the exit code says so. Empty otherwise.
	Signal string `json:"signal,omitempty"`
	// Killed says podjail killed the container, and why.
	Killed string `json:"killed,omitempty"`
	// OutputBytes is how many stdout bytes the program wrote (counted past
	// the cap until it was stopped).
	OutputBytes int64 `json:"output_bytes"`
	OutputLimit int64 `json:"output_limit"`
	// OOMKilledFlag is Podman's flag: set when any process of the
	// container was OOM-killed. Informational only.
	OOMKilledFlag bool          `json:"podman_oom_killed"`
	Wall          time.Duration `json:"wall_ns"`
}

// Reasons for Killed.
const (
	KilledOutputLimit = "output limit exceeded"
	KilledWallLimit   = "wall time limit exceeded"
)

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
	case r.OutputLimit < 0 || r.MemoryBytes < 0 || r.Pids < 0 || r.CPUs < 0 || r.WallLimit < 0:
		return &RequestError{"limits", errors.New("limits must not be negative")}
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
	if r.OutputLimit == 0 {
		r.OutputLimit = DefaultOutputLimit
	}
	if r.MemoryBytes == 0 {
		r.MemoryBytes = DefaultMemory
	}
	if r.Pids == 0 {
		r.Pids = DefaultPids
	}
	if r.CPUs == 0 {
		r.CPUs = DefaultCPUs
	}
	if r.Output == nil {
		r.Output = io.Discard
	}
	return nil
}

// Runner runs programs in containers.
type Runner struct {
	// Runtime is the container engine. Required.
	Runtime bindings.Runtime
	// Self labels every container. Required: see Self.
	Self Instance
	// Log receives debug output. Zero value: nothing is logged.
	Log hclog.Logger
}

func (r *Runner) log() hclog.Logger {
	if r.Log == nil {
		return hclog.NewNullLogger()
	}
	return r.Log
}

// Run runs one program in one fresh container and removes the container,
// whatever happens, also when ctx is cancelled.
func (r *Runner) Run(ctx context.Context, req RunRequest) (RunResult, error) {
	if err := req.Check(); err != nil {
		return RunResult{}, err
	}
	res := RunResult{Image: req.Image, OutputLimit: req.OutputLimit, Container: "podjail-run-" + randomHex(6)}
	ok, err := r.Runtime.ImageExists(ctx, req.Image)
	if err != nil {
		return res, err
	}
	if !ok {
		return res, &bindings.ImageMissingError{Image: req.Image}
	}

	var stdin *os.File
	if req.InputFile != "" {
		if stdin, err = os.Open(req.InputFile); err != nil {
			return res, &RequestError{"input", err}
		}
		defer stdin.Close()
	}

	spec := bindings.Spec{
		Name:        res.Container,
		Image:       req.Image,
		Command:     req.Command,
		Labels:      r.Self.Labels("run"),
		Profile:     policy.Default(),
		MemoryBytes: req.MemoryBytes,
		Pids:        req.Pids,
		CPUs:        req.CPUs,
		InputFile:   req.InputFile,
		Stdin:       stdin != nil,
	}
	id, err := r.Runtime.Create(ctx, spec)
	if err != nil {
		return res, err
	}
	res.ContainerID = id
	defer r.remove(ctx, id)

	err = r.attachAndWait(ctx, id, stdin, req, &res)
	return res, err
}

func (r *Runner) remove(ctx context.Context, id string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := r.Runtime.Remove(cctx, id); err != nil {
		r.log().Error("container not removed", "id", id, "error", err)
	}
}

// attachAndWait attaches before starting (with log driver none nothing is
// kept for later), starts, and waits for the container to stop.
func (r *Runner) attachAndWait(ctx context.Context, id string, stdin *os.File, req RunRequest, res *RunResult) error {
	killed := make(chan string, 2)
	kill := func(reason string) {
		select {
		case killed <- reason:
		default:
		}
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if err := r.Runtime.Kill(kctx, id); err != nil {
			r.log().Error("kill failed", "id", id, "error", err)
		}
	}
	// The kill runs beside the stream so the stream keeps being drained.
	var killing sync.WaitGroup
	defer killing.Wait()
	out := &cappedWriter{dst: req.Output, limit: req.OutputLimit, exceeded: func() {
		killing.Go(func() { kill(KilledOutputLimit) })
	}}

	attachCtx, stopAttach := context.WithCancel(ctx)
	defer stopAttach()
	ready := make(chan struct{})
	attached := make(chan error, 1)
	var in io.Reader
	if stdin != nil {
		in = stdin
	}
	go func() { attached <- r.Runtime.Attach(attachCtx, id, in, out, nil, ready) }()
	select {
	case <-ready:
	case err := <-attached:
		return fmt.Errorf("attach before start: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}

	start := time.Now()
	if err := r.Runtime.Start(ctx, id); err != nil {
		return err
	}
	r.log().Debug("container started", "name", res.Container, "id", id)
	if req.WallLimit > 0 {
		t := time.AfterFunc(req.WallLimit, func() { kill(KilledWallLimit) })
		defer t.Stop()
	}
	code, err := r.Runtime.Wait(ctx, id)
	res.Wall = time.Since(start)
	if err != nil {
		return err
	}
	res.ExitCode = code

	// The stream ends when the container's stdout closes; bound the wait
	// in case the service keeps it open.
	drain := time.NewTimer(attachDrainTimeout)
	defer drain.Stop()
	select {
	case err := <-attached:
		if err != nil {
			r.log().Warn("attach stream ended with an error", "id", id, "error", err)
		}
	case <-drain.C:
		r.log().Warn("attach stream still open after the container stopped", "id", id)
	}

	var dstErr error
	res.OutputBytes, _, dstErr = out.result()
	select {
	case res.Killed = <-killed:
		res.Signal = "SIGKILL"
	default:
		if code > 128 && code < 128+65 {
			res.Signal = unix.SignalName(unix.Signal(code - 128))
		}
	}
	if st, err := r.Runtime.Inspect(ctx, id); err == nil {
		res.OOMKilledFlag = st.OOMKilled
	}
	if dstErr != nil {
		return fmt.Errorf("write program output: %w", dstErr)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
