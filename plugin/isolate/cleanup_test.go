package isolate

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCleanupFollowsNoSwappedLink: while someone who can write a box
// swaps a directory in it (mode 0077, which the cleanup opens up) for a
// symbolic link to a file outside, again and again, --cleanup never
// changes or removes that file: it works on descriptors, never by a path
// a link can redirect.
func TestCleanupFollowsNoSwappedLink(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for round := range 300 {
		dir, err := InitBox(root, 3)
		if err != nil {
			t.Fatal(err)
		}
		stop := swapping(t, filepath.Join(dir, BoxSubdir), outside)
		_ = CleanupBox(root, 3) // may lose the race to the swapper; then again
		stop()
		fi, err := os.Stat(outside)
		if err != nil {
			t.Fatalf("round %d: the file outside the box: %v", round, err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("round %d: the file outside the box is mode %v, want it untouched (0600)", round, fi.Mode())
		}
	}
	if err := CleanupBox(root, 3); err != nil {
		t.Fatal(err)
	}
}

// swapping plants in box a directory d of mode 0077 and a symbolic link l
// to target, and exchanges the two names until stopped or the box is gone.
func swapping(t *testing.T, box, target string) (stop func()) {
	t.Helper()
	d, l := filepath.Join(box, "d"), filepath.Join(box, "l")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.Chmod(d, 0o077), os.Symlink(target, l)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, l, unix.RENAME_EXCHANGE) != nil {
				return
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// TestOpenUpFollowsNoLink: the cleanup opens up every directory a
// program left closed (0000 around 0555), and nothing a symbolic link in
// the box points to: not a directory outside, not the box's own top when
// it is a link.
func TestOpenUpFollowsNoLink(t *testing.T) {
	box := filepath.Join(t.TempDir(), "box")
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(box, "a/b/c"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.Symlink(outside, filepath.Join(box, "a/out")), os.Symlink(outside, filepath.Join(box, "a/b/out"))); err != nil {
		t.Fatal(err)
	}
	modes := map[string]os.FileMode{"a/b/c": 0o500, "a/b": 0o555, "a": 0o000}
	for _, d := range []string{"a/b/c", "a/b", "a"} { // deepest first
		if err := os.Chmod(filepath.Join(box, d), modes[d]); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(outside, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(outside, 0o700) })
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	openUpAll(link)
	openUpAll(box)
	for d, m := range modes {
		if fi, err := os.Lstat(filepath.Join(box, d)); err != nil || fi.Mode().Perm() != m|0o700 {
			t.Errorf("%s: %v (%v), want mode %v", d, fi.Mode(), err, m|0o700)
		}
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o500 {
		t.Errorf("the directory the links point to: %v (%v), want it untouched, 0500", fi.Mode(), err)
	}
	if err := removeAll(box); err != nil {
		t.Fatal(err)
	}
}
