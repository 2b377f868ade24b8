package isolate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// DefaultBoxRoot is isolate's box_root as installed by its Makefile
// (VARPREFIX /var/local): boxes are <DefaultBoxRoot>/<id>.
const DefaultBoxRoot = "/var/local/lib/isolate"

// BoxSubdir is the directory inside a box's directory that the program
// sees as /box, its working directory.
const BoxSubdir = "box"

// BoxDir is the directory isolate prints on --init for box id under root:
// "<root>/<id>", spelled as isolate's snprintf("%s/%d") does.
func BoxDir(root string, id int) string { return root + "/" + strconv.Itoa(id) }

// InitBox does what --init does to the filesystem: it removes any old
// box id, creates <root>/<id> and <root>/<id>/box, both mode 0700 (the
// caller's), and returns the directory, which --init prints. root must be
// absolute, the caller's or root's, and id not negative. isolate also
// makes the box's cgroup and takes its lock; those belong to the wiring.
//
// isolate's <root>/<id> is 0755, its box/ the sandbox uid's alone. Here
// the wiring opens box/ to every uid (the program's, 65534, must write
// it), so <root>/<id> is what keeps other local users out: the program
// reaches box/ through its bind mount, never through <root>/<id>.
func InitBox(root string, id int) (string, error) {
	dir, err := boxDir(root, id)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if err := checkRoot(root); err != nil {
		return "", err
	}
	if err := removeAll(dir); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	// Whatever the process umask, as isolate sets its own.
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	box := filepath.Join(dir, BoxSubdir)
	if err := os.Mkdir(box, 0o700); err != nil {
		return "", err
	}
	return dir, os.Chmod(box, 0o700)
}

// CleanupBox does what --cleanup does to the filesystem: it removes
// <root>/<id> with everything in it. A box that does not exist is no
// error ("Nothing to do").
func CleanupBox(root string, id int) error {
	dir, err := boxDir(root, id)
	if err != nil {
		return err
	}
	if err := checkRoot(root); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return removeAll(dir)
}

// checkRoot refuses a box root that another user owns, or a link to one:
// they could replace a box in it between --init and --cleanup, to be
// handed the caller's files or have the caller remove theirs (someone
// who made /var/tmp/podjail-isolate-UID first).
func checkRoot(root string) error {
	for _, stat := range []func(string) (fs.FileInfo, error){os.Lstat, os.Stat} {
		fi, err := stat(root)
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Geteuid() {
			return fmt.Errorf("isolate box root %s is owned by uid %d, neither you nor root, who could replace the boxes in it: remove it, or set PODJAIL_ISOLATE_ROOT to a directory of yours", root, st.Uid)
		}
	}
	return nil
}

// boxDir refuses what would put a box outside root: a relative or empty
// root could make RemoveAll hit the working directory.
func boxDir(root string, id int) (string, error) {
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("isolate box root %q is not an absolute path", root)
	}
	if id < 0 {
		return "", errors.New("isolate: Sandbox ID out of range")
	}
	return BoxDir(root, id), nil
}
