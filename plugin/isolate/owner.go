package isolate

import (
	"io/fs"
	"os"
	"path/filepath"
)

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
