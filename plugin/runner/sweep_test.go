package runner

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

// sweeps is an Observer that records the sweeps it is told of.
type sweeps struct {
	nobody
	mu   sync.Mutex
	seen map[Orphan]int
}

func (s *sweeps) Swept(o Orphan, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[Orphan]int{}
	}
	s.seen[o] += n
}

// me is this test process as an Instance: alive.
func me(t *testing.T) Instance {
	t.Helper()
	start, err := processStart(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return Instance{BootID: testSelf.BootID, PID: os.Getpid(), Start: start, Host: testSelf.Host}
}

func TestSweepAndCloseTakeWhatTheyShould(t *testing.T) {
	ctx := context.Background()
	cg := runnertest.NewCgroups(t)
	rt := runnertest.NewRuntime(cg)
	dead := Instance{BootID: testSelf.BootID, PID: 1 << 30, Start: 7, Host: testSelf.Host}
	otherBoot := Instance{BootID: "another-boot", PID: os.Getpid(), Start: 1, Host: testSelf.Host}
	otherHost := Instance{BootID: "another-boot", PID: 1 << 30, Start: 7, Host: "elsewhere"}
	owners := map[string]map[string]string{
		"dead":      dead.Labels("run"),
		"otherboot": otherBoot.Labels("run"),
		"elsewhere": otherHost.Labels("run"),
		"alive":     me(t).Labels("run"),
		"mine":      testSelf.Labels("run"),
		"garbled":   {LabelInstance: "boot/x/1", LabelHost: testSelf.Host},
	}
	ids := map[string]string{}
	for _, name := range []string{"dead", "otherboot", "elsewhere", "alive", "mine", "garbled"} {
		id, err := rt.Create(ctx, bindings.Spec{Name: name, Image: "img", Command: []string{"/p"}, Labels: owners[name]})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	parents := map[string]string{"dead": dead.ParentID(), "alive": me(t).ParentID(), "mine": testSelf.ParentID(), "garbled": "podjail_x"}
	for _, id := range parents {
		if _, err := cg.Create(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	obs := &sweeps{}
	SweepContainers(ctx, rt, testSelf, hclog.NewNullLogger(), obs)
	SweepParentsLogged(ctx, cg, testSelf, hclog.NewNullLogger(), obs)
	if obs.seen[OrphanContainer] != 2 || obs.seen[OrphanParent] != 1 {
		t.Errorf("swept %v, want 2 containers (a dead instance's, another boot's) and 1 parent", obs.seen)
	}
	for name, id := range ids {
		if want := name == "dead" || name == "otherboot"; rt.Removed(id) != want {
			t.Errorf("container %s removed %t, want %t", name, rt.Removed(id), want)
		}
	}
	want := []string{parents["alive"], parents["garbled"], parents["mine"]}
	slices.Sort(want)
	if left := cg.Left(t); !slices.Equal(left, want) {
		t.Errorf("parents left %v, want %v", left, want)
	}

	// Close takes the runner's own too, and tells of them.
	obs = &sweeps{}
	r := &Runner{Runtime: rt, Self: testSelf, Cgroups: cg, Observer: obs}
	r.Close(ctx)
	if !rt.Removed(ids["mine"]) || rt.Removed(ids["alive"]) || rt.Removed(ids["elsewhere"]) || rt.Removed(ids["garbled"]) {
		t.Errorf("Close: mine removed %t, a live instance's %t, another host's %t, garbled %t; want only mine",
			rt.Removed(ids["mine"]), rt.Removed(ids["alive"]), rt.Removed(ids["elsewhere"]), rt.Removed(ids["garbled"]))
	}
	want = []string{parents["alive"], parents["garbled"]}
	slices.Sort(want)
	if left := cg.Left(t); !slices.Equal(left, want) {
		t.Errorf("parents left at close %v, want %v", left, want)
	}
	if obs.seen[OrphanContainer] != 1 || obs.seen[OrphanParent] != 1 {
		t.Errorf("Close told of %v, want 1 container and 1 parent", obs.seen)
	}

	// Without a cgroup driver, Close removes containers alone.
	id, err := rt.Create(ctx, bindings.Spec{Name: "mine2", Image: "img", Labels: testSelf.Labels("run")})
	if err != nil {
		t.Fatal(err)
	}
	(&Runner{Runtime: rt, Self: testSelf}).Close(ctx)
	if !rt.Removed(id) {
		t.Error("Close without cgroups left its container")
	}
}

func TestSweepParentsPublic(t *testing.T) {
	cg := runnertest.NewCgroups(t)
	ctx := context.Background()
	dead := Instance{PID: 1 << 30, Start: 7}
	for _, id := range []string{dead.ParentID(), testSelf.ParentID()} {
		if _, err := cg.Create(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	gone, err := SweepParents(ctx, cg, testSelf)
	if err != nil || len(gone) != 1 || len(cg.Left(t)) != 1 {
		t.Errorf("swept %v (%v), left %v; want the dead one's alone", gone, err, cg.Left(t))
	}
}

func TestSweepWorkDirsPublic(t *testing.T) {
	parent := t.TempDir()
	mine, err := WorkDir(parent, testSelf)
	if err != nil {
		t.Fatal(err)
	}
	old := Instance{BootID: "0ldb00t0-of-another", PID: 1, Start: 1}
	theirs, err := WorkDir(parent, old)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := SweepWorkDirs(context.Background(), parent, testSelf)
	if err != nil || !slices.Equal(gone, []string{theirs}) {
		t.Errorf("swept %v (%v), want %s alone", gone, err, theirs)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("own work directory: %v", err)
	}
	if _, err := SweepWorkDirs(context.Background(), parent+"/none", testSelf); err == nil {
		t.Error("swept a parent that does not exist")
	}
}
