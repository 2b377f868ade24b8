package engine

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/podjail/podjail/plugin/sandbox"
)

// Lazy is an Engine that connects on first use and, while Podman cannot be
// reached, tries again on every call: a plugin can start before Podman's
// socket and still serve once it is up.
type Lazy struct {
	opts Options
	mu   sync.Mutex
	eng  *Engine
	// ready is eng once made, read without waiting for a Connect under
	// way (a scrape of the metrics while Podman does not answer).
	ready atomic.Pointer[Engine]
}

var _ sandbox.Engine = (*Lazy)(nil)

// NewLazy returns a Lazy engine; nothing is done until Connect or a call.
func NewLazy(opts Options) *Lazy { return &Lazy{opts: opts} }

// Connect makes the engine now, if it is not made yet.
func (l *Lazy) Connect(ctx context.Context) (*Engine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.eng != nil {
		return l.eng, nil
	}
	e, err := New(ctx, l.opts)
	if err != nil {
		return nil, err
	}
	l.eng = e
	l.ready.Store(e)
	return e, nil
}

func (l *Lazy) Capabilities(ctx context.Context) (sandbox.Capabilities, error) {
	e, err := l.Connect(ctx)
	if err != nil {
		return sandbox.Capabilities{}, err
	}
	return e.Capabilities(ctx)
}

func (l *Lazy) Build(ctx context.Context, language string, source []byte, dir string) (sandbox.Build, string, error) {
	e, err := l.Connect(ctx)
	if err != nil {
		return sandbox.Build{}, "", err
	}
	return e.Build(ctx, language, source, dir)
}

func (l *Lazy) Run(ctx context.Context, x sandbox.Execution) (sandbox.RunResult, error) {
	e, err := l.Connect(ctx)
	if err != nil {
		return sandbox.RunResult{}, err
	}
	return e.Run(ctx, x)
}

func (l *Lazy) Exec(ctx context.Context, req sandbox.ExecRequest, stdout io.Writer) (sandbox.ExecResult, error) {
	e, err := l.Connect(ctx)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	return e.Exec(ctx, req, stdout)
}

func (l *Lazy) Judge(ctx context.Context, req sandbox.JudgeRequest, progress func(sandbox.TestResult)) (sandbox.JudgeResult, error) {
	e, err := l.Connect(ctx)
	if err != nil {
		return sandbox.JudgeResult{}, err
	}
	return e.Judge(ctx, req, progress)
}

// made is the engine if it was made, else nil.
func (l *Lazy) made() *Engine { return l.ready.Load() }

// ArmedReady is how many runs are armed ahead and wait for their caller
// (runner.Warm.Ready); 0 before the engine is made or without Warm.
func (l *Lazy) ArmedReady() int {
	if e := l.made(); e != nil && e.warm != nil {
		return e.warm.Ready()
	}
	return 0
}

// BusReconnects is how many times the runner's connection to systemd was
// made again (plugin.Runner.BusReconnects); 0 before the engine is made.
func (l *Lazy) BusReconnects() uint64 {
	if e := l.made(); e != nil {
		return e.runner.BusReconnects()
	}
	return 0
}

// Close sweeps, once more, what dead podjail instances left (see
// plugin.Runner.Close), if the engine was ever made.
func (l *Lazy) Close(ctx context.Context) {
	if e := l.made(); e != nil {
		if e.warm != nil {
			if err := e.warm.Close(ctx); err != nil && l.opts.Log != nil {
				l.opts.Log.Warn("armed runs not all removed", "error", err)
			}
		}
		e.runner.Close(ctx)
	}
}
