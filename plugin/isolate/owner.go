package isolate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// After each run isolate gives the box back to its caller (the program
// ran as another uid), so that the caller can read, chmod and remove what
// the program made. These are the filesystem halves of that; who may
// chown what (root, or a rootless user's namespace) is the wiring's.

// ForeignOwned reports whether anything under dirs, symbolic links not
// followed, is not owned by uid. A directory that cannot be read counts.
func ForeignOwned(dirs []string, uid int) (bool, error) {
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

// ChownTree gives everything under dirs to uid:gid, symbolic links
// themselves and not their targets (root's way of handing a box back).
func ChownTree(dirs []string, uid, gid int) error {
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

// removeAll is os.RemoveAll after making every directory under dir that
// the caller owns writable and searchable: a program may leave one 0555.
func removeAll(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			if info, ierr := e.Info(); ierr == nil && info.Mode().Perm()&0o700 != 0o700 {
				_ = os.Chmod(p, info.Mode().Perm()|0o700)
			}
		}
		if err != nil && e != nil && e.IsDir() {
			// Unreadable: make it readable, and walk on without it.
			_ = os.Chmod(p, 0o700)
			return filepath.SkipDir
		}
		return nil
	})
	return os.RemoveAll(dir)
}
