package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/selinux/go-selinux"
)

// shimTypes are the labels of the shim a run container may enter: the one
// contrib/selinux gives it, and Podman's shared relabel.
var shimTypes = []string{"container_ro_file_t", "container_file_t"}

// selinuxChecks are what an SELinux host needs for runs (contrib/selinux):
// the shim labelled so containers may enter it, and container_manage_cgroup
// on, since the shim makes the program's cgroup. Enforcing, a miss makes
// every run fail; permissive, it is only logged, so the host stays fit.
func selinuxChecks(in DoctorInput, enforcing bool) []Check {
	if in.FileLabel == nil {
		in.FileLabel = selinux.FileLabel
	}
	if in.Boolean == nil {
		in.Boolean = selinuxBoolean
	}
	var checks []Check
	if in.Shim != "" {
		c := Check{Name: "SELinux: shim label", OK: true}
		label, err := in.FileLabel(in.Shim)
		typ := ""
		if con, cerr := selinux.NewContext(label); err == nil && cerr == nil {
			typ = con["type"]
		}
		switch {
		case err != nil:
			c.Detail = fmt.Sprintf("%s: %v", in.Shim, err)
		case !slices.Contains(shimTypes, typ):
			c.Detail = fmt.Sprintf("%s is %s: containers may not enter it", in.Shim, label)
		default:
			c.Detail = fmt.Sprintf("%s is %s", in.Shim, label)
		}
		if err != nil || !slices.Contains(shimTypes, typ) {
			c.OK = !enforcing
			c.Fix = "install contrib/selinux's module and the shim where it labels it (restorecon -v " + in.Shim +
				"), or: semanage fcontext -a -t container_ro_file_t " + in.Shim + " && restorecon -v " + in.Shim
		}
		checks = append(checks, c)
	}
	c := Check{Name: "SELinux: cgroup boolean", OK: true}
	on, err := in.Boolean("container_manage_cgroup")
	switch {
	case err != nil:
		c.Detail = "container_manage_cgroup: " + err.Error()
	case !on:
		c.Detail = "container_manage_cgroup is off: the shim cannot make the program's cgroup"
	default:
		c.Detail = "container_manage_cgroup is on"
	}
	if !on {
		c.OK = !enforcing
		c.Fix = "setsebool -P container_manage_cgroup on"
	}
	return append(checks, c)
}

// selinuxBoolean reads a policy boolean's current value from selinuxfs
// ("1 1": current, pending).
func selinuxBoolean(name string) (bool, error) {
	b, err := os.ReadFile(filepath.Join("/sys/fs/selinux/booleans", name))
	if err != nil {
		return false, fmt.Errorf("the policy has no such boolean (no container policy module?): %w", err)
	}
	return strings.HasPrefix(string(b), "1"), nil
}
