package runner

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExchangeCopiesInAndOnlyTheProgramsChangesBack: what the program
// made, changed and removed in its copy reaches the caller's directory;
// what the caller wrote meanwhile (a front's stdout file) stays; links
// travel as links, never followed.
func TestExchangeCopiesInAndOnlyTheProgramsChangesBack(t *testing.T) {
	box, ex := t.TempDir(), t.TempDir()
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(box, "main.cpp"), "int main(){}")
	write(filepath.Join(box, "output.txt"), "")
	write(filepath.Join(box, "gone.txt"), "x")
	write(filepath.Join(box, "sub", "kept.txt"), "k")
	if err := os.Symlink("/etc/hostname", filepath.Join(box, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(box, 0o751); err != nil {
		t.Fatal(err)
	}
	in, err := copyIn(ex, box)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(ex, "sub", "kept.txt")); string(data) != "k" {
		t.Fatalf("copied in: %q", data)
	}
	if l, _ := os.Readlink(filepath.Join(ex, "link")); l != "/etc/hostname" {
		t.Fatalf("the link went in as %q", l)
	}
	if fi, _ := os.Stat(ex); fi.Mode().Perm() != 0o751 {
		t.Errorf("the copy's mode %v, want the box's 0751", fi.Mode().Perm())
	}
	// The program: builds a.out, changes main.cpp, removes gone.txt, makes
	// a directory with a file and a link to a host file.
	write(filepath.Join(ex, "a.out"), "ELF")
	write(filepath.Join(ex, "main.cpp"), "int main(){return 1;}")
	write(filepath.Join(ex, "new", "f"), "n")
	if err := os.Remove(filepath.Join(ex, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/shadow", filepath.Join(ex, "new", "evil")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(ex, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The caller, meanwhile: the front's stdout file.
	write(filepath.Join(box, "output.txt"), "42\n")
	if err := copyBack(box, ex, in); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.out": "ELF", "main.cpp": "int main(){return 1;}", "new/f": "n", "output.txt": "42\n", "sub/kept.txt": "k"} {
		if data, err := os.ReadFile(filepath.Join(box, name)); err != nil || string(data) != want {
			t.Errorf("%s: %q, %v; want %q", name, data, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(box, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt, removed by the program, is still there: %v", err)
	}
	if l, err := os.Readlink(filepath.Join(box, "new", "evil")); err != nil || l != "/etc/shadow" {
		t.Errorf("the program's link came back as %q, %v; want the link itself", l, err)
	}
	// A named pipe in the caller's directory: only a mount can share it.
	box2 := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(box2, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := copyIn(t.TempDir(), box2); !errors.Is(err, errNotCopyable) {
		t.Errorf("copyIn of a directory with a pipe = %v, want errNotCopyable", err)
	}
}
