package engine

// The cores of the runs nobody pins. A judge pins its tests, one to a core
// of the Runner's Cores, so that each test's processor time is its own; a
// Run or an Exec beside it, on any core, would share one with a test and
// could make its verdict TLE. So while judges hold cores, those runs get
// the cores no judge holds, and wait while judges hold them all.

import (
	"context"
	"strconv"
	"strings"
	"sync"
)

// cores tracks which of the Runner's cores judges hold. The zero value
// (and nil) pins nothing: a Runner without Cores (no cpuset controller)
// pins no test either.
type cores struct {
	all []int

	mu    sync.Mutex
	held  map[int]int   // core → judges holding it
	freed chan struct{} // closed, and made anew, when a judge lets cores go
}

func newCores(all []int) *cores {
	return &cores{all: all, held: map[int]int{}, freed: make(chan struct{})}
}

// pinnedBy are the cores a judge asking for parallel tests pins them to,
// as plugin.Runner.slots picks them: the first n of all, n being parallel
// or one per core; none for one test at a time (it runs unpinned) or for
// a parallel the judge will refuse.
func pinnedBy(all []int, parallel int) []int {
	n := parallel
	if n == 0 {
		n = max(1, len(all))
	}
	if n <= 1 || n > len(all) {
		return nil
	}
	return all[:n]
}

// hold marks the cores a judge asking for parallel pins as held until
// release.
func (c *cores) hold(parallel int) (release func()) {
	if c == nil {
		return func() {}
	}
	pinned := pinnedBy(c.all, parallel)
	c.mu.Lock()
	for _, k := range pinned {
		c.held[k]++
	}
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, k := range pinned {
				if c.held[k]--; c.held[k] == 0 {
					delete(c.held, k)
				}
			}
			if len(pinned) > 0 {
				close(c.freed)
				c.freed = make(chan struct{})
			}
		})
	}
}

// unpinned is the cpuset for a run nobody pins: "" (any core) while no
// judge holds one, else the cores none holds, waiting until ctx ends while
// judges hold them all.
func (c *cores) unpinned(ctx context.Context) (string, error) {
	if c == nil {
		return "", nil
	}
	for {
		c.mu.Lock()
		set, ok := freeSet(c.all, c.held)
		freed := c.freed
		c.mu.Unlock()
		if ok {
			return set, nil
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return "", context.Cause(ctx)
		}
	}
}

// freeSet decides a run's cpuset from the cores judges hold: "" when they
// hold none (the run goes where the scheduler puts it, as it always has,
// and keeps its shape for the warm pool), the cores they do not hold,
// or false when they hold every one.
func freeSet(all []int, held map[int]int) (string, bool) {
	if len(held) == 0 {
		return "", true
	}
	var free []string
	for _, k := range all {
		if held[k] == 0 {
			free = append(free, strconv.Itoa(k))
		}
	}
	if len(free) == 0 {
		return "", false
	}
	return strings.Join(free, ","), true
}
