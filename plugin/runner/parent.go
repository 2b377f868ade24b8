package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/shim"
)

// ParentID names a new parent cgroup of one of i's runs after i, so a
// later runner can tell whether its owner is gone and sweep it:
// podjail_<pid>_<start ticks>_<random>. Cgroups do not outlive a boot, so
// the boot id is not needed.
func (i Instance) ParentID() string {
	return fmt.Sprintf("%s%d_%d_%s", cgroupdrv.Prefix, i.PID, i.Start, randomHex(6))
}

// parentOwner reads the owner back from a parent's id.
func parentOwner(id string) (pid int, start uint64, ok bool) {
	parts := strings.Split(strings.TrimPrefix(id, cgroupdrv.Prefix), "_")
	if len(parts) != 3 {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(parts[0])
	start, err2 := strconv.ParseUint(parts[1], 10, 64)
	return pid, start, err1 == nil && err2 == nil
}

// SweepParents destroys the per-run parents whose runner is gone and
// returns their ids. Parents whose name does not parse are left alone.
func SweepParents(ctx context.Context, d cgroupdrv.Driver, self Instance) ([]string, error) {
	return sweepParents(ctx, d, self, processAlive, false)
}

// sweepParents is SweepParents with the liveness check given; mineToo
// also takes self's own parents (a closing runner's: none should be left).
func sweepParents(ctx context.Context, d cgroupdrv.Driver, self Instance, alive func(int, uint64) bool, mineToo bool) ([]string, error) {
	list, err := d.List(ctx)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, p := range list {
		pid, start, ok := parentOwner(p.ID)
		mine := pid == self.PID && start == self.Start
		if !ok || (mine && !mineToo) || (!mine && alive(pid, start)) {
			continue
		}
		if err := d.Destroy(ctx, p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p.ID)
	}
	return removed, errors.Join(errs...)
}

// programCgroup is the cgroup the shim put the program in below a run's
// parent: shim.ProgramCgroup beside shim.ShimCgroup, a few levels down
// (the container's cgroup and what the runtime makes inside it). "" when
// the shim has not made it.
func programCgroup(parent string) string {
	dirs := []string{parent}
	for depth := 0; depth < 4 && len(dirs) > 0; depth++ {
		var next []string
		for _, d := range dirs {
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				p := filepath.Join(d, e.Name())
				if e.Name() == shim.ProgramCgroup {
					if fi, err := os.Stat(filepath.Join(d, shim.ShimCgroup)); err == nil && fi.IsDir() {
						return p
					}
				}
				next = append(next, p)
			}
		}
		dirs = next
	}
	return ""
}
