package fs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnableAddsOnlyMissingControllers(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "cgroup.subtree_control")
	if err := os.WriteFile(f, []byte("cpu memory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Enable(dir, Controllers); err != nil {
		t.Fatal(err)
	}
	// cgroupfs applies "+pids"; a plain file just holds what was written.
	if got, _ := os.ReadFile(f); string(got) != "+pids" {
		t.Errorf("wrote %q, want only +pids", got)
	}
}

func TestCreateRefusesBadNames(t *testing.T) {
	d := Driver{Root: t.TempDir()}
	if _, err := d.Create(t.Context(), "podjail-dash"); err == nil {
		t.Error("a name with a dash was accepted")
	}
}
