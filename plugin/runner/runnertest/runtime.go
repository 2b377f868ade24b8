package runnertest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/shim"
)

// Program is what a fake container does once started: under the shim
// (shim/doc.go), the shim's setup, the armed line, the go, then this.
type Program struct {
	Stdout   []byte        // written after the go
	Repeat   int           // stdout written this many times (default once)
	CPU      time.Duration // charged to the parent's cpu.stat, and the shim's rusage
	SetupCPU time.Duration // charged before the armed line: the container's own work
	Peak     int64         // the program's memory.peak, and the parent's
	Exit     int
	Signal   string    // the program dies by it ("SIGSEGV")
	OOMKill  bool      // the parent's memory.events oom_kill; dies by SIGKILL
	Hang     bool      // after its output, runs until killed
	Echo     bool      // copies its stdin to stdout until EOF (an interactive peer)
	FailStep shim.Step // the shim fails at this step, before arming
	// DiesAtStart: the shim dies before it opens its status pipe (its
	// runtime killed at start), with no report anywhere.
	DiesAtStart bool
	// StatusLost: the status pipe ends, after a line but before the armed
	// one, while the shim lives on, silent, until it is killed (a stream
	// lost under it).
	StatusLost bool
	NoReport   bool              // the shim dies (exit 137) without a report
	Files      map[string][]byte // files left in the container (a build's artefacts)
	Gate       <-chan struct{}   // after the go, waits for it (or a kill) before anything else
	Expect     []byte            // after its output, reads this much of stdin: exit 0 if equal, else 1
	// AtGo, when set, decides stdout and exit at the go (a checker reads
	// the output it judges only then).
	AtGo func(spec bindings.Spec) Program
	// StreamLag is how long after the container ended (its report
	// written) its attach stream ends: Podman's attach lagging behind a
	// container on a busy host. LateStdout is stdout the stream delivers
	// only then, after the report (stdout and stderr are separate pipes
	// to conmon); with a stdout pipe, the pipe delivers it then, and ends.
	StreamLag  time.Duration
	LateStdout []byte
	// ReportLag is how long after the program ended on its own its
	// report comes (the shim still running, a stop to it unheard).
	ReportLag time.Duration
	// ExitLag is how long after the shim's end (its report, its status
	// pipe closed) the container exits, conmon's part; or until it is
	// killed.
	ExitLag time.Duration
}

// Runtime is a bindings.Runtime whose containers play the shim's
// protocol: the nonce from spec.Env, the armed line on the status pipe (the
// attach stderr without one), one go byte from the control pipe (the
// attach stdin without one), the
// program (its stdout to the stdout pipe, or the attach), the report last. It is
// safe for concurrent use and records what happened. Its Host is GoodHost.
type Runtime struct {
	cg *Cgroups // where the parents' files are

	mu        sync.Mutex
	program   func(spec bindings.Spec) Program // nil: exit 0, no output
	missing   map[string]bool                  // images not in storage
	onGo      func(c *Container)               // called when a container gets its go
	seq       int
	all       map[string]*Container // every container ever created
	created   []string
	started   []string
	removed   []string
	forced    []string // removed while still running: Podman kills them
	goes      []string // containers that got their go, in order
	kills     []string // "id SIGNAL"
	hostKills []string // ids whose program's cgroup.kill held "1" when they were stopped
	copiedIn  map[string][]byte
	unpacked  map[string][]byte // what shims were given to --unpack, by container path
}

// Container is a container of the fake runtime. Its ID, Spec and Prog are
// set at its creation and never change.
type Container struct {
	ID   string        // "fake001", "fake002", … in the order of creation
	Spec bindings.Spec // as created
	Prog Program       // what it does once started

	nonce   string
	shimmed bool
	// programCgroup is the program's cgroup the shim made, on the host
	// ("": none, no shim or no parent); set before the shim reads its go.
	programCgroup string

	// set under the runtime's lock
	stdin          io.Reader
	stdout, stderr io.Writer
	attached       bool
	started        bool
	removed        bool
	exit           int32
	oom            bool
	files          map[string][]byte

	kill  chan string // the first signal
	done  chan struct{}
	ended atomic.Bool
	end   sync.Once
}

var _ bindings.Runtime = (*Runtime)(nil)

// NewRuntime returns a runtime whose containers' parents are cg's (nil: a
// container given a cgroup parent fails to be created); its containers
// exit 0 with no output until SetProgram.
func NewRuntime(cg *Cgroups) *Runtime {
	rt := &Runtime{cg: cg, all: map[string]*Container{}, copiedIn: map[string][]byte{}, unpacked: map[string][]byte{}}
	if cg != nil {
		cg.rt = rt
	}
	return rt
}

// ProgramPath is the program of a container's command: after the shim's
// "--", or the command itself without the shim.
func ProgramPath(spec bindings.Spec) string {
	if i := slices.Index(spec.Command, "--"); i >= 0 && i+1 < len(spec.Command) {
		return spec.Command[i+1]
	}
	if len(spec.Command) > 0 {
		return spec.Command[0]
	}
	return ""
}

// ByInput picks a program by the base name of the run's input file.
func ByInput(progs map[string]Program) func(bindings.Spec) Program {
	return func(s bindings.Spec) Program { return progs[filepath.Base(s.InputFile)] }
}

func (rt *Runtime) get(id string) (*Container, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	c := rt.all[id]
	if c == nil || c.removed {
		return nil, fmt.Errorf("container %s: %w", id, bindings.ErrNotFound)
	}
	return c, nil
}

// ImageExists reports whether image is not one of SetMissing's.
func (rt *Runtime) ImageExists(ctx context.Context, image string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return !rt.missing[image], nil
}

// Create makes a container (not started) whose program is SetProgram's
// for spec; a missing image is an ImageMissingError, a cgroup parent
// that does not exist an error.
func (rt *Runtime) Create(ctx context.Context, spec bindings.Spec) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	rt.mu.Lock()
	missing, program := rt.missing[spec.Image], rt.program
	rt.mu.Unlock()
	if missing {
		return "", &bindings.ImageMissingError{Image: spec.Image}
	}
	if spec.CgroupParent != "" && (rt.cg == nil || !dirExists(rt.cg.Path(spec.CgroupParent))) {
		return "", fmt.Errorf("cgroup parent %s does not exist", spec.CgroupParent)
	}
	var prog Program
	if program != nil {
		prog = program(spec)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.seq++
	c := &Container{ID: fmt.Sprintf("fake%03d", rt.seq), Spec: spec, Prog: prog,
		nonce: spec.Env[shim.NonceEnv], shimmed: spec.ShimFile != "",
		stdin: bytes.NewReader(nil), stdout: io.Discard, stderr: io.Discard,
		files: map[string][]byte{}, kill: make(chan string, 1), done: make(chan struct{})}
	rt.all[c.ID] = c
	rt.created = append(rt.created, c.ID)
	return c.ID, nil
}

// Attach connects the container's stdio, closes ready, and returns once
// the container ended and its stream did (Program.StreamLag).
func (rt *Runtime) Attach(ctx context.Context, id string, stdin io.Reader, stdout, stderr io.Writer, ready chan<- struct{}) error {
	c, err := rt.get(id)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	if c.attached || c.started {
		rt.mu.Unlock()
		return fmt.Errorf("attach to %s: already attached or started", id)
	}
	c.attached = true
	if stdin != nil {
		c.stdin = stdin
	}
	if stdout != nil {
		c.stdout = stdout
	}
	if stderr != nil {
		c.stderr = stderr
	}
	rt.mu.Unlock()
	close(ready)
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if lag := c.Prog.StreamLag; lag > 0 {
		t := time.NewTimer(lag)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if len(c.Prog.LateStdout) > 0 && c.Spec.StdoutPipe == "" {
		_, _ = c.stdout.Write(c.Prog.LateStdout)
	}
	return nil
}

// Start starts the container: it plays the shim's protocol, then its
// Program.
func (rt *Runtime) Start(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := rt.get(id)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	if c.started {
		rt.mu.Unlock()
		return fmt.Errorf("start %s: %w: already started", id, bindings.ErrConflict)
	}
	c.started = true
	rt.started = append(rt.started, id)
	rt.mu.Unlock()
	go rt.play(c)
	return nil
}

// Wait returns the container's exit code once it ended.
func (rt *Runtime) Wait(ctx context.Context, id string) (int32, error) {
	c, err := rt.get(id)
	if err != nil {
		return 0, err
	}
	select {
	case <-c.done:
		rt.mu.Lock()
		defer rt.mu.Unlock()
		return c.exit, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Inspect reports whether the container runs, its exit code and OOM flag.
func (rt *Runtime) Inspect(_ context.Context, id string) (bindings.State, error) {
	c, err := rt.get(id)
	if err != nil {
		return bindings.State{}, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return bindings.State{Running: c.started && !c.ended.Load(), ExitCode: c.exit, OOMKilled: c.oom}, nil
}

// Kill records the signal and, to a running container, sends it.
func (rt *Runtime) Kill(_ context.Context, id, signal string) error {
	c, err := rt.get(id)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	rt.kills = append(rt.kills, id+" "+signal)
	if c.killedFromHost() && !slices.Contains(rt.hostKills, id) {
		rt.hostKills = append(rt.hostKills, id)
	}
	running := c.started && !c.ended.Load()
	rt.mu.Unlock()
	if running {
		select {
		case c.kill <- signal:
		default:
		}
	}
	return nil
}

// Remove kills a started container, waits for its end and removes it; a
// container already gone is no error.
func (rt *Runtime) Remove(ctx context.Context, id string) error {
	c, err := rt.get(id)
	if err != nil {
		return nil // already gone
	}
	rt.mu.Lock()
	started := c.started
	if started && !c.ended.Load() {
		rt.forced = append(rt.forced, id)
	}
	rt.mu.Unlock()
	if started {
		select {
		case c.kill <- "KILL":
		default:
		}
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	} else {
		c.finish(nil, 0, nil)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	c.removed = true
	rt.removed = append(rt.removed, id)
	return nil
}

// ListByLabel lists the containers not removed that have the label key
// ("": all), in the order of creation.
func (rt *Runtime) ListByLabel(_ context.Context, key string) ([]bindings.Container, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var out []bindings.Container
	for _, id := range rt.created {
		c := rt.all[id]
		if _, ok := c.Spec.Labels[key]; !c.removed && (ok || key == "") {
			out = append(out, bindings.Container{ID: id, Name: c.Spec.Name, Labels: c.Spec.Labels})
		}
	}
	return out, nil
}

// Host reports GoodHost.
func (rt *Runtime) Host(context.Context) (bindings.HostInfo, error) { return GoodHost, nil }

// CopyIn writes the regular files of the tar r into the container under
// dir, and records them (CopiedIn).
func (rt *Runtime) CopyIn(_ context.Context, id, dir string, r io.Reader) error {
	c, err := rt.get(id)
	if err != nil {
		return err
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		rt.mu.Lock()
		if h.Typeflag == tar.TypeReg {
			c.files[path.Join(dir, h.Name)] = data
			rt.copiedIn[path.Join(dir, h.Name)] = data
		}
		rt.mu.Unlock()
	}
}

// unpack is the shim's --unpack after the go: the input file's files
// into the working directory.
func (rt *Runtime) unpack(c *Container) {
	f, err := os.Open(c.Spec.InputFile)
	if err != nil {
		return
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		data, _ := io.ReadAll(tr)
		rt.mu.Lock()
		c.files[path.Join(c.Spec.WorkDir, h.Name)] = data
		rt.unpacked[path.Join(c.Spec.WorkDir, h.Name)] = data
		rt.mu.Unlock()
	}
}

// CopyOut writes a tar holding the container's file p, one its program
// left (Program.Files) or CopyIn wrote; ErrNotFound for none.
func (rt *Runtime) CopyOut(_ context.Context, id, p string, w io.Writer) error {
	c, err := rt.get(id)
	if err != nil {
		return err
	}
	rt.mu.Lock()
	data, ok := c.files[p]
	rt.mu.Unlock()
	if !ok {
		return fmt.Errorf("copy %s out of %s: %w", p, id, bindings.ErrNotFound)
	}
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: path.Base(p), Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(data))}); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	return tw.Close()
}

// SetProgram sets what the containers created from now on do (nil: exit
// 0, no output).
func (rt *Runtime) SetProgram(program func(spec bindings.Spec) Program) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.program = program
}

// SetMissing sets the images not in storage (none: every image is).
func (rt *Runtime) SetMissing(images ...string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.missing = map[string]bool{}
	for _, image := range images {
		rt.missing[image] = true
	}
}

// SetOnGo sets a function called, in the container's goroutine, when a
// container gets its go (nil: none).
func (rt *Runtime) SetOnGo(onGo func(c *Container)) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.onGo = onGo
}

// Done is closed when the container has ended.
func (c *Container) Done() <-chan struct{} { return c.done }
