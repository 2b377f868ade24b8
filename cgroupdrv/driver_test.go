package cgroupdrv

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCheckID(t *testing.T) {
	for id, ok := range map[string]bool{
		"podjail_1_2_ab":    true,
		"podjail_x":         true,
		"podjail-1":         false, // a dash nests the slice
		"other_1":           false,
		"podjail_":          false,
		"podjail_a/b":       false,
		"podjail_a.slice":   false,
		"podjail_../escape": false,
	} {
		if err := CheckID(id); (err == nil) != ok {
			t.Errorf("CheckID(%q) = %v, want ok %t", id, err, ok)
		}
	}
}

func TestReadCounters(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cpu.stat", "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\nnr_periods 0\n")
	write("memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\noom_group_kill 0\n")
	write("memory.peak", "7340032\n")
	c, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Counters{CPU: 1500 * time.Millisecond, User: time.Second, System: 500 * time.Millisecond, OOM: 1, OOMKill: 2, Peak: 7340032}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if err := os.Remove(filepath.Join(dir, "memory.peak")); err != nil {
		t.Fatal(err)
	}
	if c, err := Read(dir); err != nil || c.Peak != -1 {
		t.Errorf("without memory.peak: %+v, %v; want peak -1", c, err)
	}
	if _, err := Read(filepath.Join(dir, "absent")); err == nil {
		t.Error("reading a missing cgroup succeeded")
	}
}

// TestKill: "1" into cgroup.kill; a cgroup already gone is no error.
func TestKill(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Kill(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cgroup.kill")); string(b) != "1" {
		t.Errorf("cgroup.kill holds %q, want 1", b)
	}
	if err := Kill(filepath.Join(dir, "gone")); err != nil {
		t.Errorf("a cgroup already gone: %v", err)
	}
}
