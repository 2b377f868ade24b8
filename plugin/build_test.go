package plugin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

var compiled = lang.Language{ID: "fakec", BuildImage: "fake/build", RunImage: "fake/run", Source: "main.c",
	Compile: []string{"/usr/bin/cc", "-o", "main", "main.c"}, Artefacts: []string{"main"}, Run: []string{"/run/podjail/artefact/main"}}

func TestBuildCopiesTheSourceInAndTheArtefactsOut(t *testing.T) {
	cases := []struct {
		name string
		prog runnertest.Program
		ok   bool
		note string
	}{
		{"builds", runnertest.Program{CPU: 200 * time.Millisecond, Files: map[string][]byte{"/build/main": []byte("ELF")}}, true, ""},
		{"compile error", runnertest.Program{Stdout: []byte("main.c:1: error: expected ';'\n"), Exit: 1}, false, "exited with code 1"},
		{"no artefact", runnertest.Program{}, false, "the build made no main"},
		{"killed", runnertest.Program{OOMKill: true}, false, "memory limit"},
		{"stopped", runnertest.Program{Stdout: make([]byte, 5<<20), Hang: true}, false, "compilation stopped: " + runner.KilledOutputLimit.String()},
	}
	for _, c := range cases {
		r, rt, cg := fakeRunner(t, one(c.prog))
		res, err := r.Build(context.Background(), compiled, []byte("int main(){}"), t.TempDir())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.OK != c.ok || !strings.Contains(res.Note, c.note) {
			t.Errorf("%s: ok %t, note %q", c.name, res.OK, res.Note)
		}
		if got := string(rt.Unpacked()["/build/main.c"]); got != "int main(){}" || len(rt.CopiedIn()) != 0 {
			t.Errorf("%s: source unpacked by the shim as %q, %d files copied in through the API; want it unpacked alone", c.name, got, len(rt.CopiedIn()))
		}
		spec := rt.Container(rt.State().Created[0]).Spec
		if spec.Image != "fake/build" || !spec.Writable || spec.WorkDir != lang.BuildDir || runnertest.ProgramPath(spec) != "/bin/sh" {
			t.Errorf("%s: build spec %+v", c.name, spec)
		}
		if c.ok {
			data, err := os.ReadFile(filepath.Join(res.Dir, "main"))
			if err != nil || string(data) != "ELF" || res.Time != 200*time.Millisecond {
				t.Errorf("%s: artefact %q %v, time %v", c.name, data, err, res.Time)
			}
		}
		if c.name == "compile error" && !strings.Contains(res.Output, "expected ';'") {
			t.Errorf("compiler output %q", res.Output)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

func TestBuildWithoutCompileWritesTheSource(t *testing.T) {
	r, rt, _ := fakeRunner(t, nil)
	res, err := r.Build(context.Background(), fakeLang, []byte("print(1)"), t.TempDir())
	if err != nil || !res.OK {
		t.Fatalf("%+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(res.Dir, fakeLang.Source)); string(data) != "print(1)" || len(rt.State().Created) != 0 {
		t.Errorf("source %q, containers %v", data, rt.State().Created)
	}
}

func TestSweepRemovesOnlyOrphans(t *testing.T) {
	r, rt, _ := fakeRunner(t, nil)
	mine, err := rt.Create(context.Background(), bindings.Spec{Name: "mine", Image: "i", Labels: testSelf.Labels("run")})
	if err != nil {
		t.Fatal(err)
	}
	dead := testSelf
	dead.BootID = "an-earlier-boot"
	if _, err := rt.Create(context.Background(), bindings.Spec{Name: "orphan", Image: "i", Labels: dead.Labels("run")}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Create(context.Background(), bindings.Spec{Name: "foreign", Image: "i"}); err != nil {
		t.Fatal(err)
	}
	got, err := runner.Sweep(context.Background(), r.Runtime, testSelf)
	if err != nil || !slices.Equal(got, []string{"orphan"}) {
		t.Fatalf("swept %v, %v", got, err)
	}
	if s := rt.State(); s.Live != 2 || rt.Removed(mine) {
		t.Errorf("left %d, mine removed %t", s.Live, rt.Removed(mine))
	}
}

// A create a killed instance had in flight lands after the next runner's
// start swept: that runner's Close takes it, and whatever of its own a
// lost race left.
func TestCloseSweepsWhatLandedAfterTheStart(t *testing.T) {
	r, rt, _ := fakeRunner(t, nil)
	mine, err := rt.Create(context.Background(), bindings.Spec{Name: "mine", Image: "i", Labels: testSelf.Labels("run")})
	if err != nil {
		t.Fatal(err)
	}
	dead := testSelf
	dead.BootID = "an-earlier-boot"
	late, err := rt.Create(context.Background(), bindings.Spec{Name: "late", Image: "i", Labels: dead.Labels("run")})
	if err != nil {
		t.Fatal(err)
	}
	r.Close(context.Background())
	if !rt.Removed(late) || !rt.Removed(mine) {
		t.Errorf("after Close: the dead instance's removed %t, ours removed %t; want both (nothing of ours outlives Close)",
			rt.Removed(late), rt.Removed(mine))
	}
}

func TestBuildFilesCopiesEveryFileIn(t *testing.T) {
	r, rt, _ := fakeRunner(t, one(runnertest.Program{Files: map[string][]byte{"/build/T": []byte("ELF")}}))
	l := compiled
	l.Compile, l.Artefacts = []string{"/usr/bin/cc", "-o", "T", "a.c", "b.c"}, []string{"T"}
	res, err := r.BuildFiles(context.Background(), l, map[string][]byte{"a.c": []byte("A"), "b.c": []byte("B")}, t.TempDir())
	if err != nil || !res.OK {
		t.Fatalf("%+v %v", res, err)
	}
	if a, b := string(rt.Unpacked()["/build/a.c"]), string(rt.Unpacked()["/build/b.c"]); a != "A" || b != "B" {
		t.Errorf("unpacked a.c %q, b.c %q", a, b)
	}
	if data, err := os.ReadFile(filepath.Join(res.Dir, "T")); err != nil || string(data) != "ELF" {
		t.Errorf("artefact T %q %v", data, err)
	}
}

func TestBuildFilesRefusesBadNames(t *testing.T) {
	r, rt, _ := fakeRunner(t, nil)
	for _, files := range []map[string][]byte{nil, {"../x.c": nil}, {"d/x.c": nil}, {"..": nil}, {"": nil}} {
		_, err := r.BuildFiles(context.Background(), compiled, files, t.TempDir())
		var reqErr *runner.RequestError
		if !errors.As(err, &reqErr) {
			t.Errorf("%v: err %v, want a *RequestError", files, err)
		}
	}
	if n := len(rt.State().Created); n != 0 {
		t.Errorf("%d containers created for refused builds", n)
	}
}

// TestBuildNoteMissing: an artefact missing after a compiler that succeeded
// is named in Missing (a front may leave it to the judge to find); after a
// compiler that failed, the failure is the note and nothing is missing.
func TestBuildNoteMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l := lang.Language{Artefacts: []string{"main.jar", "Main.class"}, ArtefactHint: "name it Main"}
	note, missing := buildNote(runner.RunResult{}, l, dir)
	if missing != "Main.class" || note != "the build made no Main.class: name it Main" {
		t.Errorf("compiler exit 0, no Main.class: note %q, missing %q", note, missing)
	}
	note, missing = buildNote(runner.RunResult{ExitCode: 1}, l, dir)
	if missing != "" || note != "the compiler exited with code 1" {
		t.Errorf("compiler exit 1: note %q, missing %q", note, missing)
	}
	if err := os.WriteFile(filepath.Join(dir, "Main.class"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if note, missing = buildNote(runner.RunResult{}, l, dir); note != "" || missing != "" {
		t.Errorf("every artefact made: note %q, missing %q", note, missing)
	}
}
