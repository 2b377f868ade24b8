package shim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenStderr: the program's stderr is /dev/null unless asked; the
// caller's file is appended to, never created, never through a link;
// --stderr-to-stdout is a copy of the shim's stdout that the program
// alone keeps (close-on-exec for everything else).
func TestOpenStderr(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "stderr")
	if err := os.WriteFile(file, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openStderr(Config{Stderr: file})
	if err != nil {
		t.Fatal(err)
	}
	_, werr := f.WriteString("after\n")
	f.Close()
	if got, _ := os.ReadFile(file); werr != nil || string(got) != "before\nafter\n" {
		t.Errorf("the caller's file holds %q (%v), want it appended to", got, werr)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"a link": link, "a missing file": filepath.Join(dir, "missing")} {
		if f, err := openStderr(Config{Stderr: path}); stepOf(err) != StepStderr {
			f.Close()
			t.Errorf("%s: %v, want a failure at step %s", name, err, StepStderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Error("openStderr created the missing file")
	}
	null, err := openStderr(Config{})
	if err != nil || null.Name() != os.DevNull {
		t.Errorf("by default: %v, %v; want %s", null.Name(), err, os.DevNull)
	}
	null.Close()
	out, err := openStderr(Config{StderrToStdout: true})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if same, err := sameFile(out, os.Stdout); err != nil || !same || out.Fd() == 1 {
		t.Errorf("--stderr-to-stdout: fd %d, the same file as stdout %v (%v); want a copy of fd 1", out.Fd(), same, err)
	}
}

// sameFile tells whether two open files are one.
func sameFile(a, b *os.File) (bool, error) {
	ai, err := a.Stat()
	if err != nil {
		return false, err
	}
	bi, err := b.Stat()
	if err != nil {
		return false, err
	}
	return os.SameFile(ai, bi), nil
}

// TestUnpackInput: the input's files go into the working directory and
// the program's stdin becomes /dev/null; a stream that is not a pack is
// a failure of the unpack step.
func TestUnpackInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	in := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(in, Pack(map[string][]byte{"main.c": []byte("int main(){}\n")}), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin, err := unpackInput(f)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if stdin.Name() != os.DevNull {
		t.Errorf("the program's stdin is %s, want %s", stdin.Name(), os.DevNull)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "main.c")); !bytes.Equal(got, []byte("int main(){}\n")) {
		t.Errorf("main.c holds %q", got)
	}
	bad, err := os.Open(os.Args[0]) // this test binary: no tar stream
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := unpackInput(bad); stepOf(err) != StepUnpack {
		t.Errorf("not a pack: %v, want a failure at step %s", err, StepUnpack)
	}
}
