package shim

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// handBack makes everything under dirs the shim's own (the container's
// root, who is the runner's user outside: root, or rootless the user
// himself), as isolate gives a box back, so that the caller can read and
// remove what the program made without a chown of its own (rootless, that
// needs the user's namespace: podman unshare). It runs once the program's
// cgroup is empty, so nothing moves under it; links are changed, never
// followed. A directory is taken before it is read, so one the program
// kept to itself (0700) can be; what cannot be (a directory of mode 0000)
// is left for the runner's own hand-back (runner.HandBack), hence no error.
func handBack(dirs []string) {
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: skipped
			}
			if info, ierr := e.Info(); ierr == nil {
				if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == uint32(os.Geteuid()) && st.Gid == uint32(os.Getegid()) {
					return nil
				}
			}
			_ = os.Lchown(p, os.Geteuid(), os.Getegid())
			return nil
		})
	}
}
