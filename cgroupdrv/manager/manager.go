// Package manager picks the cgroup driver that matches what Podman uses.
package manager

import (
	"fmt"

	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/cgroupdrv/fs"
	"github.com/podjail/podjail/cgroupdrv/systemd"
)

// New returns the driver for Podman's cgroupManager ("systemd" or
// "cgroupfs", as podman info reports it). Rootless runs need the systemd
// manager: rootless Podman under cgroupfs gets no cgroups to limit or
// measure at all.
func New(cgroupManager string, rootless bool) (cgroupdrv.Driver, error) {
	switch cgroupManager {
	case "systemd":
		return &systemd.Driver{Bus: &systemd.Bus{User: rootless}}, nil
	case "cgroupfs":
		if rootless {
			return nil, fmt.Errorf(`%w: rootless Podman with the cgroupfs manager puts containers in no cgroup of their own; set cgroup_manager = "systemd" in ~/.config/containers/containers.conf`, cgroupdrv.ErrUnsupported)
		}
		return fs.Driver{}, nil
	default:
		return nil, fmt.Errorf(`%w: %q; set cgroup_manager = "systemd" or "cgroupfs" in containers.conf`, cgroupdrv.ErrUnsupported, cgroupManager)
	}
}
