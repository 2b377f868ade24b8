package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/podjail/podjail/bindings"
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
}

// benchFloors times n bare REST lifecycles of argv, then n with stdout
// attached, parallel at a time. Zero when the host's time cannot be read or
// the runtime is not Podman's client.
func benchFloors(ctx context.Context, rt bindings.Runtime, image string, argv []string, n, parallel int) (benchFloor, error) {
	c, ok := rt.(*bindings.Client)
	if !ok || hostCPU() < 0 {
		return benchFloor{}, nil
	}
	var f benchFloor
	cg0 := cgroupUsage()
	bare, err := benchLifecycles(n, parallel, func() (int32, error) { return c.BareLifecycle(ctx, image, argv) })
	if err != nil {
		return benchFloor{}, err
	}
	f.Bare, f.Cgroups = bare, perRun(cg0, cgroupUsage(), n)
	f.Attached, err = benchLifecycles(n, parallel, func() (int32, error) { return c.BareAttachedLifecycle(ctx, image, argv, io.Discard) })
	return f, err
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
