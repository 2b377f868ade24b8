package main

import (
	"testing"
	"time"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/isolate"
)

// isolate's limit options as the run request gets them; -k is the
// program's RLIMIT_STACK (the runner caps it at the memory limit).
func TestIsolateLimits(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want plugin.RunRequest
	}{
		{[]string{"--run", "--", "/p"}, plugin.RunRequest{Pids: 1}},
		{[]string{"-t", "1", "-x", "0.5", "-w", "3", "-k", "8192", "--cg", "--cg-mem", "65536", "-f", "1024", "-p", "--run", "--", "/p"},
			plugin.RunRequest{TimeLimit: time.Second, CPULimit: 1500 * time.Millisecond, WallLimit: 3 * time.Second,
				Pids: isolateUnlimitedPids, MemoryBytes: 64 << 20, StackBytes: 8 << 20, FileSizeBytes: 1 << 20}},
		{[]string{"-m", "262144", "-k", "0", "-w", "2", "--run", "--", "/p"},
			plugin.RunRequest{TimeLimit: 2 * time.Second, WallLimit: 2 * time.Second, Pids: 1, MemoryBytes: 256 << 20}},
	} {
		cmd, err := isolate.ParseArgs(c.argv)
		if err != nil {
			t.Fatal(err)
		}
		var got plugin.RunRequest
		isolateLimits(cmd, &got)
		if got.TimeLimit != c.want.TimeLimit || got.CPULimit != c.want.CPULimit || got.WallLimit != c.want.WallLimit ||
			got.Pids != c.want.Pids || got.MemoryBytes != c.want.MemoryBytes || got.StackBytes != c.want.StackBytes ||
			got.FileSizeBytes != c.want.FileSizeBytes {
			t.Errorf("%v:\n got %+v\nwant %+v", c.argv, got, c.want)
		}
	}
}
