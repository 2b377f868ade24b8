package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// stopGrace is how long the shim gets, after SIGTERM, to kill the program
// and write its report before the container is killed outright.
const stopGrace = 5 * time.Second

// attachAndWait attaches before starting (with log driver none nothing is
// kept for later), starts, and waits for the container to stop.
func (r *Runner) attachAndWait(ctx context.Context, id string, in io.Reader, stderr io.Writer, parentDir string, req RunRequest, res *RunResult) error {
	type stopReason struct {
		reason, note string
		at           time.Time
	}
	killed := make(chan stopReason, 1)
	stop := func(reason, note string) {
		select {
		case killed <- stopReason{reason, note, time.Now()}:
		default:
			return // already stopping
		}
		r.stop(ctx, id, res.Shimmed)
	}
	// The stop runs beside the stream so the stream keeps being drained.
	var stopping sync.WaitGroup
	defer stopping.Wait()
	out := &cappedWriter{dst: req.Output, limit: req.OutputLimit, exceeded: func() {
		stopping.Go(func() { stop(KilledOutputLimit, fmt.Sprintf("more than %d bytes of output", req.OutputLimit)) })
	}}

	attachCtx, stopAttach := context.WithCancel(ctx)
	defer stopAttach()
	ready := make(chan struct{})
	attached := make(chan error, 1)
	go func() { attached <- r.Runtime.Attach(attachCtx, id, in, out, stderr, ready) }()
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
		t := time.AfterFunc(req.WallLimit, func() {
			stop(KilledWallLimit, fmt.Sprintf("%s of elapsed time (absolute cap)", req.WallLimit))
		})
		defer t.Stop()
	}
	running, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	if req.Stop != nil {
		stopping.Go(func() {
			select {
			case <-req.Stop:
				stop(req.StopReason, "")
			case <-running.Done():
			}
		})
	}
	if parentDir != "" && (req.CPULimit > 0 || req.IdleLimit > 0) {
		w := deadlines{dir: parentDir, cpu: req.CPULimit, idle: req.IdleLimit}
		stopping.Go(func() { w.watch(running, stop) })
	}
	code, err := r.Runtime.Wait(ctx, id)
	res.Wall = time.Since(start)
	r.log().Debug("container stopped", "name", res.Container, "wall", res.Wall)
	stopWatching()
	if err != nil {
		return err
	}
	res.ContainerExitCode, res.ExitCode = code, code

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
	if first := out.firstByte(); !first.IsZero() {
		res.FirstOutput = first.Sub(start)
	}
	select {
	case k := <-killed:
		res.Killed, res.KilledNote, res.Signal = k.reason, k.note, "SIGKILL"
		res.StoppedAt = k.at.Sub(start)
	default:
		if code > 128 && code < 128+65 {
			res.Signal = unix.SignalName(unix.Signal(code - 128))
		}
	}
	if st, err := r.Runtime.Inspect(ctx, id); err == nil {
		res.OOMKilledFlag = st.OOMKilled
	}
	// A closed pipe is the other end of an interactive pair having ended.
	if dstErr != nil && !errors.Is(dstErr, io.ErrClosedPipe) {
		return fmt.Errorf("write program output: %w", dstErr)
	}
	return nil
}

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
	keep int
	mu   sync.Mutex
	buf  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
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
