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

// benchFloors times n bare REST lifecycles of argv (bindings.BareLifecycle:
// nothing of podjail's), then n with stdout attached
// (bindings.BareAttachedLifecycle), parallel at a time, and gives the
// host's processor time per lifecycle of each (/proc/stat, as a judge's
// HostCPU). Zeros when the host's time cannot be read or the runtime is not
// Podman's client.
func benchFloors(ctx context.Context, rt bindings.Runtime, image string, argv []string, n, parallel int) (bare, attached time.Duration, err error) {
	c, ok := rt.(*bindings.Client)
	if !ok || hostCPU() < 0 {
		return 0, 0, nil
	}
	bare, err = benchLifecycles(n, parallel, func() (int32, error) { return c.BareLifecycle(ctx, image, argv) })
	if err != nil {
		return 0, 0, err
	}
	attached, err = benchLifecycles(n, parallel, func() (int32, error) { return c.BareAttachedLifecycle(ctx, image, argv, io.Discard) })
	return bare, attached, err
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
