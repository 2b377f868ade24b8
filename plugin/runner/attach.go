package runner

import (
	"bytes"
	"context"
	"sync"
	"time"
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
