package bench

import (
	"context"
	"fmt"
	"time"
)

// Before each timed stretch the bench waits for the host to be quiet: a
// stretch's host time is /proc/stat's, everything the host ran, so the tail
// of what came before (Podman's cleanup process of the last container, a
// service arming its next runs after a build) would be counted in it. The
// 2026-12-06 full run's --by-process table showed a bare lifecycle "running"
// a shim and its probe, left by the service's isolate runs just before.
const (
	// settleWindow is one reading of the host's busy time.
	settleWindow = time.Second
	// settleMost is how long the bench waits at most; then it goes on and
	// says the host was still busy.
	settleMost = 30 * time.Second
)

// quietHost tells whether the host is quiet enough to time on: busy for
// less than a tenth of one core over wall. Under the test VM's emulation an
// idle guest (systemd, the Podman services waiting) stays well under it.
func quietHost(busy, wall time.Duration) bool { return busy*10 < wall }

// settleHost waits until a window of settleWindow is quiet (quietHost), for
// settleMost at most, and says how long it waited and how busy the last
// window was. It does nothing when the host's time cannot be read.
func settleHost(ctx context.Context, what string, say func(string, ...any)) error {
	before := hostCPU()
	if before < 0 {
		return nil
	}
	began := time.Now()
	tick := time.NewTicker(settleWindow)
	defer tick.Stop()
	last := began
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-tick.C:
			after := hostCPU()
			busy, wall := after-before, now.Sub(last)
			waited := now.Sub(began).Round(100 * time.Millisecond)
			share := fmt.Sprintf("%.0f%% of a core busy", 100*busy.Seconds()/wall.Seconds())
			switch {
			case quietHost(busy, wall):
				say("... the host quiet before %s after %v (%s)", what, waited, share)
				return nil
			case now.Sub(began) >= settleMost:
				say("... the host still busy before %s after %v (%s): timing it anyway", what, waited, share)
				return nil
			}
			before, last = after, now
		}
	}
}
