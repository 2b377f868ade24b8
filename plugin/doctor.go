package plugin

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	cgmanager "github.com/podjail/podjail/cgroupdrv/manager"
	"github.com/podjail/podjail/cgroupdrv/systemd"
	"github.com/podjail/podjail/policy"
)

// Check is one host requirement and how the host fares.
type Check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Detail says what was found.
	Detail string `json:"detail"`
	// Fix says what to change. Empty when OK.
	Fix string `json:"fix,omitempty"`
}

// RequiredControllers must be available at the cgroup root and, for
// rootless, delegated to the user.
var RequiredControllers = []string{"cpu", "cpuset", "memory", "pids"}

// MinKernel is the first kernel with memory.peak.
var MinKernel = [2]int{5, 19}

// DoctorInput is what Doctor looks at.
type DoctorInput struct {
	// Cgroups reads the cgroup mount. Zero value: /sys/fs/cgroup.
	Cgroups cgroupdrv.Host
	// UID is the caller's effective uid; non-zero means rootless.
	UID int
	// Kernel is the kernel release (uname -r). Zero value: this host's.
	Kernel string
	// Runtime is the Podman service, or nil when it could not be reached.
	Runtime bindings.Runtime
	// ConnectErr is why Runtime is nil.
	ConnectErr error
	// SystemdVersion asks systemd over D-Bus. Zero value: asks the
	// manager podjail would start slices with.
	SystemdVersion func(rootless bool) (string, error)
	// SELinux reports the SELinux mode. Zero value: policy.SELinuxState.
	SELinux func() string
	// Shim is the host path of the shim, whose SELinux label is checked
	// on an SELinux host. Zero value: not checked.
	Shim string
	// FileLabel and Boolean read a file's SELinux label and a policy
	// boolean. Zero values: this host's (go-selinux, selinuxfs).
	FileLabel func(path string) (string, error)
	Boolean   func(name string) (bool, error)
	// Allows asks the loaded policy whether a source context may do perms
	// on a target's class. Zero value: this host's (policy.SELinuxAllows).
	Allows func(scon, tcon, class string, perms ...string) (bool, error)
	// Module reports whether a policy module is installed. Zero value:
	// this host's module store (policy.ModuleInstalled, root only).
	Module func(name string) (bool, error)
}

// Doctor checks every host requirement. The host is fit when every check is OK.
func Doctor(ctx context.Context, in DoctorInput) []Check {
	if in.Kernel == "" {
		in.Kernel = kernelRelease()
	}
	if in.SystemdVersion == nil {
		in.SystemdVersion = func(rootless bool) (string, error) {
			bus := &systemd.Bus{User: rootless}
			defer bus.Close()
			return bus.Version(ctx)
		}
	}
	if in.SELinux == nil {
		in.SELinux = policy.SELinuxState
	}
	rootless := in.UID != 0
	checks := []Check{}
	controllers, cgErr := in.Cgroups.Controllers()
	checks = append(checks, unifiedCheck(controllers, cgErr))
	checks = append(checks, controllersCheck(controllers, cgErr))
	checks = append(checks, delegationCheck(in.Cgroups, in.UID))
	checks = append(checks, kernelCheck(in.Kernel))

	var host bindings.HostInfo
	hostErr := in.ConnectErr
	if in.Runtime != nil {
		host, hostErr = in.Runtime.Host(ctx)
	}
	checks = append(checks, podmanChecks(host, hostErr)...)
	checks = append(checks, dbusCheck(host, hostErr, rootless, in.SystemdVersion))
	state := in.SELinux()
	checks = append(checks, Check{Name: "SELinux", OK: true, Detail: selinuxDetail(state)})
	if state != "disabled" {
		checks = append(checks, selinuxChecks(in, state == "enforcing")...)
	}
	return checks
}

// Fit reports whether every check passed.
func Fit(checks []Check) bool {
	for _, c := range checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func unifiedCheck(controllers []string, err error) Check {
	c := Check{Name: "cgroup v2 unified"}
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "boot the host with systemd.unified_cgroup_hierarchy=1 (Fedora, RHEL 9 and Debian 12+ do by default)"
		return c
	}
	c.OK = true
	c.Detail = "cgroup.controllers: " + strings.Join(controllers, " ")
	return c
}

func controllersCheck(controllers []string, err error) Check {
	c := Check{Name: "cgroup controllers"}
	if err != nil {
		c.Detail = "unknown: cgroup v2 is not unified"
		c.Fix = "fix the cgroup v2 check first"
		return c
	}
	missing := cgroupdrv.Missing(controllers, RequiredControllers)
	if len(missing) > 0 {
		c.Detail = "missing at the root: " + strings.Join(missing, " ")
		c.Fix = "enable them in the kernel (CONFIG_CPUSETS, CONFIG_MEMCG, CONFIG_CGROUP_PIDS, CONFIG_CGROUP_SCHED)"
		return c
	}
	c.OK = true
	c.Detail = strings.Join(RequiredControllers, " ") + " available"
	return c
}

func delegationCheck(h cgroupdrv.Host, uid int) Check {
	c := Check{Name: "delegation to the user"}
	if uid == 0 {
		c.OK = true
		c.Detail = "not needed: running as root"
		return c
	}
	have, err := h.Delegated(uid)
	if err != nil {
		c.Detail = err.Error()
		c.Fix = fmt.Sprintf("loginctl enable-linger %d, then log in again", uid)
		return c
	}
	missing := cgroupdrv.Missing(have, RequiredControllers)
	if len(missing) > 0 {
		c.Detail = fmt.Sprintf("user@%d.service has %s; missing %s", uid, strings.Join(have, " "), strings.Join(missing, " "))
		c.Fix = "install contrib/systemd/user@.service.d/delegate.conf (Delegate=cpu cpuset io memory pids) into /etc/systemd/system/user@.service.d/, then systemctl daemon-reload and log in again"
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("user@%d.service has %s", uid, strings.Join(have, " "))
	return c
}

func kernelCheck(release string) Check {
	c := Check{Name: "kernel >= " + fmt.Sprintf("%d.%d", MinKernel[0], MinKernel[1]), Detail: release}
	major, minor, ok := parseKernel(release)
	switch {
	case !ok:
		c.Fix = "could not read the kernel version; podjail needs 5.19 or newer (memory.peak)"
	case major > MinKernel[0] || major == MinKernel[0] && minor >= MinKernel[1]:
		c.OK = true
	default:
		c.Fix = "upgrade the kernel to 5.19 or newer (memory.peak)"
	}
	return c
}

func parseKernel(release string) (major, minor int, ok bool) {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	digits := parts[1]
	if i := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = digits[:i]
	}
	minor, err2 := strconv.Atoi(digits)
	return major, minor, err1 == nil && err2 == nil
}

func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

func podmanChecks(h bindings.HostInfo, err error) []Check {
	podman := Check{Name: "Podman >= 5 on the socket"}
	runtime := Check{Name: "OCI runtime crun"}
	manager := Check{Name: "cgroup manager"}
	if err != nil {
		podman.Detail = err.Error()
		podman.Fix = "start the Podman API socket (see the message above)"
		for _, c := range []*Check{&runtime, &manager} {
			c.Detail = "unknown: Podman not reachable"
			c.Fix = "fix the Podman check first"
		}
		return []Check{podman, runtime, manager}
	}
	podman.OK = true
	podman.Detail = fmt.Sprintf("podman %s (API %s)", h.Version, h.APIVersion)

	runtime.Detail = h.OCIRuntime
	if h.OCIRuntime == "crun" {
		runtime.OK = true
	} else {
		runtime.Fix = `set runtime = "crun" under [engine] in containers.conf and install crun`
	}

	manager.Detail = fmt.Sprintf("%s (cgroups %s)", h.CgroupManager, h.CgroupVersion)
	switch {
	case h.CgroupVersion != "v2":
		manager.Fix = "Podman must run on cgroup v2"
	default:
		if _, err := cgmanager.New(h.CgroupManager, h.Rootless); err != nil {
			manager.Detail += ": " + err.Error()
			manager.Fix = `set cgroup_manager = "systemd" under [engine] in containers.conf`
		} else {
			manager.OK = true
		}
	}
	return []Check{podman, runtime, manager}
}

func dbusCheck(h bindings.HostInfo, hostErr error, rootless bool, systemdVersion func(bool) (string, error)) Check {
	c := Check{Name: "D-Bus to systemd"}
	if hostErr == nil && h.CgroupManager == "cgroupfs" {
		c.OK = true
		c.Detail = "not needed: Podman uses the cgroupfs manager"
		return c
	}
	v, err := systemdVersion(rootless)
	if err != nil {
		c.Detail = err.Error()
		if rootless {
			c.Fix = "run inside a login session or with lingering enabled, with XDG_RUNTIME_DIR set (the user bus is $XDG_RUNTIME_DIR/bus; install dbus-user-session)"
		} else {
			c.Fix = "start the system bus: systemctl start dbus.socket"
		}
		return c
	}
	c.OK = true
	c.Detail = "systemd " + v
	return c
}

func selinuxDetail(state string) string {
	switch state {
	case "disabled":
		return "disabled: runs get no per-run SELinux level (capabilities and seccomp still apply)"
	case "permissive":
		return "permissive: every run gets its own MCS level, but denials are only logged (setenforce 1 enforces them)"
	}
	return state + ": every run gets its own MCS level"
}
