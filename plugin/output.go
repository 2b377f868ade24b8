package plugin

import (
	"errors"
	"io"
	"sync"
)

// errOutputLimit stops the attach stream once the cap is passed.
var errOutputLimit = errors.New("output limit exceeded")

// cappedWriter passes through the first limit bytes written to it, counts
// every byte it is offered, and calls exceeded once (from the writing
// goroutine) when a write would go past the limit.
type cappedWriter struct {
	dst      io.Writer
	limit    int64
	exceeded func()

	mu     sync.Mutex
	n      int64 // bytes offered
	over   bool
	dstErr error
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		return 0, errOutputLimit
	}
	room := w.limit - w.n
	w.n += int64(len(p))
	keep := p
	if int64(len(keep)) > room {
		keep = keep[:room]
	}
	if w.dstErr == nil && len(keep) > 0 {
		// A failing destination (a closed pipe) must not stop the
		// program's stream: we still count, so the cap still holds.
		_, w.dstErr = w.dst.Write(keep)
	}
	if int64(len(p)) > room {
		w.over = true
		w.exceeded()
		return len(keep), errOutputLimit
	}
	return len(p), nil
}

// result returns the bytes offered and whether the cap was passed.
func (w *cappedWriter) result() (int64, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.over, w.dstErr
}
