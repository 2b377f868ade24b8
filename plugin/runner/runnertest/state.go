package runnertest

import (
	"maps"
	"os"
	"slices"
	"testing"
)

// State is a snapshot of what the fake runtime saw: the containers' ids in
// the order of each event.
type State struct {
	Created, Started, Removed []string
	Goes                      []string // the containers that got their go
	Kills                     []string // "id SIGNAL"
	HostKills                 []string // the containers whose program's cgroup was killed from the host before their stop
	Forced                    []string // removed while still running
	Live                      int      // containers not removed
}

// State returns what the runtime saw so far.
func (rt *Runtime) State() State {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	s := State{Created: slices.Clone(rt.created), Started: slices.Clone(rt.started), Removed: slices.Clone(rt.removed),
		Goes: slices.Clone(rt.goes), Kills: slices.Clone(rt.kills), HostKills: slices.Clone(rt.hostKills), Forced: slices.Clone(rt.forced)}
	for _, c := range rt.all {
		if !c.removed {
			s.Live++
		}
	}
	return s
}

// Removed reports whether the container was removed.
func (rt *Runtime) Removed(id string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	c := rt.all[id]
	return c != nil && c.removed
}

// Unpacked returns the files the shims' --unpack wrote, by container path.
func (rt *Runtime) Unpacked() map[string][]byte {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return maps.Clone(rt.unpacked)
}

// CopiedIn returns the files copied into containers through the API, by
// container path.
func (rt *Runtime) CopiedIn() map[string][]byte {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return maps.Clone(rt.copiedIn)
}

// Container returns a container by id, removed or not (nil: never created).
func (rt *Runtime) Container(id string) *Container {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.all[id]
}

// LiveIn reports whether a container not yet removed is in cgroupParent.
func (rt *Runtime) LiveIn(cgroupParent string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, c := range rt.all {
		if !c.removed && c.Spec.CgroupParent == cgroupParent {
			return true
		}
	}
	return false
}

// AssertNothingLeft checks every container created was removed and every
// parent made was destroyed, never while its container was alive.
func AssertNothingLeft(t testing.TB, rt *Runtime, cg *Cgroups) {
	t.Helper()
	s := rt.State()
	if s.Live != 0 || len(s.Removed) != len(s.Created) {
		t.Errorf("containers left: %d live; created %v, removed %v", s.Live, s.Created, s.Removed)
	}
	if cg == nil {
		return
	}
	made, destroyed, busy := cg.Counts()
	if left := cg.Left(t); len(left) != 0 || made != destroyed {
		t.Errorf("parents left: %v (made %d, destroyed %d)", left, made, destroyed)
	}
	if len(busy) != 0 {
		t.Errorf("parents destroyed before their container was removed: %v", busy)
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
