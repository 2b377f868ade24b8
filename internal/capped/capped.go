// Package capped holds the one writer that passes a stream through up to a
// limit: the runner's output cap, the service's kept output and the
// service's whole-input upload all use it. It imports nothing of podjail,
// so the client side (plugin/sandbox) takes it without the Podman bindings.
package capped

import (
	"errors"
	"io"
	"sync"
	"time"
)

// ErrOver is what a Refuse writer's Write returns for a write past the
// limit.
var ErrOver = errors.New("capped: over the limit")

// Writer passes through the first Limit bytes written to it to Dst and
// counts every byte it is offered. It is safe for concurrent use.
//
// By default it never fails a write: a write past the limit keeps the part
// that fits and drops the rest, and a failing Dst (a closed pipe) is
// remembered, not returned, so the counting and the cap still hold. That is
// what an attach stream needs: it must be drained to its end, or conmon
// blocks writing to it and the container's exit is held up for minutes.
type Writer struct {
	Dst   io.Writer
	Limit int64
	// Exceeded, if not nil, is called once (from the writing goroutine)
	// when a write first goes past Limit.
	Exceeded func()
	// Refuse makes a write that would go past Limit fail whole with
	// ErrOver (none of it is written or counted), and Dst's errors fail
	// the write they come from: for a copy that should stop at the cap.
	Refuse bool

	mu     sync.Mutex
	n      int64 // bytes offered (with Refuse: accepted)
	over   bool
	dstErr error
	first  time.Time // when the first byte came
}

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() && len(p) > 0 {
		w.first = time.Now()
	}
	room := max(w.Limit-w.n, 0)
	if w.Refuse {
		if int64(len(p)) > room {
			w.exceed()
			return 0, ErrOver
		}
		w.n += int64(len(p))
		return w.Dst.Write(p)
	}
	w.n += int64(len(p))
	keep := p[:min(int64(len(p)), room)]
	if w.dstErr == nil && len(keep) > 0 {
		// A failing destination (a closed pipe) must not stop the
		// program's stream: we still count, so the cap still holds.
		_, w.dstErr = w.Dst.Write(keep)
	}
	if int64(len(p)) > room {
		w.exceed()
	}
	return len(p), nil
}

// exceed marks the cap passed and calls Exceeded the first time.
func (w *Writer) exceed() {
	if w.over {
		return
	}
	w.over = true
	if w.Exceeded != nil {
		w.Exceeded()
	}
}

// Result returns the bytes offered, whether the cap was passed, and the
// first error Dst returned (without Refuse; with it, Write returned it).
func (w *Writer) Result() (int64, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.over, w.dstErr
}

// Over reports whether a write went past the cap.
func (w *Writer) Over() bool {
	_, over, _ := w.Result()
	return over
}

// FirstByte is when the first byte came; zero if none did.
func (w *Writer) FirstByte() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}
