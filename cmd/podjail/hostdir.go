package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/opencontainers/selinux/go-selinux"

	"github.com/podjail/podjail/plugin"
)

// hostDirEnv names a directory that has the same path for podjail and for
// the Podman service it talks to. podjail in a container (its image,
// contrib/quadlet) hands the host's Podman paths to mount into the runs'
// containers: its shim, its artefacts and inputs. With $PODJAIL_HOST_DIR
// set, podjail copies the shim beside it (the image's) to DIR/podjail-shim
// and uses that ($PODJAIL_SHIM), and keeps its temporary directories in
// DIR/tmp ($TMPDIR); the container must mount DIR at the same path as on
// the host. An explicit $PODJAIL_SHIM or $TMPDIR is left as it is.
const hostDirEnv = "PODJAIL_HOST_DIR"

// useHostDir applies $PODJAIL_HOST_DIR (see hostDirEnv); unset, it does
// nothing. It also takes the sockets of socket activation that Podman hands
// a container in the host's pid namespace (podmanListenPID).
func useHostDir() error {
	podmanListenPID()
	dir := os.Getenv(hostDirEnv)
	if dir == "" {
		return nil
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("$%s=%q: want an absolute path, the same on the Podman host", hostDirEnv, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("$%s=%s: not a directory (mount the host's at the same path): %v", hostDirEnv, dir, err)
	}
	if os.Getenv("TMPDIR") == "" {
		tmp := filepath.Join(dir, "tmp")
		if err := os.MkdirAll(tmp, 0o700); err != nil {
			return fmt.Errorf("$%s: %w", hostDirEnv, err)
		}
		_ = os.Setenv("TMPDIR", tmp)
	}
	if os.Getenv("PODJAIL_SHIM") != "" {
		return nil
	}
	shim, err := plugin.FindShim("")
	if err != nil || shim == "" {
		return err // no shim beside podjail: the commands say so
	}
	dst := filepath.Join(dir, "podjail-shim")
	if err := copyIfChanged(shim, dst); err != nil {
		return fmt.Errorf("$%s: copy the shim: %w", hostDirEnv, err)
	}
	if err := labelShim(dst); err != nil {
		return fmt.Errorf("$%s: %w", hostDirEnv, err)
	}
	return os.Setenv("PODJAIL_SHIM", dst)
}

// shimFileType is the SELinux type contrib/selinux's module lets the runs'
// containers (container_t) execute as their first process.
const shimFileType = "container_ro_file_t"

// labelShim gives the shim's copy shimFileType, as podjail.fc gives the
// installed shim, on a host whose files have SELinux labels. The file's
// own label tells: in podjail's container SELinux may look disabled. The
// user and role stay the file's (a rootless user may not change them).
func labelShim(path string) error {
	cur, err := selinux.FileLabel(path)
	if err != nil || cur == "" {
		return nil // no labels on this host
	}
	ctx, err := selinux.NewContext(cur)
	if err != nil || ctx["type"] == shimFileType {
		return nil
	}
	ctx["type"] = shimFileType
	if ctx["level"] != "" {
		ctx["level"] = "s0" // every run's level dominates it
	}
	if err := selinux.SetFileLabel(path, ctx.Get()); err != nil {
		return fmt.Errorf("label the shim's copy %s (now %s) %s, which the runs' containers may execute (install contrib/selinux's module): %w", path, cur, ctx.Get(), err)
	}
	return nil
}

// copyIfChanged makes dst a copy of src (mode 0755), unless it already is
// one. The new copy replaces the old by a rename: containers that mounted
// the old keep it, and two podjail processes starting at once both end
// with a whole file.
func copyIfChanged(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
		return nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(dst), ".podjail-shim-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), 0o755)); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), dst); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}

// podmanListenPID makes the sockets systemd handed to a container ours.
// Podman passes them on with LISTEN_PID=1, the pid of a container's first
// process in a pid namespace of its own; in the host's (--pid=host, as
// contrib/quadlet runs podjail) podjail, that first process, has another
// pid, and the activation check (LISTEN_PID is this process) would refuse
// them. Only in a Podman container (/run/.containerenv), only for pid 1.
func podmanListenPID() {
	if os.Getenv("LISTEN_PID") != "1" || os.Getenv("LISTEN_FDS") == "" || os.Getpid() == 1 {
		return
	}
	if _, err := os.Stat(containerEnvFile); err != nil {
		return
	}
	_ = os.Setenv("LISTEN_PID", strconv.Itoa(os.Getpid()))
}

// containerEnvFile is the file Podman puts in every container.
var containerEnvFile = "/run/.containerenv"
