package isolate

import (
	"os"
	"path/filepath"
	"strings"
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
	for path, mode := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "box"): 0o700} {
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

// TestBoxRootOfAnotherUser: a box root another user owns (one who made
// /var/tmp/podjail-isolate-UID first), or a link to one, is refused by
// --init and --cleanup, saying what to do; nothing in it is touched.
func TestBoxRootOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a directory another user owns")
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	if err := os.MkdirAll(filepath.Join(theirs, "7", BoxSubdir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(theirs, link); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{theirs, link} {
		if _, err := InitBox(root, 7); err == nil || !strings.Contains(err.Error(), "PODJAIL_ISOLATE_ROOT") {
			t.Errorf("InitBox in %s: %v, want a refusal naming PODJAIL_ISOLATE_ROOT", root, err)
		}
		if err := CleanupBox(root, 7); err == nil {
			t.Errorf("CleanupBox in %s succeeded", root)
		}
	}
	if _, err := os.Stat(filepath.Join(theirs, "7", BoxSubdir)); err != nil {
		t.Errorf("their box was touched: %v", err)
	}
}
