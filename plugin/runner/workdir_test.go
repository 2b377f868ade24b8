package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWorkDirSweepsTheDead: a new work directory removes those of podjail
// processes that are gone (of this boot, or of another), never a live
// one's or anything else in the parent.
func TestWorkDirSweepsTheDead(t *testing.T) {
	parent := t.TempDir()
	self := Instance{BootID: "0123456789abcdef", PID: 10, Start: 100}
	live := Instance{BootID: self.BootID, PID: 11, Start: 110}
	dead := Instance{BootID: self.BootID, PID: 12, Start: 120}
	otherBoot := Instance{BootID: "fedcba9876543210", PID: 11, Start: 110}
	for _, i := range []Instance{live, dead, otherBoot} {
		if err := os.MkdirAll(filepath.Join(parent, i.workDirName(), "warm-dir"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, other := range []string{"podjail-work-x", "podjail-plugin-123", "keep"} {
		if err := os.Mkdir(filepath.Join(parent, other), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	alive := func(pid int, start uint64) bool { return pid == live.PID && start == live.Start }
	removed, err := sweepWorkDirs(context.Background(), parent, self, alive)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{filepath.Join(parent, dead.workDirName()), filepath.Join(parent, otherBoot.workDirName())}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, name := range []string{live.workDirName(), "podjail-work-x", "podjail-plugin-123", "keep"} {
		if _, err := os.Stat(filepath.Join(parent, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
	dir, err := WorkDir(parent, self)
	if err != nil || filepath.Base(dir) != self.workDirName() {
		t.Fatalf("WorkDir = %q, %v", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the work directory: %v, %v; want mode 0700 (its own user's alone)", fi, err)
	}
}
