package cgroupdrv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultRoot is where cgroup v2 is mounted on a systemd host.
const DefaultRoot = "/sys/fs/cgroup"

// Host reads what a host's cgroup mount offers.
type Host struct {
	// Root is the cgroup v2 mount point. Zero value: DefaultRoot.
	Root string
}

func (h Host) root() string {
	if h.Root == "" {
		return DefaultRoot
	}
	return h.Root
}

// Controllers returns the controllers available at the root of a unified
// cgroup v2 mount. It reads cgroup.controllers rather than trusting the
// mount type or the file's size, which lie on hybrid layouts (sysfs files
// report size 0 either way).
func (h Host) Controllers() ([]string, error) {
	root := h.root()
	data, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	if err == nil {
		return strings.Fields(string(data)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %v", ErrNotUnified, err)
	}
	if _, uerr := os.Stat(filepath.Join(root, "unified", "cgroup.controllers")); uerr == nil {
		return nil, fmt.Errorf("%w: %s is a hybrid layout (v1 controllers, v2 only at %s/unified); boot with systemd.unified_cgroup_hierarchy=1 on the kernel command line",
			ErrNotUnified, root, root)
	}
	return nil, fmt.Errorf("%w: no %s/cgroup.controllers (cgroup v1 or no cgroup mount); boot with systemd.unified_cgroup_hierarchy=1 on the kernel command line",
		ErrNotUnified, root)
}

// UserManagerPath is the cgroup of a user's systemd manager, relative to
// the root: the subtree systemd delegates to that user.
func UserManagerPath(uid int) string {
	return fmt.Sprintf("user.slice/user-%d.slice/user@%d.service", uid, uid)
}

// Delegated returns the controllers available in uid's systemd manager
// subtree, the ones rootless containers of that user can use.
func (h Host) Delegated(uid int) ([]string, error) {
	p := filepath.Join(h.root(), UserManagerPath(uid), "cgroup.controllers")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%w for uid %d: %v; is the user's systemd manager running (loginctl enable-linger)?", ErrNoDelegation, uid, err)
	}
	return strings.Fields(string(data)), nil
}

// Missing returns the names in want that have is lacks, in want's order.
func Missing(have, want []string) []string {
	var out []string
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}
