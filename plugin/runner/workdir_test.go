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

// TestSweepTakesOnlyItsOwnWorkDirs: anyone can make a directory by a dead
// instance's name in /tmp, to have a root service remove it or hand back
// (chown) what is in it. The sweep takes only directories of its own user
// that no one else may write, never a link to one, and nothing at all in
// a parent where others could swap a directory for theirs.
func TestSweepTakesOnlyItsOwnWorkDirs(t *testing.T) {
	parent := t.TempDir()
	self := Instance{BootID: "0123456789abcdef", PID: 10, Start: 100}
	dead := func(pid int) string { return Instance{BootID: self.BootID, PID: pid, Start: 1}.workDirName() }
	outside := t.TempDir()
	mkdir := func(name string, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(parent, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ours := mkdir(dead(1), 0o755)
	kept := []string{mkdir(dead(2), 0o777), mkdir(dead(3), 0o770)}
	link := filepath.Join(parent, dead(4))
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, link)
	if os.Geteuid() == 0 {
		theirs := mkdir(dead(5), 0o755)
		if err := os.Chown(theirs, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, theirs)
	}
	never := func(int, uint64) bool { return false }

	if err := os.Chmod(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	if removed, err := sweepWorkDirs(context.Background(), parent, self, never); err == nil || len(removed) > 0 {
		t.Errorf("in a parent anyone may write: removed %v, %v; want nothing and an error", removed, err)
	}
	if err := os.Chmod(parent, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	removed, err := sweepWorkDirs(context.Background(), parent, self, never)
	if err != nil || !slices.Equal(removed, []string{ours}) {
		t.Errorf("removed %v, %v; want only %s", removed, err, ours)
	}
	for _, p := range append(kept, outside) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
