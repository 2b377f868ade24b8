package cgroupdrv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The readers a run's deadlines poll on the host, cheap enough for every
// tick: one file each; and the kill they end a run with.

// CPUUsage reads usage_usec of dir's cpu.stat.
func CPUUsage(dir string) (time.Duration, error) {
	data, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
			us, err := strconv.ParseInt(v, 10, 64)
			return time.Duration(us) * time.Microsecond, err
		}
	}
	return 0, fmt.Errorf("%s: no usage_usec", dir)
}

// CPUWaiting reads the "some" total of dir's cpu.pressure: time in which
// some task of the cgroup was runnable but not running. -1 without PSI.
func CPUWaiting(dir string) time.Duration {
	data, err := os.ReadFile(filepath.Join(dir, "cpu.pressure"))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "some ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "total="); ok {
				us, err := strconv.ParseInt(v, 10, 64)
				if err == nil {
					return time.Duration(us) * time.Microsecond
				}
			}
		}
	}
	return -1
}

// Kill kills every process in the cgroup tree at dir at once
// (cgroup.kill, Linux 5.14). A dir that is gone is not an error: what was
// in it is gone too.
func Kill(dir string) error {
	err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("kill cgroup %s: %w", dir, err)
	}
	return nil
}
