package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestWriteSeccomp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "podjail")
	want, _ := SeccompJSON()
	sum := sha256.Sum256(want)

	path, err := WriteSeccomp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(path); base != "seccomp-"+hex.EncodeToString(sum[:])[:12]+".json" {
		t.Errorf("name %s is not content-addressed", base)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("content differs (err %v)", err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %o, want 644", fi.Mode().Perm())
	}

	// Idempotent: the same file, not rewritten.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	again, err := WriteSeccomp(dir)
	if err != nil || again != path {
		t.Fatalf("second write: %s, %v", again, err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Error("an intact profile was rewritten")
	}

	// A torn or foreign file under the name is replaced.
	os.WriteFile(path, []byte(`{"defaultAction":"SCMP_ACT_ALLOW"}`), 0o644)
	if _, err := WriteSeccomp(dir); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("a foreign profile was kept")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in dir, want 1", len(ents))
	}
}

func TestWriteSeccompConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	paths := make([]string, 16)
	for i := range paths {
		wg.Go(func() {
			p, err := WriteSeccomp(dir)
			if err != nil {
				t.Error(err)
			}
			paths[i] = p
		})
	}
	wg.Wait()
	for _, p := range paths {
		if p != paths[0] {
			t.Fatalf("paths differ: %s %s", p, paths[0])
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left, want 1 (no temporaries)", len(ents))
	}
}

func TestWriteSeccompUnsafeDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteSeccomp(dir); !errors.Is(err, ErrUnsafeDir) {
		t.Errorf("world-writable dir: %v, want ErrUnsafeDir", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := WriteSeccomp(file); err == nil {
		t.Error("a file taken for a directory")
	}
}
