package policy

import "github.com/opencontainers/selinux/go-selinux"

// SELinuxState describes the host's SELinux mode: "enforcing",
// "permissive" or "disabled". Per-run levels apply only when it is not
// disabled.
func SELinuxState() string {
	if !selinux.GetEnabled() {
		return "disabled"
	}
	switch selinux.EnforceMode() {
	case selinux.Enforcing:
		return "enforcing"
	case selinux.Permissive:
		return "permissive"
	}
	return "disabled"
}

// MCSEnabled reports whether SELinux is enabled with MLS/MCS, which
// per-run levels need (the targeted policy has it). Without it a
// LevelPool is a no-op and runs are kept apart by the type alone.
func MCSEnabled() bool {
	return selinux.GetEnabled() && selinux.MLSEnabled()
}
