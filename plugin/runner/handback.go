package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// After a run whose program wrote into mounted directories, what it made
// belongs to the sandbox's uid (65534, or a subordinate uid rootless), as
// isolate's box does until isolate gives it back: the caller must be able
// to read, chmod and remove it.

// HandBack gives the caller what the program (65534, or a subordinate uid
// rootless) left under dirs. Root chowns it; a rootless user's own
// namespace does (podman unshare, where the user is uid 0), and only when
// something is not the user's already.
func HandBack(ctx context.Context, dirs []string) error {
	uid := os.Geteuid()
	foreign, err := foreignOwned(dirs, uid)
	if err != nil || !foreign {
		return err
	}
	if uid == 0 {
		return chownTree(dirs, 0, os.Getegid())
	}
	podman, err := exec.LookPath("podman")
	if err != nil {
		podman = "/usr/bin/podman"
	}
	args := append([]string{"unshare", "chown", "-R", "-h", "0:0", "--"}, dirs...)
	if out, err := exec.CommandContext(ctx, podman, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("podman unshare chown: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// foreignOwned reports whether anything under dirs, symbolic links not
// followed, is not owned by uid. A directory that cannot be read counts.
func foreignOwned(dirs []string, uid int) (bool, error) {
	foreign := false
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrPermission) {
					foreign = true
					return filepath.SkipDir
				}
				return err
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
				foreign = true
				return filepath.SkipAll
			}
			return nil
		})
		if err != nil || foreign {
			return foreign, err
		}
	}
	return false, nil
}

// chownTree gives everything under dirs to uid:gid, symbolic links
// themselves and not their targets (root's way of handing a box back).
func chownTree(dirs []string, uid, gid int) error {
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, uid, gid)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
