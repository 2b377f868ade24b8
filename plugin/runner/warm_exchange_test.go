package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

// A warm run has its own stderr file and writable directories: the
// caller's are copied in before the go and what the program changed is
// copied back after it ended.
func TestWarmExchangesStderrAndWritableBinds(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{Stdout: []byte("ok")}))
	w := NewWarm(r, t.TempDir(), 0)
	// At the go, the program writes into its writable bind (the warm
	// run's own directory) and its stderr file.
	var mu sync.Mutex
	given := map[string]string{} // the caller's file as each run saw it
	rt.SetOnGo(func(c *runnertest.Container) {
		for _, b := range c.Spec.Binds {
			if b.Writable {
				data, _ := os.ReadFile(filepath.Join(b.Source, "given"))
				mu.Lock()
				given[c.ID] = string(data)
				mu.Unlock()
				_ = os.WriteFile(filepath.Join(b.Source, "made-"+c.ID), []byte("by "+c.ID), 0o644)
			}
		}
		if c.Spec.StderrFile != "" {
			_ = os.WriteFile(c.Spec.StderrFile, []byte("err of "+c.ID+"\n"), 0o644)
		}
	})
	ctx := context.Background()
	box := t.TempDir()
	if err := os.WriteFile(filepath.Join(box, "given"), []byte("caller's"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := filepath.Join(t.TempDir(), "stderr")
	if err := os.WriteFile(stderr, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	req := RunRequest{Image: "img", Command: []string{"/p"}, StderrFile: stderr,
		Binds: []bindings.Bind{{Source: box, Destination: "/box", Writable: true}, {Source: t.TempDir(), Destination: "/ro"}}}
	if w.Ready() != 0 {
		t.Errorf("%d ready before any run", w.Ready())
	}
	var ids []string
	for i := range 2 {
		res, err := w.Run(ctx, req)
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("run %d: %+v %v", i, res, err)
		}
		ids = append(ids, res.ContainerID)
		spec := rt.Container(res.ContainerID).Spec
		if spec.Binds[0].Source == box || spec.StderrFile == stderr || spec.Binds[1].Destination != "/ro" {
			t.Errorf("run %d: the warm run uses the caller's own files: %+v", i, spec)
		}
		if got, err := os.ReadFile(filepath.Join(box, "made-"+res.ContainerID)); err != nil || string(got) != "by "+res.ContainerID {
			t.Errorf("run %d: what the program wrote came back as %q, %v", i, got, err)
		}
		mu.Lock()
		if got := given[res.ContainerID]; got != "caller's" {
			t.Errorf("run %d: the caller's file went in as %q", i, got)
		}
		mu.Unlock()
		sparesArmed(w)
	}
	if got, _ := os.ReadFile(stderr); string(got) != "err of "+ids[0]+"\nerr of "+ids[1]+"\n" {
		t.Errorf("the caller's stderr file holds %q", got)
	}
	if w.Ready() != 1 {
		t.Errorf("%d armed ahead after a shape came twice, want 1", w.Ready())
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}
