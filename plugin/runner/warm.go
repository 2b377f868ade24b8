package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
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
	r      *Runner
	dir    string
	shapes int // kept armed at most

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
	input  string   // its own input file, mounted read-only
	stderr string   // its own stderr file, when the shape has one
	dirs   []string // its own directories for the writable binds, in order
	output *lateWriter
	copied []map[string]entryState // what went into dirs, per dir
	ahead  bool                    // arming began before its caller came
}

// DefaultWarmShapes is how many shapes a Warm keeps armed at once (one run
// each) unless told otherwise: a run of each of a few languages, or a
// build of each.
const DefaultWarmShapes = 4

// warmIdle is how long an armed run waits for its caller before it is
// removed.
const warmIdle = 90 * time.Second

// NewWarm keeps armed runs of r, one for each of at most shapes shapes
// (the least recently used gives way; 0: DefaultWarmShapes), their input
// files in dir ("" for os.TempDir(); it must be readable by the Podman
// service). plugin.NewWarm also gives it to a judging Runner, whose builds
// (Build, BuildFiles, Judge's) and RunFiles take its armed runs from then
// on.
func NewWarm(r *Runner, dir string, shapes int) *Warm {
	return &Warm{r: r, dir: dir, shapes: cmp.Or(shapes, DefaultWarmShapes), slots: map[string]*warmSlot{}}
}

// Run runs req as Runner.Run does, taking the run armed for its shape if
// there is one, and arms the next one for that shape. The armed run has
// files and directories of its own where req names the caller's: the
// input, the stderr file and the writable binds are copied in before the
// go, and the stderr and what the program changed in the binds are copied
// back after it ended (exchange.go); the files a build copies out (Copy.Out,
// Copy.OutDir) are the caller's. A request that streams stdin, can be
// stopped, or copies files in (Copy.In: copying into a running container
// costs Podman more than the start it would save; a build's sources come
// as Copy.Unpack instead) runs cold, and so does one whose writable bind
// holds a named pipe.
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
	obs := w.r.observe()
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
		obs.Armed(ArmedMissed)
		return w.r.Run(ctx, req)
	}
	if err := fillInput(run.input, req.InputFile); err != nil {
		w.release(run)
		return RunResult{Image: req.Image}, err
	}
	if err := run.exchangeIn(req); err != nil {
		w.release(run)
		if errors.Is(err, errNotCopyable) {
			w.r.log().Debug("running cold: a directory cannot be copied", "why", err)
			obs.Armed(ArmedMissed)
			return w.r.Run(ctx, req)
		}
		return RunResult{Image: req.Image}, err
	}
	w.r.log().Debug("running armed", "ahead", run.ahead, "image", req.Image, "copied_dirs", len(run.dirs))
	if run.ahead {
		obs.Armed(ArmedTaken)
	} else {
		obs.Armed(ArmedMissed)
	}
	run.output.set(req.Output)
	// What is copied out, and where to: the caller's (the shape says only
	// whether anything is).
	run.armed.req.Copy.Out, run.armed.req.Copy.OutDir = req.Copy.Out, req.Copy.OutDir
	res, err := run.armed.Fire(ctx)
	if xerr := run.exchangeOut(context.WithoutCancel(ctx), req, w.r.log()); xerr != nil && err == nil {
		err = fmt.Errorf("giving back what the run wrote: %w", xerr)
	}
	close(run.done)
	w.afterwards(run)
	return res, err
}

// exchangeIn copies the caller's writable directories into the run's own.
func (run *warmRun) exchangeIn(req RunRequest) error {
	for i, b := range writableBinds(req) {
		in, err := copyIn(run.dirs[i], b.Source)
		if err != nil {
			return err
		}
		run.copied = append(run.copied, in)
	}
	return nil
}

// exchangeOut gives the caller what the program changed in the run's
// directories and appends its stderr to the caller's file, once the
// program ended.
func (run *warmRun) exchangeOut(ctx context.Context, req RunRequest, log hclog.Logger) error {
	var handErr error
	if len(run.dirs) > 0 && os.Geteuid() != 0 {
		// Made by the sandbox's uid: a rootless service may not read it.
		// Root reads it as it is, and its copies back are root's anyway.
		handErr = HandBack(ctx, run.dirs)
	}
	var errs []error
	for i, b := range writableBinds(req) {
		if i < len(run.copied) {
			errs = append(errs, copyBack(b.Source, run.dirs[i], run.copied[i]))
		}
	}
	if req.StderrFile != "" {
		errs = append(errs, appendFile(req.StderrFile, run.stderr))
	}
	if err := errors.Join(errs...); err != nil {
		return errors.Join(handErr, err)
	}
	if handErr != nil {
		// Everything came back all the same (the program's files were
		// readable); what is left may outlast the run's directories.
		log.Warn("could not take back what the program made", "error", handErr)
	}
	return nil
}

// writableBinds are the binds a warm run exchanges, in order.
func writableBinds(req RunRequest) []bindings.Bind {
	var out []bindings.Bind
	for _, b := range req.Binds {
		if b.Writable {
			out = append(out, b)
		}
	}
	return out
}

// appendFile appends what src holds to dst, an existing file.
func appendFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
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
	} else {
		claimed.ahead = true
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
		req := req
		if run.err = run.makeOwnFiles(w.dir, &req); run.err != nil {
			return
		}
		req.InputFile, req.Output = run.input, run.output
		// Armed for a caller that comes later: not bound to this one.
		run.armed, run.err = w.r.Arm(context.WithoutCancel(ctx), req)
	}()
	return run
}

// makeOwnFiles makes the run's own input file and, where req names the
// caller's, its own stderr file and directories, and points req at them.
func (run *warmRun) makeOwnFiles(dir string, req *RunRequest) (err error) {
	// Both 0600: the shim opens them as the container's root, which is
	// this process's user (see StderrFile).
	if run.input, err = ownFile(dir, "podjail-warm-input-", 0o600); err != nil {
		return err
	}
	if req.StderrFile != "" {
		if run.stderr, err = ownFile(dir, "podjail-warm-stderr-", 0o600); err != nil {
			return err
		}
		req.StderrFile = run.stderr
	}
	req.Binds = append([]bindings.Bind(nil), req.Binds...)
	for i, b := range req.Binds {
		if !b.Writable {
			continue
		}
		d, err := os.MkdirTemp(dir, "podjail-warm-dir-")
		if err != nil {
			return err
		}
		run.dirs = append(run.dirs, d)
		req.Binds[i].Source = d
	}
	return nil
}

// ownFile makes an empty file in dir with mode (past the umask); its name
// is returned also on error, for removeOwnFiles.
func ownFile(dir, pattern string, mode os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	return f.Name(), errors.Join(f.Chmod(mode), f.Close())
}

// removeOwnFiles removes what makeOwnFiles made.
func (run *warmRun) removeOwnFiles() {
	for _, p := range append([]string{run.input, run.stderr}, run.dirs...) {
		if p != "" {
			_ = os.RemoveAll(p)
		}
	}
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
			w.discard(run, ArmedIdle)
			w.busy.Done()
		}
	})
}

// evictLocked makes room for one more shape: the least recently used one
// goes.
func (w *Warm) evictLocked() {
	if len(w.slots) < w.shapes {
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
		go func() { w.discard(s.next, ArmedEvicted); w.busy.Done() }()
	}
	delete(w.slots, oldest)
}

// discard removes a run that will not be fired, once it is armed, and
// tells the Observer why (an event of ArmedWasted).
func (w *Warm) discard(run *warmRun, why ArmedEvent) {
	<-run.ready
	if run.armed != nil {
		run.armed.Discard(context.Background())
		w.r.observe().Armed(why)
	}
	run.removeOwnFiles()
}

// afterwards removes the input file once the fired run's container is
// gone, off the caller's path, and ends the caller's count.
func (w *Warm) afterwards(run *warmRun) {
	go func() {
		defer w.busy.Done()
		<-run.armed.Done()
		run.removeOwnFiles()
	}()
}

// release drops a claimed run that will not be fired and ends the
// caller's count.
func (w *Warm) release(run *warmRun) {
	w.discard(run, ArmedReleased)
	close(run.done)
	w.busy.Done()
}

// Ready is how many runs are armed ahead and wait for their caller.
func (w *Warm) Ready() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, s := range w.slots {
		if s.next == nil {
			continue
		}
		select {
		case <-s.next.ready:
			if s.next.armed != nil {
				n++
			}
		default:
		}
	}
	return n
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
		w.discard(run, ArmedClosed)
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

// warmKey is req's shape: everything but the input, the output's
// destination and which files are copied out where. ok is false for
// requests Warm does not take.
func warmKey(req RunRequest) (key string, ok bool) {
	if req.StdinStream != nil || req.Wait.Stop != nil || len(req.Copy.In) > 0 {
		return "", false
	}
	collects := len(req.Copy.Out) > 0
	req.InputFile, req.Output, req.Copy.Out, req.Copy.OutDir = "", nil, nil, ""
	if req.StderrFile != "" {
		req.StderrFile = "(the caller's)"
	}
	req.Binds = append([]bindings.Bind(nil), req.Binds...)
	for i := range req.Binds {
		if req.Binds[i].Writable {
			req.Binds[i].Source = "(the caller's)"
		}
	}
	return fmt.Sprintf("%#v collects=%v", req, collects), true
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
