package cgroupdrv

import "errors"

var (
	// ErrNotUnified is wrapped when the host does not mount cgroup v2 as
	// its only hierarchy.
	ErrNotUnified = errors.New("cgroup v2 is not the unified hierarchy")
	// ErrNoDelegation is wrapped when a user's systemd manager has no
	// delegated cgroup subtree.
	ErrNoDelegation = errors.New("no cgroup delegation")
	// ErrBusUnreachable is wrapped when systemd cannot be reached over D-Bus.
	ErrBusUnreachable = errors.New("systemd not reachable over D-Bus")
)
