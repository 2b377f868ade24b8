package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// watchInterval is how often the deadlines read the run's cgroup. A tenth
// of a second is small beside any time limit and costs two file reads.
const watchInterval = 100 * time.Millisecond

// deadlines watches a run's parent cgroup from the host: the processor
// ceiling (total CPU reaches cpu) and no progress (idle elapsed time in
// which the CPU total did not grow; time the run spent runnable but
// waiting, by cpu.pressure, does not count as idle).
type deadlines struct {
	dir       string
	cpu, idle time.Duration
}

func (d deadlines) watch(ctx context.Context, stop func(reason, note string)) {
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	lastCPU, lastWait := time.Duration(-1), time.Duration(-1)
	var idleFor time.Duration
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			elapsed := now.Sub(last)
			last = now
			cpu, err := cpuUsage(d.dir)
			if err != nil {
				continue // the parent is read again next tick; a gone parent ends the run anyway
			}
			if d.cpu > 0 && cpu >= d.cpu {
				stop(KilledCPULimit, fmt.Sprintf("processor time %.3f s reached the ceiling %.3f s", cpu.Seconds(), d.cpu.Seconds()))
				return
			}
			wait := cpuWaiting(d.dir)
			if cpu != lastCPU || (wait >= 0 && wait != lastWait) {
				idleFor = 0
			} else {
				idleFor += elapsed
			}
			lastCPU, lastWait = cpu, wait
			if d.idle > 0 && idleFor >= d.idle {
				stop(KilledIdle, fmt.Sprintf("no processor time used for %.1f s (limit %.1f s), %.3f s in all", idleFor.Seconds(), d.idle.Seconds(), cpu.Seconds()))
				return
			}
		}
	}
}

// cpuUsage reads usage_usec of dir's cpu.stat.
func cpuUsage(dir string) (time.Duration, error) {
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

// cpuWaiting reads the "some" total of dir's cpu.pressure: time in which
// some task of the cgroup was runnable but not running. -1 without PSI.
func cpuWaiting(dir string) time.Duration {
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
