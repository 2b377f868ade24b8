package isolate

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCleanupAfterAProgram(t *testing.T) {
	root := t.TempDir()
	dir, err := InitBox(root, 7)
	if err != nil {
		t.Fatal(err)
	}
	box := filepath.Join(dir, BoxSubdir)
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
