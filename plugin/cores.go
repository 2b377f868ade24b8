package plugin

import (
	"slices"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/cgroupdrv"
)

// pinnableCores are the cores podjail is given (its own affinity) that runs
// can be pinned to, one run on each; nil, with a warning, where the cgroup
// tree the runs are made in has no cpuset controller (rootless without
// cpuset delegated), so that tests then run one at a time.
func pinnableCores(h cgroupdrv.Host, uid int, log hclog.Logger) []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		log.Warn("cannot read which cores podjail may use; tests run one at a time", "error", err)
		return nil
	}
	var cores []int
	for c := range 1024 {
		if set.IsSet(c) {
			cores = append(cores, c)
		}
	}
	have, err := h.Controllers()
	if uid != 0 && err == nil {
		have, err = h.Delegated(uid)
	}
	if err != nil || !slices.Contains(have, "cpuset") {
		log.Warn("no cpuset controller for the runs: tests run one at a time (podjail doctor says what to change)", "error", err)
		return nil
	}
	return cores
}
