// Package fs is the cgroupfs driver: each run's parent is a directory the
// runner makes under the cgroup mount and removes after reading it. It is
// what Podman's cgroupfs manager needs, and the systemd driver uses its
// Remove for what systemd leaves.
package fs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
)

// Controllers are enabled for the cgroups below a parent.
var Controllers = []string{"cpu", "memory", "pids"}

// removeTimeout bounds waiting for killed processes to leave a parent.
const removeTimeout = 10 * time.Second

// Driver makes parents as plain directories.
type Driver struct {
	// Root is the cgroup v2 mount. Zero value: cgroupdrv.DefaultRoot.
	Root string
	// Base is the directory under Root that holds the parents, as a
	// cgroup path ("/" or "/some/where"). Zero value: the root cgroup.
	Base string
}

var _ cgroupdrv.Driver = Driver{}

func (d Driver) root() string {
	if d.Root == "" {
		return cgroupdrv.DefaultRoot
	}
	return d.Root
}

func (d Driver) base() string { return filepath.Join("/", d.Base) }

// Name implements cgroupdrv.Driver.
func (Driver) Name() string { return "cgroupfs" }

func (d Driver) parent(id string) cgroupdrv.Parent {
	cg := filepath.Join(d.base(), id)
	return cgroupdrv.Parent{ID: id, CgroupParent: cg, Path: filepath.Join(d.root(), cg)}
}

// Create implements cgroupdrv.Driver.
func (d Driver) Create(_ context.Context, id string) (cgroupdrv.Parent, error) {
	if err := cgroupdrv.CheckID(id); err != nil {
		return cgroupdrv.Parent{}, err
	}
	p := d.parent(id)
	baseDir := filepath.Join(d.root(), d.base())
	if err := Enable(baseDir, Controllers); err != nil {
		return p, err
	}
	if err := os.Mkdir(p.Path, 0o755); err != nil {
		return p, fmt.Errorf("make cgroup parent: %w", err)
	}
	if err := Enable(p.Path, Controllers); err != nil {
		_ = os.Remove(p.Path)
		return p, err
	}
	return p, nil
}

// Enable turns on controllers for dir's children, where dir offers them.
func Enable(dir string, controllers []string) error {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return fmt.Errorf("read controllers: %w", err)
	}
	on := strings.Fields(string(data))
	var add []string
	for _, c := range cgroupdrv.Missing(on, controllers) {
		add = append(add, "+"+c)
	}
	if len(add) == 0 {
		return nil
	}
	err = os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(strings.Join(add, " ")), 0)
	if err != nil {
		return fmt.Errorf("enable %s in %s: %w", strings.Join(add, " "), dir, err)
	}
	return nil
}

// Destroy implements cgroupdrv.Driver.
func (d Driver) Destroy(ctx context.Context, p cgroupdrv.Parent) error {
	if err := cgroupdrv.CheckID(p.ID); err != nil {
		return err
	}
	return Remove(ctx, p.Path)
}

// List implements cgroupdrv.Driver.
func (d Driver) List(context.Context) ([]cgroupdrv.Parent, error) {
	entries, err := os.ReadDir(filepath.Join(d.root(), d.base()))
	if err != nil {
		return nil, err
	}
	var out []cgroupdrv.Parent
	for _, e := range entries {
		if e.IsDir() && cgroupdrv.CheckID(e.Name()) == nil {
			out = append(out, d.parent(e.Name()))
		}
	}
	return out, nil
}

// Remove kills every process in the cgroup tree at dir (cgroup.kill) and
// removes its directories, deepest first. A missing dir is not an error.
func Remove(ctx context.Context, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := cgroupdrv.Kill(dir); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, removeTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		err := removeTree(dir)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s: %v", cgroupdrv.ErrBusy, dir, err)
		case <-tick.C:
		}
	}
}

// removeTree removes dir's child cgroups, then dir. rmdir of a cgroup
// fails with EBUSY while a process is still in it.
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
