package isolate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
// box id, creates <root>/<id> (mode 0755, as isolate runs with umask
// 022) and <root>/<id>/box (mode 0700, the caller's), and returns the
// directory, which --init prints. root must be absolute and id not
// negative. isolate also makes the box's cgroup and takes its lock;
// those belong to the wiring.
func InitBox(root string, id int) (string, error) {
	dir, err := boxDir(root, id)
	if err != nil {
		return "", err
	}
	if err := removeAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Whatever the process umask, as isolate sets its own.
	if err := os.Chmod(dir, 0o755); err != nil {
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
	return removeAll(dir)
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
