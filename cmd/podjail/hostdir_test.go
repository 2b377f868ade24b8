package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestCopyIfChanged(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyIfChanged(src, dst); err != nil {
		t.Fatal(err)
	}
	first, err := os.Stat(dst)
	if err != nil || first.Mode().Perm() != 0o755 {
		t.Fatalf("the copy: %v, %v; want mode 0755", first, err)
	}
	if err := copyIfChanged(src, dst); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(dst); !os.SameFile(first, again) {
		t.Error("an unchanged shim was copied again: want the same file")
	}
	if err := os.WriteFile(src, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyIfChanged(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "two" {
		t.Errorf("after a change the copy holds %q, want %q", b, "two")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".podjail-shim-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestUseHostDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(hostDirEnv, dir)
	t.Setenv("TMPDIR", "")
	t.Setenv("PODJAIL_SHIM", "/explicit/podjail-shim")
	if err := useHostDir(); err != nil {
		t.Fatal(err)
	}
	if got, want := os.Getenv("TMPDIR"), filepath.Join(dir, "tmp"); got != want {
		t.Errorf("TMPDIR=%q, want %q", got, want)
	}
	if fi, err := os.Stat(filepath.Join(dir, "tmp")); err != nil || !fi.IsDir() {
		t.Errorf("DIR/tmp: %v, %v", fi, err)
	}
	if got := os.Getenv("PODJAIL_SHIM"); got != "/explicit/podjail-shim" {
		t.Errorf("an explicit PODJAIL_SHIM became %q", got)
	}
	t.Setenv(hostDirEnv, "relative/dir")
	if err := useHostDir(); err == nil {
		t.Error("a relative PODJAIL_HOST_DIR was taken")
	}
	t.Setenv(hostDirEnv, filepath.Join(dir, "missing"))
	if err := useHostDir(); err == nil {
		t.Error("a missing PODJAIL_HOST_DIR was taken")
	}
}

func TestPodmanListenPID(t *testing.T) {
	marker := filepath.Join(t.TempDir(), ".containerenv")
	old := containerEnvFile
	containerEnvFile = marker
	t.Cleanup(func() { containerEnvFile = old })
	t.Setenv("LISTEN_FDS", "1")
	t.Setenv("LISTEN_PID", "1")
	podmanListenPID()
	if got := os.Getenv("LISTEN_PID"); got != "1" {
		t.Errorf("outside a container LISTEN_PID became %q", got)
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	podmanListenPID()
	if got, want := os.Getenv("LISTEN_PID"), strconv.Itoa(os.Getpid()); got != want {
		t.Errorf("in a container LISTEN_PID=%q, want %q", got, want)
	}
	t.Setenv("LISTEN_PID", "4242")
	podmanListenPID()
	if got := os.Getenv("LISTEN_PID"); got != "4242" {
		t.Errorf("another process's LISTEN_PID became %q", got)
	}
}
