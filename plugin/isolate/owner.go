package isolate

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// removeAll is os.RemoveAll after making every directory under dir
// readable, writable and searchable by its owner: a program may leave one
// 0555 or 0000, which the caller (its owner once handed back) could not
// empty. It works on descriptors, each directory opened from its parent's
// without following a symbolic link, so whoever can write the box cannot
// steer a chmod outside it by swapping a directory for a link (--cleanup
// runs as root for Judge0). os.RemoveAll is itself descriptor-relative.
func removeAll(dir string) error {
	openUpAll(dir)
	return os.RemoveAll(dir)
}

// openUpAll gives dir and every directory under it mode u+rwx, best
// effort; dir itself is not followed either if it is a symbolic link.
func openUpAll(dir string) {
	parent, err := unix.Open(filepath.Dir(dir), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	fd, err := dirAt(parent, filepath.Base(dir))
	unix.Close(parent)
	if err != nil {
		return
	}
	openUp(fd)
	unix.Close(fd)
}

// dirAt opens name in the directory parent as a directory, without
// following a symbolic link and without needing any permission on it
// (O_PATH): a descriptor of that very directory, whatever its name comes
// to mean afterwards.
func dirAt(parent int, name string) (int, error) {
	return unix.Openat(parent, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// openUp gives the directory fd (an O_PATH descriptor) and every
// directory under it mode u+rwx, best effort: a directory it cannot open
// up is left for RemoveAll to report.
func openUp(fd int) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	if st.Mode&0o700 != 0o700 {
		// fchmod refuses O_PATH descriptors; the /proc link is the
		// descriptor's own inode, not a path anyone can swap.
		_ = unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", fd), st.Mode&0o7777|0o700)
	}
	for _, name := range names(fd) {
		child, err := dirAt(fd, name)
		if err != nil {
			continue // not a directory (or no longer one)
		}
		openUp(child)
		unix.Close(child)
	}
}

// names lists the directory fd (an O_PATH descriptor).
func names(fd int) []string {
	rfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	d := os.NewFile(uintptr(rfd), "directory")
	defer d.Close()
	list, _ := d.Readdirnames(-1)
	return list
}
