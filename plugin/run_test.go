package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckMakesTheInputPathAbsolute(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	req := RunRequest{Image: "x", Command: []string{"/p"}, InputFile: "in.txt"}
	if err := req.Check(); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "in.txt"); req.InputFile != want {
		t.Fatalf("InputFile = %q, want %q: the Podman service resolves relative paths in its own directory", req.InputFile, want)
	}
	if req.OutputLimit != DefaultOutputLimit || req.MemoryBytes != DefaultMemory || req.Pids != DefaultPids || req.CPUs != DefaultCPUs || req.Output == nil {
		t.Errorf("defaults not filled: %+v", req)
	}
}

func TestCheckRefusesBadRequests(t *testing.T) {
	dir := t.TempDir()
	for name, req := range map[string]RunRequest{
		"no image":       {Command: []string{"/p"}},
		"no command":     {Image: "x"},
		"negative limit": {Image: "x", Command: []string{"/p"}, Pids: -1},
		"missing input":  {Image: "x", Command: []string{"/p"}, InputFile: filepath.Join(dir, "absent")},
		"input is a dir": {Image: "x", Command: []string{"/p"}, InputFile: dir},
	} {
		var reqErr *RequestError
		if err := req.Check(); !errors.As(err, &reqErr) {
			t.Errorf("%s: err = %v, want a RequestError", name, err)
		}
	}
}
