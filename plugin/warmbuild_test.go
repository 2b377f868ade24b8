package plugin

import (
	"archive/tar"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

// Builds through a Warm: each build after the first takes the container
// armed ahead for its language, its own source unpacked there at the go,
// and gets its own artefact; nothing is left after Close.
func TestWarmArmsBuildsAhead(t *testing.T) {
	compile := func(bindings.Spec) runnertest.Program {
		return runnertest.Program{AtGo: func(spec bindings.Spec) runnertest.Program {
			return runnertest.Program{Files: map[string][]byte{"/build/main": append([]byte("ELF "), packed(t, spec.InputFile, "main.c")...)}}
		}}
	}
	r, rt, cg := fakeRunner(t, compile)
	w := NewWarm(r, t.TempDir(), 0)
	ctx := context.Background()
	for i, src := range []string{"int a;", "int b;", "int c;"} {
		createdAtLeast(t, rt, map[bool]int{true: 0, false: i + 1}[i == 0])
		before := rt.State().Created
		tmp := t.TempDir()
		res, err := r.Build(ctx, compiled, []byte(src), tmp)
		if err != nil || !res.OK {
			t.Fatalf("build %d: %+v, %v", i+1, res, err)
		}
		if data, err := os.ReadFile(filepath.Join(res.Dir, "main")); string(data) != "ELF "+src {
			t.Errorf("build %d: artefact %q, %v; want %q", i+1, data, err, "ELF "+src)
		}
		goes := rt.State().Goes
		if i > 0 && !slices.Contains(before, goes[len(goes)-1]) {
			t.Errorf("build %d fired %s, not a container armed before it came (%v)", i+1, goes[len(goes)-1], before)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "podjail-sources-*")); len(left) != 0 {
			t.Errorf("build %d left its sources: %v", i+1, left)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

// packed is the file name of a shim.Pack stream in the file at p.
func packed(t *testing.T, p, name string) []byte {
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		if h.Name == name {
			data, _ := io.ReadAll(tr)
			return data
		}
	}
	t.Errorf("no %s in %s", name, p)
	return nil
}

// createdAtLeast waits until the fake runtime has created n containers
// (a Warm's spare is being armed), for at most 10 s.
func createdAtLeast(t *testing.T, rt *runnertest.Runtime, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(rt.State().Created) < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d containers created, want %d", len(rt.State().Created), n)
		}
	}
}
