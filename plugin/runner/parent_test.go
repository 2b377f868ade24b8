package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podjail/podjail/cgroupdrv"
)

type fakeDriver struct {
	parents   []cgroupdrv.Parent
	destroyed []string
}

func (*fakeDriver) Name() string { return "fake" }
func (*fakeDriver) Create(context.Context, string) (cgroupdrv.Parent, error) {
	return cgroupdrv.Parent{}, nil
}
func (f *fakeDriver) Destroy(_ context.Context, p cgroupdrv.Parent) error {
	f.destroyed = append(f.destroyed, p.ID)
	return nil
}
func (f *fakeDriver) List(context.Context) ([]cgroupdrv.Parent, error) { return f.parents, nil }

func TestParentIDNamesItsOwner(t *testing.T) {
	self := Instance{PID: 4242, Start: 987654}
	id := self.ParentID()
	if err := cgroupdrv.CheckID(id); err != nil {
		t.Fatal(err)
	}
	pid, start, ok := parentOwner(id)
	if !ok || pid != 4242 || start != 987654 {
		t.Errorf("owner of %s: %d %d %t", id, pid, start, ok)
	}
}

func TestSweepParentsTakesOnlyDeadOwners(t *testing.T) {
	self := Instance{PID: 10, Start: 100}
	mine := self.ParentID()
	alive := (Instance{PID: 20, Start: 200}).ParentID()
	dead := (Instance{PID: 30, Start: 300}).ParentID()
	d := &fakeDriver{parents: []cgroupdrv.Parent{{ID: mine}, {ID: alive}, {ID: dead}, {ID: "podjail_foreign"}}}
	got, err := sweepParents(context.Background(), d, self, func(pid int, _ uint64) bool { return pid == 20 }, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{dead}) || !slices.Equal(d.destroyed, []string{dead}) {
		t.Errorf("swept %v, destroyed %v; want only %s", got, d.destroyed, dead)
	}
}

// A closing runner takes its own parents too, never a live instance's.
func TestSweepParentsMineTooAtClose(t *testing.T) {
	self := Instance{PID: 10, Start: 100}
	mine := self.ParentID()
	alive := (Instance{PID: 20, Start: 200}).ParentID()
	d := &fakeDriver{parents: []cgroupdrv.Parent{{ID: mine}, {ID: alive}}}
	got, err := sweepParents(context.Background(), d, self, func(pid int, _ uint64) bool { return pid == 20 }, true)
	if err != nil || !slices.Equal(got, []string{mine}) {
		t.Errorf("swept %v, %v; want only our own %s", got, err, mine)
	}
}

// TestProgramCgroupBelowTheParent: the program's cgroup is found where the
// runtime puts the container's (systemd: a scope with a "container"
// child; cgroupfs: a directory), beside the shim's own, and nowhere else.
func TestProgramCgroupBelowTheParent(t *testing.T) {
	mk := func(dirs ...string) string {
		root := t.TempDir()
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	for _, c := range []struct {
		name string
		dirs []string
		want string // below the parent, "" for none
	}{
		{"systemd", []string{"libpod-abc.scope/container/shim", "libpod-abc.scope/container/program"}, "libpod-abc.scope/container/program"},
		{"cgroupfs", []string{"libpod-abc/shim", "libpod-abc/program"}, "libpod-abc/program"},
		{"not made yet", []string{"libpod-abc.scope/container"}, ""},
		{"no shim beside it", []string{"libpod-abc/program"}, ""},
		{"too deep", []string{"a/b/c/d/shim", "a/b/c/d/program"}, ""},
	} {
		parent := mk(c.dirs...)
		got := programCgroup(parent)
		want := ""
		if c.want != "" {
			want = filepath.Join(parent, c.want)
		}
		if got != want {
			t.Errorf("%s: %q, want %q", c.name, got, want)
		}
	}
	if got := programCgroup(filepath.Join(t.TempDir(), "gone")); got != "" {
		t.Errorf("a parent that is gone: %q", got)
	}
}
