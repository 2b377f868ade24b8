package plugin

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShimNear: the shim beside podjail wins; else the one a package puts
// in PREFIX/libexec/podjail for PREFIX/bin/podjail; else none.
func TestShimNear(t *testing.T) {
	root := t.TempDir()
	exe := filepath.Join(root, "usr", "bin", "podjail")
	packaged := filepath.Join(root, "usr", "libexec", "podjail", "podjail-shim")
	beside := filepath.Join(root, "usr", "bin", "podjail-shim")
	if got := shimNear(exe); got != "" {
		t.Errorf("with no shim anywhere: %q, want none", got)
	}
	for _, p := range []string{packaged, beside} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(beside, 0o755); err != nil { // a directory is not a shim
		t.Fatal(err)
	}
	if err := os.WriteFile(packaged, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := shimNear(exe); got != packaged {
		t.Errorf("packaged layout: %q, want %q", got, packaged)
	}
	if err := os.Remove(beside); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(beside, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := shimNear(exe); got != beside {
		t.Errorf("shim beside podjail: %q, want %q", got, beside)
	}
}
