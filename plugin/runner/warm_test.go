package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

// echoInput is a program that, at its go, prints its input file as it is
// then: a warm run's input must be in place before the go.
func echoInput(bindings.Spec) runnertest.Program {
	return runnertest.Program{CPU: time.Millisecond, AtGo: func(spec bindings.Spec) runnertest.Program {
		data, err := os.ReadFile(spec.InputFile)
		if err != nil {
			return runnertest.Program{Exit: 9}
		}
		return runnertest.Program{Stdout: data, CPU: time.Millisecond}
	}}
}

func inputFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Three runs of one shape: the first arms its own container, each later
// one fires the container armed behind the one before, its input copied
// in before the go; one spare is left armed, never started, until Close,
// which removes it and every input file.
func TestWarmTakesTheRunArmedAhead(t *testing.T) {
	r, rt, cg := fakeRunner(t, echoInput)
	dir := t.TempDir()
	w := NewWarm(r, dir, 0)
	ctx := context.Background()
	var fired []string
	for i, text := range []string{"first\n", "second\n", "third\n"} {
		sparesArmed(w) // a caller that comes while its run is armed still takes it, but cannot show it
		before := rt.State().Created
		var out bytes.Buffer
		res, err := w.Run(ctx, RunRequest{Image: "img", Command: []string{"/p"}, InputFile: inputFile(t, text), Output: &out, Limits: Limits{Time: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != text || res.Status() != StatusExited || res.ExitCode != 0 {
			t.Errorf("run %d: output %q, status %s, exit %d; want %q, exited 0", i+1, out.String(), res.Status(), res.ExitCode, text)
		}
		if i > 0 && !slices.Contains(before, res.ContainerID) {
			t.Errorf("run %d fired %s, not a container armed before it came (%v)", i+1, res.ContainerID, before)
		}
		fired = append(fired, res.ContainerID)
	}
	sparesArmed(w)
	s := rt.State()
	if !slices.Equal(s.Goes, fired) || len(s.Started) != 4 {
		t.Errorf("goes %v, started %v; want the three fired and one spare armed", s.Goes, s.Started)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if s := rt.State(); len(s.Goes) != 3 {
		t.Errorf("the spare was fired: goes %v", s.Goes)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("input files left: %v", left)
	}
	// Closed: cold runs, nothing armed ahead.
	if _, err := w.Run(ctx, RunRequest{Image: "img", Command: []string{"/p"}}); err != nil {
		t.Fatal(err)
	}
	if s := rt.State(); len(s.Created) != 5 {
		t.Errorf("%d containers after a run past Close, want 5 (no spare)", len(s.Created))
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// A request Warm cannot arm ahead (a stream on stdin) runs cold with
// nothing armed behind it; a new shape beyond those Warm keeps
// (DefaultWarmShapes, or as many as asked) pushes the least recently used
// one's spare out.
func TestWarmShapes(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Echo: true}))
	w := NewWarm(r, t.TempDir(), 0)
	ctx := context.Background()
	var out bytes.Buffer
	if _, err := w.Run(ctx, RunRequest{Image: "img", Command: []string{"/p"}, StdinStream: strings.NewReader("hi\n"), Output: &out}); err != nil {
		t.Fatal(err)
	}
	if s := rt.State(); len(s.Created) != 1 || out.String() != "hi\n" {
		t.Errorf("a streamed run: %d containers, output %q; want 1, cold, and its stream", len(s.Created), out.String())
	}
	runnertest.AssertNothingLeft(t, rt, cg)
	for _, c := range []struct{ asked, held int }{{0, DefaultWarmShapes}, {6, 6}} {
		r2, rt2, cg2 := fakeRunner(t, one(runnertest.Program{}))
		w2 := NewWarm(r2, t.TempDir(), c.asked)
		for i := range c.held + 1 {
			if _, err := w2.Run(ctx, RunRequest{Image: "img", Command: []string{"/p", strings.Repeat("x", i+1)}}); err != nil {
				t.Fatal(err)
			}
		}
		// held+1 fired and as many spares armed; the first shape's spare
		// is gone, the others wait.
		sparesArmed(w2)
		w2.mu.Lock()
		shapes := len(w2.slots)
		w2.mu.Unlock()
		if shapes != c.held {
			t.Errorf("NewWarm(shapes %d): %d shapes held, want %d", c.asked, shapes, c.held)
		}
		if err := w2.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if s := rt2.State(); len(s.Created) != 2*(c.held+1) || len(s.Goes) != c.held+1 {
			t.Errorf("%d containers made, %d fired; want %d and %d", len(s.Created), len(s.Goes), 2*(c.held+1), c.held+1)
		}
		runnertest.AssertNothingLeft(t, rt2, cg2)
	}
}

// Arming ahead that fails (the image was removed meanwhile) is not the
// next caller's result: it runs cold and gets the real error; a caller
// whose context ends while it waits leaves nothing.
func TestWarmArmFailureAndCancel(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{}))
	w := NewWarm(r, t.TempDir(), 0)
	ctx := context.Background()
	req := RunRequest{Image: "img", Command: []string{"/p"}}
	if _, err := w.Run(ctx, req); err != nil {
		t.Fatal(err)
	}
	sparesArmed(w)
	rt.SetMissing("img")
	// The spare armed before the image went still runs; the one armed
	// behind it fails, and the caller after gets the image's error.
	if _, err := w.Run(ctx, req); err != nil {
		t.Fatalf("the spare armed before the image went: %v", err)
	}
	var missing *bindings.ImageMissingError
	if _, err := w.Run(ctx, req); !errors.As(err, &missing) {
		t.Errorf("a run after the image went = %v, want ImageMissingError", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.Run(cancelled, req); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled caller got %v", err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// sparesArmed waits until every spare Warm holds is armed (or failed).
func sparesArmed(w *Warm) {
	w.mu.Lock()
	var ready []chan struct{}
	for _, s := range w.slots {
		if s.next != nil {
			ready = append(ready, s.next.ready)
		}
	}
	w.mu.Unlock()
	for _, c := range ready {
		<-c
	}
}

// The spare behind a run is armed once that run has ended, off its way;
// a caller of the same shape who comes meanwhile (calls at once) arms its
// own at once rather than wait for the run before it.
func TestWarmCallsAtOnceDoNotQueue(t *testing.T) {
	gates := make(chan chan struct{}, 16) // each container's, in order of creation
	r, rt, cg := fakeRunner(t, func(bindings.Spec) runnertest.Program {
		g := make(chan struct{})
		gates <- g
		return runnertest.Program{Gate: g}
	})
	openAll := func() {
		for {
			select {
			case g := <-gates:
				close(g)
			default:
				return
			}
		}
	}
	gone := make(chan struct{}, 16)
	rt.SetOnGo(func(*runnertest.Container) { gone <- struct{}{} })
	w := NewWarm(r, t.TempDir(), 0)
	ctx := context.Background()
	req := RunRequest{Image: "img", Command: []string{"/p"}}
	results := make(chan error, 3)
	call := func() { _, err := w.Run(ctx, req); results <- err }
	go call()
	<-gone
	openAll()
	if err := <-results; err != nil {
		t.Fatal(err)
	}
	sparesArmed(w)
	go call()
	go call()
	for i := range 2 {
		select {
		case <-gone:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of two calls at once got the go while the other ran: one waits for the other", i)
		}
	}
	openAll()
	for range 2 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}
