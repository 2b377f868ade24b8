// Package cgroupdrv is podjail's trusted half of measurement: it reads
// what a host's cgroup v2 mount offers (unified mount, controllers,
// delegation to a user) and defines the per-run parent cgroup every run is
// made under. The parent outlives the run's container, so its hierarchical
// counters (Read: cpu.stat, memory.events, memory.peak) are read on the host
// after the container and everything in it are gone.
//
// Driver is implemented by package fs (Podman's cgroupfs manager: a
// directory) and package systemd (its systemd manager: a transient slice
// started and stopped over D-Bus); package manager picks the one that
// matches what Podman reports.
package cgroupdrv
