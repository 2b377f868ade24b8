package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/bindings"
)

// The program can write its box; the paths podjail opens on the host for
// -i, -o and -r must not let it point them anywhere else.
func TestSandboxFSRefusesEscapes(t *testing.T) {
	box, ro, secret := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(secret, "shadow")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(box, "out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(box, "dir")); err != nil {
		t.Fatal(err)
	}
	fsys := sandboxFS{mounts: []bindings.Bind{
		{Source: box, Destination: "/box", Writable: true},
		{Source: ro, Destination: "/ro"},
	}}
	for _, c := range []struct {
		inside  string
		writing bool
		err     string
	}{
		{"out.txt", true, "symbolic link"},
		{"dir/shadow", false, "symbolic link"},
		{"/ro/x", true, "read-only"},
		{"/etc/passwd", false, "not in the box"},
	} {
		if _, err := fsys.host(c.inside, "/box", c.writing); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err %v, want %q", c.inside, err, c.err)
		}
	}
	got, err := fsys.host("output.txt", "/box", true)
	if err != nil || filepath.Dir(got) != mustEval(t, box) {
		t.Errorf("a plain file in the box: %q, %v", got, err)
	}
	// A symlink swapped in after the check is still not followed.
	if f, err := create(filepath.Join(box, "out.txt")); err == nil {
		f.Close()
		t.Error("create followed a symbolic link")
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
