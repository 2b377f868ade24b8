package runner

import (
	"context"
	"slices"
	"testing"

	"github.com/podjail/podjail/cgroupdrv"
)

type fakeDriver struct {
	parents   []cgroupdrv.Parent
	destroyed []string
}

func (*fakeDriver) Name() string { return "fake" }
func (*fakeDriver) Create(context.Context, string) (cgroupdrv.Parent, error) {
	return cgroupdrv.Parent{}, nil
}
func (f *fakeDriver) Destroy(_ context.Context, p cgroupdrv.Parent) error {
	f.destroyed = append(f.destroyed, p.ID)
	return nil
}
func (f *fakeDriver) List(context.Context) ([]cgroupdrv.Parent, error) { return f.parents, nil }

func TestParentIDNamesItsOwner(t *testing.T) {
	self := Instance{PID: 4242, Start: 987654}
	id := self.ParentID()
	if err := cgroupdrv.CheckID(id); err != nil {
		t.Fatal(err)
	}
	pid, start, ok := parentOwner(id)
	if !ok || pid != 4242 || start != 987654 {
		t.Errorf("owner of %s: %d %d %t", id, pid, start, ok)
	}
}

func TestSweepParentsTakesOnlyDeadOwners(t *testing.T) {
	self := Instance{PID: 10, Start: 100}
	mine := self.ParentID()
	alive := (Instance{PID: 20, Start: 200}).ParentID()
	dead := (Instance{PID: 30, Start: 300}).ParentID()
	d := &fakeDriver{parents: []cgroupdrv.Parent{{ID: mine}, {ID: alive}, {ID: dead}, {ID: "podjail_foreign"}}}
	got, err := sweepParents(context.Background(), d, self, func(pid int, _ uint64) bool { return pid == 20 }, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{dead}) || !slices.Equal(d.destroyed, []string{dead}) {
		t.Errorf("swept %v, destroyed %v; want only %s", got, d.destroyed, dead)
	}
}

// A closing runner takes its own parents too, never a live instance's.
func TestSweepParentsMineTooAtClose(t *testing.T) {
	self := Instance{PID: 10, Start: 100}
	mine := self.ParentID()
	alive := (Instance{PID: 20, Start: 200}).ParentID()
	d := &fakeDriver{parents: []cgroupdrv.Parent{{ID: mine}, {ID: alive}}}
	got, err := sweepParents(context.Background(), d, self, func(pid int, _ uint64) bool { return pid == 20 }, true)
	if err != nil || !slices.Equal(got, []string{mine}) {
		t.Errorf("swept %v, %v; want only our own %s", got, err, mine)
	}
}
