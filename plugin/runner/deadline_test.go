package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/runner/runnertest"
)

// parentDir is a fake parent cgroup with its cpu.stat and, if pressure,
// its cpu.pressure.
func parentDir(t *testing.T, usage time.Duration, pressure bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := runnertest.SetCPU(dir, usage); err != nil {
		t.Fatal(err)
	}
	if pressure {
		if err := runnertest.SetPressure(dir, 0); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type stopped struct {
	reason KillReason
	note   string
	at     time.Time
}

// watchIn runs the deadlines on dir until they stop the run or ctx ends;
// the stop arrives on the channel, which is closed when watch returns.
func watchIn(ctx context.Context, d deadlines) <-chan stopped {
	ch := make(chan stopped, 1)
	go func() {
		defer close(ch)
		d.watch(ctx, func(reason KillReason, note string) { ch <- stopped{reason, note, time.Now()} })
	}()
	return ch
}

func TestDeadlineProcessorCeiling(t *testing.T) {
	// The ceiling counts from the go: the setup's 5 s are not the program's.
	dir := parentDir(t, 5*time.Second+900*time.Millisecond, true)
	ch := watchIn(context.Background(), deadlines{dir: dir, base: 5 * time.Second, cpu: time.Second, idle: 250 * time.Millisecond})
	// 0.9 s since the go, under the ceiling: the run sits idle and the
	// idle deadline, not the ceiling, stops it.
	s := <-ch
	if s.reason != KilledIdle {
		t.Fatalf("stopped for %q (%s), want no progress", s.reason, s.note)
	}
	dir = parentDir(t, 5*time.Second+900*time.Millisecond, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch = watchIn(ctx, deadlines{dir: dir, base: 5 * time.Second, cpu: time.Second})
	if err := runnertest.ChargeCPU(dir, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	s = <-ch
	if s.reason != KilledCPULimit || s.note != "processor time 1.100 s reached the ceiling 1.000 s" {
		t.Errorf("stopped for %q (%s)", s.reason, s.note)
	}
	if _, open := <-ch; open {
		t.Error("watch went on after stopping the run")
	}
}

// A run that waits for a processor (cpu.pressure grows) is not idle, even
// though its processor time does not grow; once the waiting ends, the
// idle time counts.
func TestDeadlineNoProgressRespectsPressure(t *testing.T) {
	dir := parentDir(t, 0, true)
	const idle = 200 * time.Millisecond
	ch := watchIn(context.Background(), deadlines{dir: dir, idle: idle})
	waitingEnds := time.Now().Add(3 * idle)
	var waited time.Duration
	ticker := time.NewTicker(watchInterval / 4)
	for now := range ticker.C {
		if now.After(waitingEnds) {
			break
		}
		waited += time.Millisecond
		if err := runnertest.SetPressure(dir, waited); err != nil {
			t.Fatal(err)
		}
	}
	ticker.Stop()
	stoppedWaiting := time.Now()
	s := <-ch
	if s.reason != KilledIdle {
		t.Fatalf("stopped for %q", s.reason)
	}
	if s.at.Before(stoppedWaiting) {
		t.Errorf("stopped as idle %v before the run stopped waiting for a processor", stoppedWaiting.Sub(s.at))
	}
	if since := s.at.Sub(stoppedWaiting); since < idle-watchInterval {
		t.Errorf("stopped %v after the waiting ended, idle limit %v", since, idle)
	}
}

// Without cpu.pressure (no PSI) only the processor time tells progress.
func TestDeadlineNoProgressWithoutPSI(t *testing.T) {
	dir := parentDir(t, time.Second, false)
	began := time.Now()
	s := <-watchIn(context.Background(), deadlines{dir: dir, idle: 200 * time.Millisecond})
	if s.reason != KilledIdle || s.at.Sub(began) < 200*time.Millisecond {
		t.Errorf("stopped for %q after %v", s.reason, s.at.Sub(began))
	}
}

// An unreadable parent is read again next tick, never taken for idle.
func TestDeadlineUnreadableParentIsNotIdle(t *testing.T) {
	dir := parentDir(t, 0, true)
	if err := os.Remove(filepath.Join(dir, "cpu.stat")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*watchInterval)
	defer cancel()
	if s, ok := <-watchIn(ctx, deadlines{dir: dir, cpu: time.Nanosecond, idle: watchInterval}); ok {
		t.Errorf("stopped for %q with no cpu.stat", s.reason)
	}
}
