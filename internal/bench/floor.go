package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
)

// benchFloor is the bare REST lifecycles' cost, the floor a judge's is
// compared with. Zero: not measured.
type benchFloor struct {
	// Bare is the host's processor time per bare lifecycle
	// (bindings.BareLifecycle: nothing of podjail's), as a judge's HostCPU
	// (/proc/stat); Attached the same with stdout attached before the start
	// (bindings.BareAttachedLifecycle).
	Bare, Attached time.Duration
	// Cgroups is each cgroup's processor time per bare lifecycle, read
	// as a judge's Top is: the component-by-component floor.
	Cgroups map[string]time.Duration
	// Alive and AliveCgroups are Bare and Cgroups again with AliveCount
	// idle containers running beside (--idle). Zero: not measured.
	Alive        time.Duration
	AliveCgroups map[string]time.Duration
	AliveCount   int
	// Procs is Bare by command (--by-process). Nil: not measured.
	Procs procTimes
}

// benchFloors times n bare REST lifecycles of argv, then n with stdout
// attached, parallel at a time, and, given idle (a command that waits), n
// more with as many of it alive beside as a judge at that P keeps armed
// ahead. Zero when the host's time cannot be read or the runtime is not
// Podman's client.
// With m, the bare lifecycles' time is also split by command.
func benchFloors(ctx context.Context, rt bindings.Runtime, image string, argv, idle []string, n, parallel int, m *procMeter) (benchFloor, error) {
	c, ok := rt.(*bindings.Client)
	if !ok || hostCPU() < 0 {
		return benchFloor{}, nil
	}
	var f benchFloor
	if err := m.begin(); err != nil {
		return benchFloor{}, err
	}
	cg0 := cgroupUsage()
	bare, err := benchLifecycles(n, parallel, func() (int32, error) { return c.BareLifecycle(ctx, image, argv) })
	if err != nil {
		return benchFloor{}, err
	}
	f.Bare, f.Cgroups = bare, perRun(cg0, cgroupUsage(), n)
	if f.Procs, err = m.end(n); err != nil {
		return f, err
	}
	f.Attached, err = benchLifecycles(n, parallel, func() (int32, error) { return c.BareAttachedLifecycle(ctx, image, argv, io.Discard) })
	if err != nil || len(idle) == 0 {
		return f, err
	}
	f.AliveCount = plugin.Lookahead * parallel
	f.Alive, f.AliveCgroups, err = benchAlive(ctx, c, image, argv, idle, f.AliveCount, n, parallel)
	return f, err
}

// benchAlive starts k containers of idle and, while they run, times n bare
// lifecycles of argv as benchFloors does; the idle ones are removed
// whatever happens.
func benchAlive(ctx context.Context, c *bindings.Client, image string, argv, idle []string, k, n, parallel int) (time.Duration, map[string]time.Duration, error) {
	var ids []string
	defer func() {
		for _, id := range ids {
			_ = c.Remove(context.WithoutCancel(ctx), id)
		}
	}()
	for range k {
		id, err := c.BareIdle(ctx, image, idle)
		if err != nil {
			return 0, nil, fmt.Errorf("--idle: %w", err)
		}
		ids = append(ids, id)
	}
	cg0 := cgroupUsage()
	cpu, err := benchLifecycles(n, parallel, func() (int32, error) { return c.BareLifecycle(ctx, image, argv) })
	if err != nil {
		return 0, nil, err
	}
	return cpu, perRun(cg0, cgroupUsage(), n), nil
}

// perRun is each cgroup's processor time between two readings, per run.
func perRun(before, after map[string]time.Duration, n int) map[string]time.Duration {
	d := map[string]time.Duration{}
	for p, v := range after {
		if v > before[p] {
			d[p] = (v - before[p]) / time.Duration(n)
		}
	}
	return d
}

// benchLifecycles runs life n times, parallel at a time, and gives the
// host's processor time per run; a run must exit 0.
func benchLifecycles(n, parallel int, life func() (int32, error)) (time.Duration, error) {
	cpu0 := hostCPU()
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	errs := make(chan error, parallel)
	for range parallel {
		go func() {
			for range jobs {
				if code, err := life(); err != nil || code != 0 {
					errs <- fmt.Errorf("a bare lifecycle: exit %d, %v", code, err)
					return
				}
			}
			errs <- nil
		}()
	}
	var err error
	for range parallel {
		err = errors.Join(err, <-errs)
	}
	if err != nil {
		return 0, err
	}
	return (hostCPU() - cpu0) / time.Duration(n), nil
}

// startCPUProfile profiles this process into path until the returned
// function is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// benchRounds times k more pairs of n bare lifecycles and a judge of n
// tests of argv, parallel at a time, and gives each pair's judge's host
// CPU per test over its own floor's; settle waits for a quiet host before
// each half.
func benchRounds(ctx context.Context, r *plugin.Runner, image string, argv []string, n, parallel, k int, settle func(what string) error) ([]float64, error) {
	c, ok := r.Runtime.(*bindings.Client)
	if !ok {
		return nil, nil
	}
	var ratios []float64
	for range k {
		if err := settle("a pair's bare lifecycles"); err != nil {
			return ratios, err
		}
		bare, err := benchLifecycles(n, parallel, func() (int32, error) { return c.BareLifecycle(ctx, image, argv) })
		if err != nil {
			return ratios, err
		}
		if err := settle("a pair's judge"); err != nil {
			return ratios, err
		}
		j, err := benchJudgeOnce(ctx, r, image, argv, n, parallel)
		if err != nil {
			return ratios, err
		}
		ratios = append(ratios, j.HostCPU.Seconds()/bare.Seconds())
	}
	return ratios, nil
}

// medianOfRatios is the middle of xs, the mean of the two middle ones of
// an even count (of two pairs, the upper one would be the worse, not a
// middle); xs is sorted in a copy.
func medianOfRatios(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// sharedCores gives p cores for p tests at once: cores itself when it has
// as many, else its cores again in turn (two runs pinned to one core). A
// judge never shares a core; the bench does so that a one-processor VM can
// time a second slot.
func sharedCores(cores []int, p int) ([]int, error) {
	if len(cores) == 0 {
		return nil, errors.New("--parallel: podjail is given no core to pin runs to")
	}
	if p <= len(cores) {
		return cores, nil
	}
	shared := make([]int, p)
	for i := range shared {
		shared[i] = cores[i%len(cores)]
	}
	return shared, nil
}
