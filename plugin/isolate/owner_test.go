package isolate

import (
	"os"
	"path/filepath"
	"testing"
)

func TestForeignOwnedAndCleanup(t *testing.T) {
	root := t.TempDir()
	dir, err := InitBox(root, 7)
	if err != nil {
		t.Fatal(err)
	}
	box := filepath.Join(dir, BoxSubdir)
	if foreign, err := ForeignOwned([]string{box}, os.Geteuid()); err != nil || foreign {
		t.Fatalf("a fresh box: foreign %t, %v", foreign, err)
	}
	if foreign, err := ForeignOwned([]string{box}, os.Geteuid()+1); err != nil || !foreign {
		t.Fatalf("a box of another uid: foreign %t, %v", foreign, err)
	}
	// What a program may leave: a 0555 directory with a file in it.
	d := filepath.Join(box, "d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := CleanupBox(root, 7); err != nil {
		t.Fatalf("cleanup of a box with a 0555 directory: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the box is still there: %v", err)
	}
}
