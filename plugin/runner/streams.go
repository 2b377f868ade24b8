package runner

// A run's streams: its stderr (the shim's status pipe, or Podman's attach
// for a run without the shim), the armed line and the report in it, the
// drain at the end; and the stop sent to a container.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/podjail/podjail/internal/capped"
	"github.com/podjail/podjail/shim"
)

// stopGrace is how long the shim gets, after SIGTERM, to kill the program
// and write its report before the container is killed outright.
const stopGrace = 5 * time.Second

// stop ends a running container. Under the shim it first asks the shim
// (SIGTERM to pid 1), which kills the program and still reports; a shim
// that has not ended after stopGrace is killed with the container.
func (r *Runner) stop(ctx context.Context, id string, shimmed bool) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if shimmed {
		if err := r.Runtime.Kill(kctx, id, "TERM"); err != nil {
			r.log().Error("stop failed", "id", id, "error", err)
		}
		wctx, wcancel := context.WithTimeout(kctx, stopGrace)
		_, err := r.Runtime.Wait(wctx, id)
		wcancel()
		if err == nil {
			return
		}
	}
	if err := r.Runtime.Kill(kctx, id, "KILL"); err != nil {
		r.log().Error("kill failed", "id", id, "error", err)
	}
}

// tailBuffer keeps the last keep bytes written to it.
type tailBuffer struct {
	keep    int
	mu      sync.Mutex
	buf     []byte
	watches []watch // lines waited for (found)
}

type watch struct {
	match func(buf []byte) bool
	ch    chan struct{}
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	kept := t.watches[:0]
	for _, w := range t.watches {
		if w.match(t.buf) {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	t.watches = kept
	if over := len(t.buf) - t.keep; over > 0 {
		// Keep from the first line start past the cut, so a line is
		// never kept cut in half.
		rest := t.buf[over:]
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[i+1:]
		}
		t.buf = append(t.buf[:0], rest...)
	}
	return len(p), nil
}

// Bytes returns a copy of what is kept.
func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf)
}

// attach connects the streams before the start: a shimmed run's status
// pipe, or Podman's attach for a run without the shim (with log driver
// none nothing is kept for later). Either one's end is the run's end.
func (a *Armed) attach(ctx context.Context, in io.Reader) error {
	req := a.req
	a.stderr = &tailBuffer{keep: stderrKeep}
	a.out = &capped.Writer{Dst: req.Output, Limit: req.Limits.Output, Exceeded: func() {
		go a.stop(KilledOutputLimit, outputLimitNote(req.Limits.Output))
	}}
	a.attached = make(chan error, 1)
	if a.pipes != nil {
		// Its stdout is the stdout pipe's, read once it is armed.
		go func() { a.attached <- a.pipes.readStatus(a.stderr) }()
		return nil
	}
	// The stream outlives Arm's own deadline: it carries the whole run.
	sctx, detach := context.WithCancel(context.WithoutCancel(ctx))
	a.cleanups = append(a.cleanups, func(context.Context) { detach() })
	ready := make(chan struct{})
	go func() { a.attached <- a.r.Runtime.Attach(sctx, a.id, in, a.out, a.stderr, ready) }()
	select {
	case <-ready:
		return nil
	case err := <-a.attached:
		a.attached <- err
		return fmt.Errorf("attach before start: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// armCheckEvery is how often a shim slow to arm has its container looked
// at: one that ended before it opened its status pipe (a Go runtime the
// seccomp profile kills at start, say) has no stream to end.
const armCheckEvery = 5 * time.Second

// awaitArmed waits for the shim's armed line. A container that ends
// first is a shim that failed: Fire reports it from the shim's report,
// or says there was none.
func (a *Armed) awaitArmed(ctx context.Context) error {
	check := time.NewTicker(armCheckEvery)
	defer check.Stop()
	armed := a.stderr.found(shim.ArmedLine(a.nonce))
	for {
		select {
		case <-armed:
			a.r.log().Debug("armed", "name", a.res.Container)
			return nil
		case err := <-a.attached:
			a.attached <- err
			a.early = true
			return a.endedEarly(ctx, err)
		case <-check.C:
			if a.pipes == nil {
				continue // without the shim nothing arms: not called
			}
			if st, err := a.r.Runtime.Inspect(ctx, a.id); err == nil && !st.Running {
				a.r.log().Warn("the shim's container ended before its status pipe was opened", "name", a.res.Container, "exit_code", st.ExitCode)
				a.pipes.endStatus() // the read ends: the stream's end
			}
		case <-ctx.Done():
			return fmt.Errorf("arm %s: the shim did not get ready: %w", a.res.Container, ctx.Err())
		}
	}
}

// earlyExitWait bounds waiting for the container of a shim whose status
// pipe ended before its armed line: a shim that failed is gone in
// moments.
const earlyExitWait = 5 * time.Second

// endedEarly decides on a shim's stream that ended before its armed line.
// With the shim's report, or its container gone, the shim failed: Fire
// says how. A container still running with neither has a shim that can
// no longer be heard: it would hold the run until its absolute cap, and a
// build's wall cap would blame the submission. That is ours, and said at
// once.
func (a *Armed) endedEarly(ctx context.Context, readErr error) error {
	if a.pipes == nil {
		return nil
	}
	if _, ok := shim.ParseReport(a.stderr.Bytes(), a.nonce); ok {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, earlyExitWait)
	defer cancel()
	if _, err := a.r.Runtime.Wait(wctx, a.id); err == nil {
		return nil
	}
	a.r.log().Warn("the shim's status pipe ended before its armed line, its container still running", "name", a.res.Container, "read_error", readErr)
	return MarkHost(fmt.Errorf("arm %s: the shim's status pipe ended before its armed line and its container runs on, silent (the read: %v); the run is removed", a.res.Container, readErr))
}

// reportIn matches a stderr holding the shim's whole report line.
func reportIn(nonce string) func(buf []byte) bool {
	marker := []byte(shim.ReportPrefix + " " + nonce + " ")
	return func(buf []byte) bool {
		i := bytes.LastIndex(buf, marker)
		if i < 0 {
			return false
		}
		line, _, whole := bytes.Cut(buf[i:], []byte("\n"))
		if !whole {
			return false
		}
		_, ok := shim.ParseReport(line, nonce)
		return ok
	}
}

// drain waits for the stderr stream (the status pipe, or the attach) and
// the stdout pipe to deliver what is left; they normally end at once, but
// are bounded in case a stream is held open.
func (a *Armed) drain(start time.Time) error {
	bound, cancel := context.WithTimeout(context.Background(), attachDrainTimeout)
	defer cancel()
	select {
	case err := <-a.attached:
		if err != nil {
			a.r.log().Warn("the run's stderr stream ended with an error", "id", a.id, "error", err)
		}
	case <-bound.Done():
		a.r.log().Warn("the run's stderr stream still open after the container stopped", "id", a.id)
	}
	if a.stdout != nil {
		select {
		case err := <-a.stdout:
			if err != nil {
				a.r.log().Warn("reading the stdout pipe failed", "id", a.id, "error", err)
			}
		case <-bound.Done():
			a.r.log().Warn("stdout pipe still open after the container stopped", "id", a.id)
		}
	}
	n, _, dstErr := a.out.Result()
	a.res.OutputBytes = n
	if first := a.out.FirstByte(); !first.IsZero() {
		a.res.FirstOutput = first.Sub(start)
	}
	return dstErr
}

// found returns a channel closed once line has been written to t.
func (t *tailBuffer) found(line string) <-chan struct{} {
	l := []byte(line)
	return t.when(func(buf []byte) bool { return bytes.Contains(buf, l) })
}

// when returns a channel closed once what is kept matches.
func (t *tailBuffer) when(match func(buf []byte) bool) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := make(chan struct{})
	if match(t.buf) {
		close(ch)
		return ch
	}
	t.watches = append(t.watches, watch{match, ch})
	return ch
}
