package runner

import (
	"io"
	"sync"
	"time"
)

// cappedWriter passes through the first limit bytes written to it, counts
// every byte it is offered, and calls exceeded once (from the writing
// goroutine) when a write goes past the limit. It never fails a write: the
// attach stream must be drained to its end, or conmon blocks writing to it
// and the container's exit is held up for minutes.
type cappedWriter struct {
	dst      io.Writer
	limit    int64
	exceeded func()

	mu     sync.Mutex
	n      int64 // bytes offered
	over   bool
	dstErr error
	first  time.Time // when the first byte came
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() && len(p) > 0 {
		w.first = time.Now()
	}
	room := max(w.limit-w.n, 0)
	w.n += int64(len(p))
	keep := p[:min(int64(len(p)), room)]
	if w.dstErr == nil && len(keep) > 0 {
		// A failing destination (a closed pipe) must not stop the
		// program's stream: we still count, so the cap still holds.
		_, w.dstErr = w.dst.Write(keep)
	}
	if int64(len(p)) > room && !w.over {
		w.over = true
		w.exceeded()
	}
	return len(p), nil
}

// result returns the bytes offered and whether the cap was passed.
func (w *cappedWriter) result() (int64, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.over, w.dstErr
}

// firstByte is when the first byte came; zero if none did.
func (w *cappedWriter) firstByte() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}
