package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/opencontainers/selinux/go-selinux"
)

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

// selinuxfs is where the kernel's SELinux interface is mounted.
const selinuxfs = "/sys/fs/selinux"

// SELinuxAllows asks the loaded policy (selinuxfs's access file, the
// kernel's security_compute_av) whether scon may do every one of perms on
// tcon's objects of class. go-selinux has no such call. The caller's own
// domain needs the security class's compute_av permission (unconfined
// domains have it); otherwise the error says so.
func SELinuxAllows(scon, tcon, class string, perms ...string) (bool, error) {
	return selinuxAllowsAt(selinuxfs, scon, tcon, class, perms...)
}

func selinuxAllowsAt(fs, scon, tcon, class string, perms ...string) (bool, error) {
	query, want, err := accessQuery(fs, scon, tcon, class, perms)
	if err != nil {
		return false, err
	}
	f, err := os.OpenFile(filepath.Join(fs, "access"), os.O_RDWR, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := f.WriteString(query); err != nil {
		return false, fmt.Errorf("compute access of %s to %s: %w", scon, tcon, err)
	}
	buf := make([]byte, 256)
	n, err := f.Read(buf)
	if err != nil {
		return false, fmt.Errorf("compute access of %s to %s: %w", scon, tcon, err)
	}
	return accessAllows(string(buf[:n]), want)
}

// accessQuery is the request selinuxfs's access file takes ("SCON TCON
// CLASS", the class by its index) and the bits of perms in its answer.
func accessQuery(fs, scon, tcon, class string, perms []string) (string, uint64, error) {
	index := func(p string) (uint, error) {
		b, err := os.ReadFile(filepath.Join(fs, "class", class, p))
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 8)
		return uint(n), err
	}
	cls, err := index("index")
	if err != nil {
		return "", 0, fmt.Errorf("class %s: %w", class, err)
	}
	var want uint64
	for _, p := range perms {
		n, err := index(filepath.Join("perms", p))
		if err != nil || n == 0 || n > 64 {
			return "", 0, fmt.Errorf("permission %s of class %s: %v", p, class, err)
		}
		want |= 1 << (n - 1)
	}
	return fmt.Sprintf("%s %s %d", scon, tcon, cls), want, nil
}

// accessAllows reads the access file's answer ("allowed decided
// auditallow auditdeny seqno flags", in hex): are all of want allowed?
func accessAllows(answer string, want uint64) (bool, error) {
	fields := strings.Fields(answer)
	if len(fields) < 2 {
		return false, fmt.Errorf("compute access: unexpected answer %q", answer)
	}
	allowed, err := strconv.ParseUint(fields[0], 16, 64)
	if err != nil {
		return false, fmt.Errorf("compute access: unexpected answer %q", answer)
	}
	return allowed&want == want, nil
}

// ModuleInstalled reports whether the policy module name is in the loaded
// policy type's module store (/var/lib/selinux/TYPE/active/modules/PRIORITY/NAME),
// which only root may read: semodule -l without its cost.
func ModuleInstalled(name string) (bool, error) {
	return moduleInstalledAt("/etc/selinux/config", "/var/lib/selinux", name)
}

func moduleInstalledAt(config, store, name string) (bool, error) {
	b, err := os.ReadFile(config)
	if err != nil {
		return false, err
	}
	typ := ""
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "SELINUXTYPE="); ok {
			typ = strings.TrimSpace(v)
		}
	}
	if typ == "" {
		return false, fmt.Errorf("%s names no SELINUXTYPE", config)
	}
	modules := filepath.Join(store, typ, "active", "modules")
	if _, err := os.ReadDir(modules); err != nil {
		return false, err
	}
	found, err := filepath.Glob(filepath.Join(modules, "*", name))
	return len(found) > 0, err
}
