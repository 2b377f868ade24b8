package cgroupdrv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Prefix starts the name of every per-run parent podjail makes, so a
// restarted runner can find what a dead one left.
const Prefix = "podjail_"

// Parent is one run's parent cgroup: the container's cgroup is made below
// it and it outlives the container, so its counters are read on the host
// after the container is gone.
type Parent struct {
	// ID is the name the runner chose (Prefix and [A-Za-z0-9_] only).
	ID string
	// CgroupParent is what Podman is given as the container's cgroup
	// parent: a slice name under systemd, a path under cgroupfs.
	CgroupParent string
	// Path is the parent's directory under the cgroup mount.
	Path string
}

// Driver makes and removes per-run parents. Implementations: package fs
// (Podman's cgroupfs manager) and package systemd (its systemd manager).
type Driver interface {
	// Name is Podman's name for the manager: "cgroupfs" or "systemd".
	Name() string
	// Create makes an empty parent named id. id must pass CheckID.
	Create(ctx context.Context, id string) (Parent, error)
	// Destroy kills whatever is still inside p and removes it. It is not
	// an error if p is already gone.
	Destroy(ctx context.Context, p Parent) error
	// List returns the parents named with Prefix that exist now, made by
	// this process or any other.
	List(ctx context.Context) ([]Parent, error)
}

var idPattern = regexp.MustCompile(`^` + Prefix + `[A-Za-z0-9_]{1,80}$`)

// CheckID refuses a parent name that is not Prefix followed by letters,
// digits and underscores. A dash would make systemd nest the slice under
// another one it creates implicitly and never removes.
func CheckID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w: %q (want %s followed by [A-Za-z0-9_])", ErrBadID, id, Prefix)
	}
	return nil
}

// Counters are a parent's hierarchical figures: they include every cgroup
// below it, also ones already removed.
type Counters struct {
	// CPU is cpu.stat usage_usec; User and System split it.
	CPU, User, System time.Duration
	// OOM and OOMKill are memory.events oom and oom_kill.
	OOM, OOMKill uint64
	// Peak is memory.peak in bytes; -1 if the kernel has no memory.peak.
	Peak int64
}

// Read reads the counters of the cgroup directory dir.
func Read(dir string) (Counters, error) {
	var c Counters
	cpu, err := readKeyed(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return c, err
	}
	c.CPU = time.Duration(cpu["usage_usec"]) * time.Microsecond
	c.User = time.Duration(cpu["user_usec"]) * time.Microsecond
	c.System = time.Duration(cpu["system_usec"]) * time.Microsecond
	mem, err := readKeyed(filepath.Join(dir, "memory.events"))
	if err != nil {
		return c, err
	}
	c.OOM, c.OOMKill = mem["oom"], mem["oom_kill"]
	c.Peak = -1
	data, err := os.ReadFile(filepath.Join(dir, "memory.peak"))
	switch {
	case err == nil:
		v, perr := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if perr != nil {
			return c, fmt.Errorf("%s: %w", filepath.Join(dir, "memory.peak"), perr)
		}
		c.Peak = v
	case !errors.Is(err, os.ErrNotExist):
		return c, err
	}
	return c, nil
}

// readKeyed reads a flat-keyed cgroup file ("key value" per line).
func readKeyed(path string) (map[string]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		out[k] = n
	}
	return out, sc.Err()
}
