package isolate

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBoxDir(t *testing.T) {
	if got := BoxDir(DefaultBoxRoot, 42); got != "/var/local/lib/isolate/42" {
		t.Errorf("got %q", got)
	}
	if got := BoxDir("/r/", 0); got != "/r//0" { // as isolate's snprintf
		t.Errorf("got %q", got)
	}
}

func TestInitAndCleanupBox(t *testing.T) {
	root := filepath.Join(t.TempDir(), "isolate") // made by InitBox
	dir, err := InitBox(root, 7)
	if err != nil {
		t.Fatal(err)
	}
	if dir != root+"/7" {
		t.Errorf("dir %q", dir)
	}
	for path, mode := range map[string]os.FileMode{dir: 0o755, filepath.Join(dir, "box"): 0o700} {
		st, err := os.Stat(path)
		if err != nil || !st.IsDir() || st.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want a directory of mode %v", path, st.Mode(), err, mode)
		}
	}
	// --init resets a box that exists.
	if err := os.WriteFile(filepath.Join(dir, "box", "old"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InitBox(root, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "box", "old")); !os.IsNotExist(err) {
		t.Errorf("old file survived --init: %v", err)
	}
	if err := CleanupBox(root, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("box survived --cleanup: %v", err)
	}
	// Nothing to do is no error.
	if err := CleanupBox(root, 7); err != nil {
		t.Error(err)
	}
}

func TestBoxRefusals(t *testing.T) {
	for _, c := range []struct {
		root string
		id   int
	}{{"", 0}, {"relative", 0}, {"/tmp", -1}} {
		if _, err := InitBox(c.root, c.id); err == nil {
			t.Errorf("InitBox(%q, %d) succeeded", c.root, c.id)
		}
		if err := CleanupBox(c.root, c.id); err == nil {
			t.Errorf("CleanupBox(%q, %d) succeeded", c.root, c.id)
		}
	}
}
