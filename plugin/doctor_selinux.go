package plugin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/selinux/go-selinux"

	"github.com/podjail/podjail/policy"
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
	if in.Allows == nil {
		in.Allows = policy.SELinuxAllows
	}
	if in.Module == nil {
		in.Module = policy.ModuleInstalled
	}
	checks := []Check{moduleCheck(in, enforcing)}
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

// moduleFix is contrib/selinux/README.md's install, in one line.
const moduleFix = "install contrib/selinux's module: make -f /usr/share/selinux/devel/Makefile podjail.pp && semodule -i podjail.pp"

// moduleCheck: contrib/selinux's module is installed (root can tell) and
// what it gives is in force: container_t may enter the shim's
// container_ro_file_t and keeps CAP_SETUID, CAP_SETGID and CAP_CHOWN.
// Fedora's container-selinux grants both already; Debian's refpolicy
// needs the module. A question the policy does not answer (no
// compute_av for the caller) leaves the check OK, saying so.
func moduleCheck(in DoctorInput, enforcing bool) Check {
	c := Check{Name: "SELinux: podjail module", OK: true}
	var notes []string
	switch on, err := in.Module("podjail"); {
	case err != nil:
		notes = append(notes, "module store not readable here (root can tell)")
	case on:
		notes = append(notes, "podjail module installed")
	default:
		notes = append(notes, "podjail module not installed")
	}
	proc, file := "system_u:system_r:container_t:s0", "system_u:object_r:container_ro_file_t:s0"
	rules := []struct {
		tcon, class, what string
		perms             []string
	}{
		{file, "file", "container_t may enter container_ro_file_t", []string{"entrypoint", "execute", "read"}},
		{proc, "capability", "container_t keeps setuid, setgid, chown", []string{"setuid", "setgid", "chown"}},
	}
	for _, r := range rules {
		ok, err := in.Allows(proc, r.tcon, r.class, r.perms...)
		switch {
		case err != nil:
			notes = append(notes, "cannot ask the policy whether "+r.what+": "+err.Error())
		case ok:
			notes = append(notes, r.what)
		default:
			notes = append(notes, "the policy denies that "+r.what)
			c.OK = !enforcing
			c.Fix = moduleFix
		}
	}
	c.Detail = strings.Join(notes, "; ")
	return c
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

// ErrShimLabel is wrapped when SELinux is enforcing and the shim has a
// label run containers may not execute: every run would die at its first
// instruction (seen: exit 139, the map of the shim denied).
var ErrShimLabel = errors.New("the shim's SELinux label keeps containers from running it")

// shimUsable refuses, on an enforcing host, a shim whose label type
// containers may not enter, with the fix; elsewhere it says nothing.
func shimUsable(shim, state string, fileLabel func(string) (string, error)) error {
	if shim == "" || state != "enforcing" {
		return nil
	}
	label, err := fileLabel(shim)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrShimLabel, shim, err)
	}
	if con, err := selinux.NewContext(label); err == nil && slices.Contains(shimTypes, con["type"]) {
		return nil
	}
	return fmt.Errorf("%w: %s is %s; install contrib/selinux's module and the shim at /usr/libexec/podjail/podjail-shim "+
		"(restorecon -v it), or: semanage fcontext -a -t container_ro_file_t %s && restorecon -v %s", ErrShimLabel, shim, label, shim, shim)
}
