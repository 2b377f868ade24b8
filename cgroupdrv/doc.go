// Package cgroupdrv reads and manages cgroup v2 for podjail: what the host
// offers (unified mount, controllers, delegation to a user) and, for runs,
// per-run parents under the cgroupfs or the systemd driver.
package cgroupdrv
