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
	// ErrBadID is wrapped when a parent's name is not one podjail makes.
	ErrBadID = errors.New("bad cgroup parent name")
	// ErrUnsupported is wrapped when Podman's cgroup manager cannot give
	// podjail a per-run parent.
	ErrUnsupported = errors.New("cgroup manager not supported")
	// ErrJob is wrapped when a systemd job failed or did not finish in time.
	ErrJob = errors.New("systemd job failed")
	// ErrBusy is wrapped when a parent could not be emptied and removed.
	ErrBusy = errors.New("cgroup still busy")
)
