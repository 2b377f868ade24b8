package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Warm keeps, for requests that come again with the same shape (image,
// command, limits, mounts: all but the input and where stdout goes), one
// run armed ahead: a caller of that shape takes the armed container and
// only sends the go, and the next one is armed behind it, off everyone's
// critical path. Every run is still a fresh container used once; its
// input is a file of its own, mounted read-only, empty until the caller's
// input is copied into it just before the go. A long-lived service (podjail
// serve) keeps one; a one-shot command has nothing to gain.
//
// Warm's zero value is not usable: make one with NewWarm.
type Warm struct {
	r   *Runner
	dir string

	mu     sync.Mutex
	slots  map[string]*warmSlot
	closed bool
	busy   sync.WaitGroup // arms under way and cleanups of fired runs
}

// warmSlot is one shape's run being armed or armed.
type warmSlot struct {
	next *warmRun
	used time.Time
}

// warmRun is one run armed ahead, or being armed.
type warmRun struct {
	ready  chan struct{}   // closed when armed or failed
	done   chan struct{}   // closed when its caller fired it or let it go
	after  <-chan struct{} // arming starts once it is closed (nil: at once)
	armed  *Armed
	err    error
	input  string // its own input file, mounted read-only
	output *lateWriter
}

// Limits of what Warm holds: runs armed at once (one per shape), and how
// long one waits for its caller before it is removed.
const (
	warmShapes = 4
	warmIdle   = 90 * time.Second
)

// NewWarm keeps armed runs of r, their input files in dir ("" for
// os.TempDir(); it must be readable by the Podman service).
func NewWarm(r *Runner, dir string) *Warm {
	return &Warm{r: r, dir: dir, slots: map[string]*warmSlot{}}
}

// Run runs req as Runner.Run does, taking the run armed for its shape if
// there is one, and arms the next one for that shape. A request that
// streams stdin, can be stopped, prepares or collects files (a build:
// copying into a running container costs Podman more than the start it
// would save) or names a stderr file runs cold.
func (w *Warm) Run(ctx context.Context, req RunRequest) (RunResult, error) {
	if err := ctx.Err(); err != nil {
		return RunResult{Image: req.Image}, err
	}
	if err := req.Check(); err != nil {
		return RunResult{Image: req.Image}, err
	}
	key, ok := warmKey(req)
	if !ok {
		return w.r.Run(ctx, req)
	}
	run := w.take(ctx, key, req)
	if run == nil {
		return w.r.Run(ctx, req)
	}
	select {
	case <-run.ready:
	case <-ctx.Done():
		go w.release(run)
		return RunResult{Image: req.Image}, ctx.Err()
	}
	if run.err != nil {
		// Arming failed ahead of the caller (the runtime, an image gone):
		// a cold run reports what is wrong now.
		w.release(run)
		return w.r.Run(ctx, req)
	}
	if err := fillInput(run.input, req.InputFile); err != nil {
		w.release(run)
		return RunResult{Image: req.Image}, err
	}
	run.output.set(req.Output)
	res, err := run.armed.Fire(ctx)
	close(run.done)
	w.afterwards(run)
	return res, err
}

// take claims the run armed (or being armed) for key and arms the next
// one behind it once the claimed one has run: arming is work for the
// machine, and it must not slow the run of the caller who is waiting.
// nil when Warm is closed.
// The caller holds one count of busy until afterwards or release.
func (w *Warm) take(ctx context.Context, key string, req RunRequest) *warmRun {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.busy.Add(1)
	s := w.slots[key]
	if s == nil {
		w.evictLocked()
		s = &warmSlot{}
		w.slots[key] = s
	}
	s.used = time.Now()
	claimed := s.next
	if claimed != nil && !claimed.arming() {
		// The spare waits for the run before it to end: this caller
		// came while that one runs (calls at once) and arms its own now;
		// the spare stays for whoever comes next.
		return w.armLocked(ctx, req, nil)
	}
	if claimed == nil {
		claimed = w.armLocked(ctx, req, nil)
	}
	s.next = w.armLocked(ctx, req, claimed.done)
	w.expire(key, s, s.next)
	return claimed
}

// armLocked starts arming req's shape in the background, once after is
// closed (nil: now).
func (w *Warm) armLocked(ctx context.Context, req RunRequest, after <-chan struct{}) *warmRun {
	run := &warmRun{ready: make(chan struct{}), done: make(chan struct{}), after: after, output: &lateWriter{}}
	w.busy.Add(1)
	go func() {
		defer w.busy.Done()
		defer close(run.ready)
		if after != nil {
			<-after
		}
		f, err := os.CreateTemp(w.dir, "podjail-warm-input-")
		if err == nil {
			run.input = f.Name()
			err = errors.Join(f.Chmod(0o644), f.Close())
		}
		if err != nil {
			run.err = err
			return
		}
		req := req
		req.InputFile, req.Output = run.input, run.output
		// Armed for a caller that comes later: not bound to this one.
		run.armed, run.err = w.r.Arm(context.WithoutCancel(ctx), req)
	}()
	return run
}

// arming says whether run is being armed or armed, rather than waiting for
// the run before it.
func (run *warmRun) arming() bool {
	if run.after == nil {
		return true
	}
	select {
	case <-run.after:
		return true
	default:
		return false
	}
}

// expire removes run if no caller took it within warmIdle.
func (w *Warm) expire(key string, s *warmSlot, run *warmRun) {
	time.AfterFunc(warmIdle, func() {
		w.mu.Lock()
		idle := s.next == run && w.slots[key] == s
		if idle {
			delete(w.slots, key)
			w.busy.Add(1)
		}
		w.mu.Unlock()
		if idle {
			w.discard(run)
			w.busy.Done()
		}
	})
}

// evictLocked makes room for one more shape: the least recently used one
// goes.
func (w *Warm) evictLocked() {
	if len(w.slots) < warmShapes {
		return
	}
	var oldest string
	for k, s := range w.slots {
		if oldest == "" || s.used.Before(w.slots[oldest].used) {
			oldest = k
		}
	}
	if s := w.slots[oldest]; s.next != nil {
		w.busy.Add(1)
		go func() { w.discard(s.next); w.busy.Done() }()
	}
	delete(w.slots, oldest)
}

// discard removes a run that will not be fired, once it is armed.
func (w *Warm) discard(run *warmRun) {
	<-run.ready
	if run.armed != nil {
		run.armed.Discard(context.Background())
	}
	if run.input != "" {
		_ = os.Remove(run.input)
	}
}

// afterwards removes the input file once the fired run's container is
// gone, off the caller's path, and ends the caller's count.
func (w *Warm) afterwards(run *warmRun) {
	go func() {
		defer w.busy.Done()
		<-run.armed.Done()
		_ = os.Remove(run.input)
	}()
}

// release drops a claimed run that will not be fired and ends the
// caller's count.
func (w *Warm) release(run *warmRun) {
	w.discard(run)
	close(run.done)
	w.busy.Done()
}

// Close removes every armed run and waits, until ctx ends, for the ones
// being armed and the cleanups under way. Runs after Close are cold.
func (w *Warm) Close(ctx context.Context) error {
	w.mu.Lock()
	w.closed = true
	var runs []*warmRun
	for _, s := range w.slots {
		if s.next != nil {
			runs = append(runs, s.next)
		}
	}
	w.slots = map[string]*warmSlot{}
	w.mu.Unlock()
	for _, run := range runs {
		w.discard(run)
	}
	done := make(chan struct{})
	go func() { w.busy.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("armed runs still being removed: %w", ctx.Err())
	}
}

// warmKey is req's shape: everything but the input and the output's
// destination. ok is false for requests Warm does not take.
func warmKey(req RunRequest) (key string, ok bool) {
	if req.StdinStream != nil || req.Stop != nil || req.Prepare != nil || req.Collect != nil || req.StderrFile != "" {
		return "", false
	}
	req.InputFile, req.Output = "", nil
	return fmt.Sprintf("%#v", req), true
}

// fillInput copies the caller's input (a checked regular file; "" for
// none) into a warm run's own input file, which its shim holds open.
func fillInput(dst, src string) error {
	if src == "" {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return &RequestError{"input", err}
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// lateWriter is stdout whose destination is known only when the run is
// fired; nothing is written before (the program does not exist yet).
type lateWriter struct {
	mu  sync.Mutex
	dst io.Writer
}

func (l *lateWriter) set(dst io.Writer) {
	l.mu.Lock()
	l.dst = dst
	l.mu.Unlock()
}

func (l *lateWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	dst := l.dst
	l.mu.Unlock()
	if dst == nil {
		return len(p), nil
	}
	return dst.Write(p)
}
