package plugin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/policy"
)

func TestPinnableCores(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Skip(err)
	}
	var mine []int
	for c := range 1024 {
		if set.IsSet(c) {
			mine = append(mine, c)
		}
	}
	log := hclog.NewNullLogger()
	cases := []struct {
		name string
		root string
		uid  int
		want []int
	}{
		{"root, cpuset on", unifiedTree(t, "cpu memory pids"), 0, mine},
		{"rootless, cpuset delegated", unifiedTree(t, "cpuset cpu memory pids"), 1000, mine},
		{"rootless, cpuset not delegated", unifiedTree(t, "cpu memory pids"), 1000, nil},
		{"no cgroup tree", filepath.Join(t.TempDir(), "none"), 0, nil},
	}
	for _, c := range cases {
		if got := pinnableCores(cgroupdrv.Host{Root: c.root}, c.uid, log); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	noCpuset := t.TempDir()
	writeFile(t, filepath.Join(noCpuset, "cgroup.controllers"), "cpu memory pids\n")
	if got := pinnableCores(cgroupdrv.Host{Root: noCpuset}, 0, log); got != nil {
		t.Errorf("a tree without cpuset: %v, want none", got)
	}
}

func TestFindShim(t *testing.T) {
	dir := t.TempDir()
	shim := filepath.Join(dir, "podjail-shim")
	if err := os.WriteFile(shim, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PODJAIL_SHIM", "")
	if got, err := FindShim("none"); got != "" || err != nil {
		t.Errorf("none: %q %v", got, err)
	}
	if got, err := FindShim(shim); got != shim || err != nil {
		t.Errorf("a path: %q %v", got, err)
	}
	if _, err := FindShim(filepath.Join(dir, "missing")); err == nil {
		t.Error("a shim asked for but missing was found")
	}
	if _, err := FindShim(dir); err == nil {
		t.Error("a directory was taken for the shim")
	}
	t.Setenv("PODJAIL_SHIM", shim)
	if got, err := FindShim(""); got != shim || err != nil {
		t.Errorf("$PODJAIL_SHIM: %q %v", got, err)
	}
	t.Setenv("PODJAIL_SHIM", "")
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if got, err := FindShim(""); got != shimNear(exe) || err != nil {
		t.Errorf("the default lookup: %q %v, want shimNear's %q", got, err, shimNear(exe))
	}
}

func TestSeccompDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got := seccompDir(true); got != "/run/user/1000/podjail" {
		t.Errorf("rootless: %s", got)
	}
	if got := seccompDir(false); got != "/run/podjail" {
		t.Errorf("rootful: %s", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got := seccompDir(true); got != "/run/podjail" {
		t.Errorf("rootless without a runtime directory: %s", got)
	}
}

func TestNewRunnerUnreachable(t *testing.T) {
	_, err := NewRunner(context.Background(), Setup{URL: "unix://" + t.TempDir() + "/none.sock"})
	var unreachable *bindings.UnreachableError
	if !errors.As(err, &unreachable) {
		t.Errorf("NewRunner without Podman: %v, want UnreachableError", err)
	}
}

func TestAdoptLevelsOff(t *testing.T) {
	levels := policy.NewLevelPool()
	if levels.Enabled() {
		t.Skip("SELinux with MCS is enabled here")
	}
	rt := runnertest.NewRuntime(nil)
	if err := adoptLevels(context.Background(), rt, levels, hclog.NewNullLogger()); err != nil || levels.Len() != 0 {
		t.Errorf("levels off: %v, %d held", err, levels.Len())
	}
}

func TestMechanismWrappers(t *testing.T) {
	self, err := runner.Self()
	if err != nil || self.PID != os.Getpid() || self.BootID == "" {
		t.Fatalf("Self: %+v %v", self, err)
	}
	parent := t.TempDir()
	dir, err := runner.WorkDir(parent, self)
	if err != nil || filepath.Dir(dir) != parent {
		t.Fatalf("WorkDir: %s %v", dir, err)
	}
	if gone, err := runner.SweepWorkDirs(context.Background(), parent, self); err != nil || len(gone) != 0 {
		t.Errorf("SweepWorkDirs took a live process's: %v %v", gone, err)
	}
	if err := runner.HandBack(context.Background(), []string{dir}); err != nil {
		t.Errorf("HandBack of a directory already the caller's: %v", err)
	}
	cg := runnertest.NewCgroups(t)
	if gone, err := runner.SweepParents(context.Background(), cg, self); err != nil || len(gone) != 0 {
		t.Errorf("SweepParents of none: %v %v", gone, err)
	}
	rt := runnertest.NewRuntime(cg)
	if gone, err := runner.Sweep(context.Background(), rt, self); err != nil || len(gone) != 0 {
		t.Errorf("Sweep of none: %v %v", gone, err)
	}
}

func TestBoundsWithDefaults(t *testing.T) {
	b := Bounds{Limits: runner.Limits{Time: 2e9}}.WithDefaults()
	if b.Limits != (runner.Limits{Time: 2e9}).WithDefaults() || b.Limits.Memory == 0 || b.Limits.Output == 0 {
		t.Errorf("Bounds.WithDefaults: %+v", b.Limits)
	}
}

func TestNobodyObserver(t *testing.T) {
	o := orNobody(nil)
	o.Judged(JudgeResult{}, nil) // told nothing, and does not panic
	o.Built(BuildResult{}, nil)
	rec := &recorder{}
	if orNobody(rec) != Observer(rec) {
		t.Error("orNobody replaced an Observer")
	}
}
