package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
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
	base      time.Duration // the parent's processor time at the go: not the program's
	cpu, idle time.Duration
}

func (d deadlines) watch(ctx context.Context, stop func(reason KillReason, note string)) {
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
			cpu, err := cgroupdrv.CPUUsage(d.dir)
			cpu -= d.base
			if err != nil {
				continue // the parent is read again next tick; a gone parent ends the run anyway
			}
			if d.cpu > 0 && cpu >= d.cpu {
				stop(KilledCPULimit, fmt.Sprintf("processor time %.3f s reached the ceiling %.3f s", cpu.Seconds(), d.cpu.Seconds()))
				return
			}
			wait := cgroupdrv.CPUWaiting(d.dir)
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
