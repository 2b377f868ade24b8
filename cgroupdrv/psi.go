package cgroupdrv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The readers a run's deadlines poll on the host, cheap enough for every
// tick: one file each.

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
