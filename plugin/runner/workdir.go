package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A long-lived podjail process (podjail serve) keeps its inputs, artefacts
// and armed runs' files in a directory named after itself. One that was
// killed leaves it; the next one to start removes it, as Sweep removes its
// containers.

// workDirPrefix begins the name of every such directory:
// podjail-work-BOOT-PID-START (BOOT: the first 8 characters of the boot id).
const workDirPrefix = "podjail-work-"

func (i Instance) workDirName() string {
	return fmt.Sprintf("%s%.8s-%d-%d", workDirPrefix, i.BootID, i.PID, i.Start)
}

// WorkDir makes self's own directory under parent ("" for os.TempDir()),
// mode 0700: it holds contests' tests and contestants' sources. The Podman
// service mounts what it holds by path, as root or (rootless) as this
// user, and a container sees only what is mounted, so no one else needs
// in. Sweep the dead ones' first with SweepWorkDirs.
func WorkDir(parent string, self Instance) (string, error) {
	dir := filepath.Join(cmp.Or(parent, os.TempDir()), self.workDirName())
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o700) // whatever the umask
}

// SweepWorkDirs removes the work directories under parent ("" for
// os.TempDir()) of podjail processes that are gone, and returns them.
func SweepWorkDirs(ctx context.Context, parent string, self Instance) ([]string, error) {
	return sweepWorkDirs(ctx, cmp.Or(parent, os.TempDir()), self, processAlive)
}

// sweepWorkDirs removes the work directories under parent of podjail
// processes that are gone: of another boot, or whose pid no longer is the
// process that started when the name says. It takes only directories of
// the sweeping user that no one else may write, in a parent where no one
// else may replace them: anyone can make /tmp/podjail-work-x-1-1, to have
// root remove or hand back (chown) what they put in it.
func sweepWorkDirs(ctx context.Context, parent string, self Instance, alive func(pid int, start uint64) bool) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, err
	}
	if !guardedParent(parent) {
		return nil, fmt.Errorf("%s is another user's, or others may write it without the sticky bit, and could swap a directory for their own between its check and its removal: nothing there is swept (give a directory of this user's or root's)", parent)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		boot, pid, start, ok := parseWorkDirName(e.Name())
		if !ok || !ownWorkDir(e) || boot == fmt.Sprintf("%.8s", self.BootID) && alive(pid, start) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if err := os.RemoveAll(dir); err != nil {
			// Files a program made as the sandbox's uid: take them back.
			if herr := HandBack(ctx, []string{dir}); herr != nil {
				errs = append(errs, herr)
				continue
			}
			if err := os.RemoveAll(dir); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// ownWorkDir says e is a directory (not a link to one) of this process's user
// that no one else may write.
func ownWorkDir(e fs.DirEntry) bool {
	info, err := e.Info()
	return err == nil && info.IsDir() && ownedBySelf(info, false) && info.Mode().Perm()&0o022 == 0
}

// guardedParent says no one but this process's user and root may replace what
// parent holds: it is theirs, and no one else may write it, or only with
// the sticky bit (/tmp), which keeps each entry its owner's.
func guardedParent(parent string) bool {
	info, err := os.Stat(parent)
	return err == nil && ownedBySelf(info, true) && (info.Mode().Perm()&0o022 == 0 || info.Mode()&fs.ModeSticky != 0)
}

// ownedBySelf says info's owner is this process's user, or root if
// orRoot.
func ownedBySelf(info fs.FileInfo, orRoot bool) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && (int(st.Uid) == os.Geteuid() || orRoot && st.Uid == 0)
}

func parseWorkDirName(name string) (boot string, pid int, start uint64, ok bool) {
	rest, found := strings.CutPrefix(name, workDirPrefix)
	if !found {
		return "", 0, 0, false
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 || parts[0] == "" {
		return "", 0, 0, false
	}
	pid, err1 := strconv.Atoi(parts[1])
	start, err2 := strconv.ParseUint(parts[2], 10, 64)
	return parts[0], pid, start, err1 == nil && err2 == nil
}
