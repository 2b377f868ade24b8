package runner

import (
	"os"
	"slices"
	"testing"
)

// fakeState is a snapshot of what the fake runtime saw.
type fakeState struct {
	created, started, removed, goes, kills []string
	live                                   int
}

func (rt *fakeRuntime) state() fakeState {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	s := fakeState{created: slices.Clone(rt.created), started: slices.Clone(rt.started), removed: slices.Clone(rt.removed),
		goes: slices.Clone(rt.goes), kills: slices.Clone(rt.kills)}
	for _, c := range rt.all {
		if !c.removed {
			s.live++
		}
	}
	return s
}

// container returns a container by id, removed or not.
func (rt *fakeRuntime) container(id string) *fakeContainer {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.all[id]
}

// liveIn reports whether a container not yet removed is in cgroupParent.
func (rt *fakeRuntime) liveIn(cgroupParent string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, c := range rt.all {
		if !c.removed && c.spec.CgroupParent == cgroupParent {
			return true
		}
	}
	return false
}

// assertNothingLeft checks every container created was removed and every
// parent made was destroyed, never while its container was alive.
func assertNothingLeft(t *testing.T, rt *fakeRuntime, cg *fakeCgroups) {
	t.Helper()
	s := rt.state()
	if s.live != 0 || len(s.removed) != len(s.created) {
		t.Errorf("containers left: %d live; created %v, removed %v", s.live, s.created, s.removed)
	}
	if cg == nil {
		return
	}
	made, destroyed, busy := cg.counts()
	if left := cg.left(t); len(left) != 0 || made != destroyed {
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
