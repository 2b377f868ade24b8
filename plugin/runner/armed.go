package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/internal/capped"
	"github.com/podjail/podjail/shim"
)

// armTimeout bounds arming: the container's create and start (and attach,
// without the shim) and the shim's own setup. Past it the runtime is
// failing, not the program.
const armTimeout = 2 * time.Minute

// Armed is one run made ready ahead of its turn: its parent cgroup made,
// its container created and started, and the shim set up and
// waiting for the go (shim/doc.go, step 6). Nothing of the program exists
// until Fire. Use it once: Fire, or Discard; both remove everything it
// holds. Without the shim there is nothing to wait in the container, so
// an Armed is only created and attached, and Fire starts it.
type Armed struct {
	r      *Runner
	req    RunRequest
	res    RunResult
	id     string
	nonce  string
	parent *cgroupdrv.Parent
	level  string

	pipes    *pipes // a shimmed run's stdin (the go, then StdinStream), stdout and status
	out      *capped.Writer
	stderr   *tailBuffer // the shim's stderr (its status pipe), or the attached container's
	attached chan error  // that stream's end: the run's, or the shim's
	stdout   chan error  // the stdout pipe read to its end; nil: not read
	began    time.Time
	base     time.Duration // the parent's processor time at the go (endMu)
	early    bool          // the container ended before it was armed (a shim failure)
	reported bool          // the run ended at the shim's report, its container's exit not waited for

	killed   chan stopReason
	stopping sync.WaitGroup // stops under way: the container is removed after them
	endMu    sync.Mutex
	over     bool      // the run has ended: a stop from now on does nothing
	endedAt  time.Time // when it was known to have ended
	fired    bool
	once     sync.Once     // cleanup
	cleaned  chan struct{} // closed once everything of the run is gone
	cleanups []func(context.Context)
}

type stopReason struct {
	reason KillReason
	note   string
	at     time.Time
	cpu    time.Duration // the run's processor time then; 0: unknown
}

// Arm makes req's run ready to fire. On error nothing of it is left.
func (r *Runner) Arm(ctx context.Context, req RunRequest) (_ *Armed, err error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	req.Limits.Memory = r.MemoryLimit(req.Limits.Memory)
	a := &Armed{r: r, req: req, killed: make(chan stopReason, 1), cleaned: make(chan struct{}),
		res: RunResult{Image: req.Image, OutputLimit: req.Limits.Output, Container: "podjail-run-" + randomHex(6), Shimmed: r.Shim != ""}}
	defer func() {
		if err != nil {
			a.cleanup(ctx)
		}
	}()
	// No ImageExists first: Create says an image is missing
	// (ImageMissingError), and the lookup cost the Podman service 4% of
	// its processor time per run (a profile of podjail bench in the VM).
	spec, stdin, err := r.spec(req, a.res.Container)
	if err != nil {
		return nil, err
	}
	if stdin != nil {
		a.cleanups = append(a.cleanups, func(context.Context) { stdin.Close() })
	}
	a.nonce = spec.Env[shim.NonceEnv]
	if a.res.Shimmed {
		if a.pipes, err = newPipes(); err != nil {
			return nil, MarkHost(err)
		}
		a.cleanups = append(a.cleanups, func(context.Context) { a.pipes.close() })
		spec.ControlPipe, spec.StdoutPipe, spec.StatusPipe = a.pipes.controlPath, a.pipes.stdoutPath, a.pipes.statusPath
	}
	if err := a.reserveLevel(&spec); err != nil {
		return nil, err
	}
	// What makes something on the host (the parent, the container) is not
	// cut short by the caller: a request cancelled in flight may still be
	// carried out by systemd or Podman, and what we never learn the name of
	// we cannot remove. The caller's end is looked at once it is made.
	made, cancelMade := context.WithTimeout(context.WithoutCancel(ctx), armTimeout)
	defer cancelMade()
	if err := a.makeParent(made, &spec); err != nil {
		return nil, err
	}
	a.began = time.Now()
	if err := a.create(made, spec); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(req.Copy.In) > 0 {
		if err := r.Runtime.CopyIn(ctx, a.id, "/", sourceTar(req.WorkDir, req.Copy.In)); err != nil {
			return nil, err
		}
	}
	// Without the shim, the input goes through attach; with it, down the
	// control pipe.
	var in io.Reader
	switch {
	case a.res.Shimmed:
	case stdin != nil:
		in = stdin
	case req.StdinStream != nil:
		in = req.StdinStream
	}
	actx, cancel := context.WithTimeout(ctx, armTimeout)
	defer cancel()
	if err := a.attach(actx, in); err != nil {
		return nil, err
	}
	if !a.res.Shimmed {
		return a, nil
	}
	started := time.Now()
	if err := r.Runtime.Start(actx, a.id); err != nil {
		return nil, err
	}
	r.log().Debug("container started", "name", a.res.Container, "id", a.id)
	if err := a.awaitArmed(actx); err != nil {
		return nil, err
	}
	if !a.early {
		// The shim holds the stdout pipe from before its armed line.
		a.stdout = make(chan error, 1)
		go func() { a.stdout <- a.pipes.readStdout(a.out) }()
	}
	r.phase(PhaseStart, started)
	return a, nil
}

func (a *Armed) reserveLevel(spec *bindings.Spec) error {
	levels := a.r.Levels
	if levels == nil {
		return nil
	}
	level, err := levels.Reserve()
	if err != nil || level == "" {
		return err
	}
	a.r.log().Debug("SELinux level reserved", "level", level, "held", levels.Len())
	a.level, spec.SELinuxLevel = level, level
	return nil
}

func (a *Armed) makeParent(ctx context.Context, spec *bindings.Spec) error {
	r := a.r
	if r.Cgroups == nil {
		return nil
	}
	p, err := r.Cgroups.Create(ctx, r.Self.ParentID())
	if err != nil {
		return MarkHost(fmt.Errorf("make the run's parent cgroup (%s driver): %w", r.Cgroups.Name(), err))
	}
	a.parent = &p
	r.log().Debug("parent cgroup made", "parent", p.CgroupParent)
	spec.CgroupParent = p.CgroupParent
	return nil
}

func (a *Armed) create(ctx context.Context, spec bindings.Spec) error {
	began := time.Now()
	id, err := a.r.Runtime.Create(ctx, spec)
	if err != nil {
		return err
	}
	a.id, a.res.ContainerID = id, id
	a.r.log().Debug("container created", "name", a.res.Container)
	a.r.phase(PhaseCreate, began)
	return nil
}

// Fire starts the program and waits for the run to end. The container's
// removal, its parent's and its level's release run after Fire returns,
// off the caller's critical path; Done tells when they are over.
func (a *Armed) Fire(ctx context.Context) (RunResult, error) {
	if a.fired {
		return a.res, errors.New("an armed run fires once")
	}
	a.fired = true
	res, err := a.fire(ctx)
	go a.cleanup(ctx)
	return res, err
}

func (a *Armed) fire(ctx context.Context) (RunResult, error) {
	r, req, res := a.r, a.req, &a.res
	defer a.stopping.Wait()
	// A test whose judge ended (the pipeline's cutoff) while it waited for
	// its turn must not start: nothing of the program may exist after that.
	if err := ctx.Err(); err != nil {
		return *res, err
	}
	start := time.Now()
	var base time.Duration
	if a.parent != nil {
		base, _ = cgroupdrv.CPUUsage(a.parent.Path) // the shim's setup, not the program's
	}
	a.endMu.Lock() // stop reads it, from whatever goroutine stops the run
	a.base = base
	a.endMu.Unlock()
	if err := a.sendGo(ctx); err != nil {
		return *res, err
	}
	obs := r.observe()
	obs.Gauge(GaugeLiveRuns, 1)
	running, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	a.watch(running, start, base)
	code, waited, err := a.end(ctx)
	a.settle()
	obs.Gauge(GaugeLiveRuns, -1)
	stopWatching()
	res.Wall = a.endedAt.Sub(start)
	// The run's processor time since the go beside its wall time tells a
	// run held back by a busy host (little) from one that spun (much).
	cpu := time.Duration(-1)
	if a.parent != nil {
		if v, err := cgroupdrv.CPUUsage(a.parent.Path); err == nil {
			cpu = v - base
		}
	}
	r.log().Debug("container stopped", "name", res.Container, "wall", res.Wall, "cpu_since_go", cpu, "waited", waited)
	if err != nil {
		return *res, err
	}
	obs.Phase(PhaseRun, res.Wall)
	res.ContainerExitCode, res.ExitCode = code, code
	dstErr := a.drain(start)
	if _, over, _ := a.out.Result(); over {
		// Output past the cap that came after the run ended (stdout
		// delivered after the report): its stop was not needed, the
		// verdict is the same.
		select {
		case a.killed <- stopReason{KilledOutputLimit, outputLimitNote(req.Limits.Output), a.endedAt, 0}:
		default:
		}
	}
	select {
	case k := <-a.killed:
		if a.endedFirst(k.reason) {
			// The deadline came as the program ended on its own: the
			// report was on its way (a busy host), the shim had nothing
			// left to kill. Not the program's fault (issue 27).
			r.log().Debug("a deadline reached as the program had ended on its own: not counted", "name", res.Container, "deadline", k.reason)
			break
		}
		res.Killed, res.KilledNote, res.Signal = k.reason, k.note, "SIGKILL"
		res.StoppedAt, res.TimeAtStop = k.at.Sub(start), k.cpu
	default:
		if code > 128 && code < 128+65 {
			res.Signal = unix.SignalName(unix.Signal(code - 128))
		}
	}
	if waited {
		if st, err := r.Runtime.Inspect(ctx, a.id); err == nil {
			res.OOMKilledFlag = st.OOMKilled
		}
	}
	// A closed pipe is the other end of an interactive pair having ended.
	if dstErr != nil && !errors.Is(dstErr, io.ErrClosedPipe) {
		return *res, fmt.Errorf("write program output: %w", dstErr)
	}
	if err := a.copyOut(ctx); err != nil {
		return *res, err
	}
	// The container has stopped: nothing of it still runs and charges the
	// parent (conmon is kept out of it), so its counters are final.
	if err := r.finish(res, a.parent, a.stderr.Bytes(), a.nonce, base); err != nil {
		return *res, err
	}
	if res.Signal == "SIGSYS" {
		r.nameSyscall(res, a.began, time.Now())
	}
	return *res, nil
}

// copyOut copies the request's Copy.Out out of the stopped container into
// Copy.OutDir; a file the program did not make is left out.
func (a *Armed) copyOut(ctx context.Context) error {
	c := a.req.Copy
	for _, name := range c.Out {
		err := copyArtefact(ctx, a.r.Runtime, a.id, path.Join(a.req.WorkDir, name), filepath.Join(c.OutDir, name))
		if err != nil && !errors.Is(err, bindings.ErrNotFound) {
			return err
		}
	}
	return nil
}

// end waits for the run to end and gives the container's exit status. A
// shimmed run has ended once the shim's report is on its stderr: the shim
// writes it last, once nothing of the program is left. From then on no
// deadline runs and no stop is sent (settle): the end of the attach
// stream, and Podman's wait, can come seconds later on a busy host, and a
// limit reached meanwhile is not the program's (issue 27). Without a
// report (a shim killed, a stream cut short) the container's exit is
// waited for.
func (a *Armed) end(ctx context.Context) (code int32, waited bool, err error) {
	// A build's artefacts are copied out of a stopped container: it keeps
	// the old path, Podman's wait (the VM showed builds with no artefact
	// when they were ended at the report; not understood yet).
	if a.res.Shimmed && len(a.req.Copy.Out) == 0 {
		select {
		case <-a.stderr.when(reportIn(a.nonce)):
		case err := <-a.attached:
			a.attached <- err // for drain
		case <-ctx.Done():
			return 0, false, ctx.Err()
		}
		if rep, ok := shim.ParseReport(a.stderr.Bytes(), a.nonce); ok {
			a.settle()
			a.reported = true
			return int32(rep.Status()), false, nil
		}
	}
	code, err = a.r.Runtime.Wait(ctx, a.id)
	return code, true, err
}

// endedFirst says whether a stop for reason came too late to end the run:
// a deadline's, while the shim's report says the program ended on its own
// (the shim kills it with SIGKILL when asked to stop).
func (a *Armed) endedFirst(reason KillReason) bool {
	if !reason.Deadline() {
		return false
	}
	rep, ok := shim.ParseReport(a.stderr.Bytes(), a.nonce)
	return a.res.Shimmed && ok && rep.Error == "" && rep.Signal == ""
}

// settle marks the run as ended, once: a stop after it does nothing, and
// one already under way is waited for (stopping) before the container is
// removed.
func (a *Armed) settle() {
	a.endMu.Lock()
	defer a.endMu.Unlock()
	if !a.over {
		a.over, a.endedAt = true, time.Now()
	}
}

func outputLimitNote(limit int64) string {
	return fmt.Sprintf("more than %d bytes of output", limit)
}

// sendGo starts the program: the go byte to an armed shim (then the
// interactive stream after it), or the container's start without one.
func (a *Armed) sendGo(ctx context.Context) error {
	if !a.res.Shimmed {
		started := time.Now()
		if err := a.r.Runtime.Start(ctx, a.id); err != nil {
			return err
		}
		a.r.log().Debug("container started", "name", a.res.Container, "id", a.id)
		a.r.phase(PhaseStart, started)
		return nil
	}
	if a.early {
		return nil
	}
	if _, err := a.pipes.control.Write([]byte{shim.GoByte}); err != nil {
		return fmt.Errorf("send the go to %s: %w", a.res.Container, err)
	}
	a.r.log().Debug("go sent", "name", a.res.Container)
	if a.req.StdinStream == nil {
		a.pipes.closeControl()
		return nil
	}
	go func() {
		_, _ = io.Copy(a.pipes.control, a.req.StdinStream)
		a.pipes.closeControl()
	}()
	return nil
}

// watch starts the deadlines: the absolute cap, the caller's stop, and
// the parent cgroup's processor ceiling and no progress, all from the go.
func (a *Armed) watch(running context.Context, start time.Time, base time.Duration) {
	wait := a.req.Wait
	if wait.Wall > 0 {
		t := time.AfterFunc(wait.Wall-time.Since(start), func() {
			a.stop(KilledWallLimit, fmt.Sprintf("%s of elapsed time (absolute cap)", wait.Wall))
		})
		context.AfterFunc(running, func() { t.Stop() })
	}
	if wait.Stop != nil {
		a.stopping.Go(func() {
			select {
			case <-wait.Stop:
				a.stop(KilledByCaller, "")
			case <-running.Done():
			}
		})
	}
	if a.parent != nil && (wait.CPU > 0 || wait.Idle > 0) {
		w := deadlines{dir: a.parent.Path, base: base, cpu: wait.CPU, idle: wait.Idle}
		a.stopping.Go(func() { w.watch(running, a.stop) })
	}
}

// stop ends the run once, with a reason; later calls do nothing, and so
// does any call once the run has ended (settle).
func (a *Armed) stop(reason KillReason, note string) {
	a.endMu.Lock()
	if a.over {
		a.endMu.Unlock()
		return
	}
	cpu := a.cpuSinceGo()
	if reason == KilledWallLimit && cpu > 0 {
		// Little of it says a busy host or a program that waits; much, a
		// program that ran.
		note += fmt.Sprintf(", %.3f s of processor time by then", cpu.Seconds())
	}
	select {
	case a.killed <- stopReason{reason, note, time.Now(), cpu}:
	default:
		a.endMu.Unlock()
		return // already stopping
	}
	// Counted before the run can end: fire waits for it.
	a.stopping.Add(1)
	a.endMu.Unlock()
	defer a.stopping.Done()
	a.killProgram()
	a.r.stop(context.Background(), a.id, a.res.Shimmed)
}

// killProgram kills the program from the host at once, before Podman is
// asked to stop the container: that request crosses the service, conmon
// and the runtime to the shim, seconds on a busy host in which the
// program would run on and be charged for it. The shim reaps it and
// reports as after its own kill; with no program cgroup yet (a stop
// before the shim made it) Podman's stop alone does it, as before.
func (a *Armed) killProgram() {
	if a.parent == nil || !a.res.Shimmed {
		return
	}
	p := programCgroup(a.parent.Path)
	if p == "" {
		return
	}
	if err := cgroupdrv.Kill(p); err != nil {
		a.r.log().Warn("the program's cgroup could not be killed from the host; Podman stops the container", "name", a.res.Container, "error", err)
	}
}

// cpuSinceGo is the parent cgroup's processor time since the go (the
// program's and the shim's), 0 when there is no parent or no reading.
func (a *Armed) cpuSinceGo() time.Duration {
	if a.parent == nil {
		return 0
	}
	v, err := cgroupdrv.CPUUsage(a.parent.Path)
	if err != nil || v < a.base {
		return 0
	}
	return v - a.base
}

// Discard removes a run that was never fired, and everything it holds.
func (a *Armed) Discard(ctx context.Context) {
	if a.fired {
		<-a.cleaned
		return
	}
	a.fired = true
	a.cleanup(ctx)
}

// Done is closed once the run's container, parent cgroup and SELinux level
// are gone.
func (a *Armed) Done() <-chan struct{} { return a.cleaned }

// cleanup removes the container before its parent (which must be empty)
// and releases the level last (the container held it until removed).
func (a *Armed) cleanup(ctx context.Context) {
	a.once.Do(func() {
		defer close(a.cleaned)
		r := a.r
		if a.id != "" {
			began := time.Now()
			if a.reported {
				r.awaitExit(ctx, a.id)
			}
			r.remove(ctx, a.id)
			r.log().Debug("container removed", "name", a.res.Container)
			r.phase(PhaseRemove, began)
		}
		for _, f := range a.cleanups {
			f(ctx)
		}
		if a.parent != nil {
			r.destroy(ctx, *a.parent)
		}
		if a.level != "" {
			r.Levels.Release(a.level)
			r.log().Debug("SELinux level released", "level", a.level, "held", r.Levels.Len())
		}
	})
}
