// Package systemd is the systemd driver: each run's parent is a transient
// slice the runner starts over D-Bus and stops after reading it, so
// systemd, which owns the cgroup tree, never keeps a slice of a finished
// run. D-Bus is used only to start, stop and list units; the counters are
// read from the cgroup files and anything systemd leaves is removed like
// the cgroupfs driver does.
package systemd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"

	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/cgroupdrv/fs"
)

// JobTimeout bounds the wait for a start or stop job. systemd runs them in
// milliseconds; a minute means the manager is stuck.
const JobTimeout = time.Minute

// Driver makes parents as transient slices.
type Driver struct {
	// Bus is the connection to the manager that owns the slices. Required.
	Bus *Bus
	// Root is the cgroup v2 mount. Zero value: cgroupdrv.DefaultRoot.
	Root string

	// under is the cgroup of the manager's root slice, where every
	// parent sits (unit); learnt from the first slice's ControlGroup, so
	// that later ones need not ask. started holds the slices Create
	// started and Destroy has not stopped: active, so a clean stop
	// unloads them, with no failed state to clear.
	mu      sync.Mutex
	under   string
	started map[string]bool
}

var _ cgroupdrv.Driver = (*Driver)(nil)

// Name implements cgroupdrv.Driver.
func (*Driver) Name() string { return "systemd" }

// Reconnects is how many times the driver's connection to systemd was
// made again (Bus.Reconnects).
func (d *Driver) Reconnects() uint64 { return d.Bus.Reconnects() }

func (d *Driver) root() string {
	if d.Root == "" {
		return cgroupdrv.DefaultRoot
	}
	return d.Root
}

// unit is the slice for id. id has no dash (CheckID), so the slice sits
// directly under the manager's root slice and systemd makes no parent
// slices for it.
func unit(id string) string { return id + ".slice" }

// Create implements cgroupdrv.Driver.
func (d *Driver) Create(ctx context.Context, id string) (cgroupdrv.Parent, error) {
	if err := cgroupdrv.CheckID(id); err != nil {
		return cgroupdrv.Parent{}, err
	}
	name := unit(id)
	p := cgroupdrv.Parent{ID: id, CgroupParent: name}
	props := []sd.Property{
		sd.PropDescription("podjail run parent"),
		{Name: "CPUAccounting", Value: dbus.MakeVariant(true)},
		{Name: "MemoryAccounting", Value: dbus.MakeVariant(true)},
		{Name: "TasksAccounting", Value: dbus.MakeVariant(true)},
	}
	err := d.job(ctx, "start "+name, func(c *sd.Conn, ch chan<- string) error {
		_, err := c.StartTransientUnitContext(ctx, name, "fail", props, ch)
		if isUnitExists(err) {
			// The id is ours alone: a request sent again after its
			// connection broke, whose first sending systemd carried out.
			ch <- "done"
			return nil
		}
		return err
	})
	if err != nil {
		// It may exist all the same (the answer lost): nothing of it
		// may be left.
		_ = d.Destroy(context.WithoutCancel(ctx), p)
		return p, err
	}
	path, err := d.path(ctx, name)
	if err != nil {
		_ = d.Destroy(context.WithoutCancel(ctx), p)
		return p, err
	}
	p.Path = path
	d.mu.Lock()
	if d.started == nil {
		d.started = map[string]bool{}
	}
	d.started[name] = true
	d.mu.Unlock()
	return p, nil
}

// path is where the started slice name's cgroup is: beside the ones
// before it, under the manager's root slice, when its directory is there;
// otherwise systemd is asked. A D-Bus round trip less per run: each costs
// the bus and systemd processor time (podjail bench's spec steps).
func (d *Driver) path(ctx context.Context, name string) (string, error) {
	d.mu.Lock()
	under := d.under
	d.mu.Unlock()
	if under != "" {
		p := filepath.Join(d.root(), under, name)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, nil
		}
	}
	cg, err := d.controlGroup(ctx, name)
	if err != nil {
		return "", err
	}
	if filepath.Base(cg) == name {
		d.mu.Lock()
		d.under = filepath.Dir(cg)
		d.mu.Unlock()
	}
	return filepath.Join(d.root(), cg), nil
}

// controlGroup asks systemd where the slice's cgroup is.
func (d *Driver) controlGroup(ctx context.Context, name string) (string, error) {
	var cg string
	err := d.Bus.Do(ctx, func(c *sd.Conn) error {
		prop, err := c.GetUnitTypePropertyContext(ctx, name, "Slice", "ControlGroup")
		if err != nil {
			return err
		}
		cg, _ = prop.Value.Value().(string)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("cgroup of %s: %w", name, err)
	}
	if cg == "" {
		return "", fmt.Errorf("cgroup of %s: systemd reports none", name)
	}
	return cg, nil
}

// Destroy implements cgroupdrv.Driver: it stops the slice (systemd kills
// and removes what is inside), clears a failed state so the unit is
// unloaded (not needed after a clean stop of a slice Create started: a
// D-Bus round trip less per run), and removes what is left of the
// directory.
func (d *Driver) Destroy(ctx context.Context, p cgroupdrv.Parent) error {
	if err := cgroupdrv.CheckID(p.ID); err != nil {
		return err
	}
	name := unit(p.ID)
	d.mu.Lock()
	clean := d.started[name]
	delete(d.started, name)
	d.mu.Unlock()
	err := d.job(ctx, "stop "+name, func(c *sd.Conn, ch chan<- string) error {
		_, err := c.StopUnitContext(ctx, name, "replace", ch)
		if isNoSuchUnit(err) {
			ch <- "done"
			return nil
		}
		return err
	})
	if err != nil || !clean {
		// A stop does not clear a failed state: a slice that failed
		// (one left by another process, one whose start failed) would
		// stay loaded.
		_ = d.Bus.Do(ctx, func(c *sd.Conn) error { return c.ResetFailedUnitContext(ctx, name) })
	}
	if p.Path != "" {
		if rerr := fs.Remove(ctx, p.Path); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// List implements cgroupdrv.Driver.
func (d *Driver) List(ctx context.Context) ([]cgroupdrv.Parent, error) {
	var units []sd.UnitStatus
	err := d.Bus.Do(ctx, func(c *sd.Conn) error {
		var err error
		units, err = c.ListUnitsByPatternsContext(ctx, nil, []string{cgroupdrv.Prefix + "*.slice"})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list slices: %w", err)
	}
	var out []cgroupdrv.Parent
	for _, u := range units {
		id := strings.TrimSuffix(u.Name, ".slice")
		if cgroupdrv.CheckID(id) != nil {
			continue
		}
		p := cgroupdrv.Parent{ID: id, CgroupParent: u.Name}
		if cg, err := d.controlGroup(ctx, u.Name); err == nil {
			p.Path = filepath.Join(d.root(), cg)
		}
		out = append(out, p)
	}
	return out, nil
}

// job runs one systemd job and waits, at most JobTimeout, for its result.
// The result comes as a signal on the connection the job was asked on: if
// that connection closes first, the result is lost with it, and the job is
// asked for once more on a new one (start and stop may be sent twice: a
// unit already there was started by the first, one gone was stopped).
func (d *Driver) job(ctx context.Context, what string, start func(*sd.Conn, chan<- string) error) error {
	t := time.NewTimer(JobTimeout)
	defer t.Stop()
	for again := false; ; again = true {
		ch := make(chan string, 1)
		var asked *sd.Conn
		if err := d.Bus.Do(ctx, func(c *sd.Conn) error { asked = c; return start(c, ch) }); err != nil {
			return fmt.Errorf("%w: %s: %v", cgroupdrv.ErrJob, what, err)
		}
		select {
		case res := <-ch:
			return jobResult(what, res)
		case <-d.Bus.lost(asked):
			select {
			case res := <-ch:
				return jobResult(what, res)
			default:
			}
			if again {
				return fmt.Errorf("%w: %s: the bus connection closed twice before the job's result", cgroupdrv.ErrJob, what)
			}
		case <-t.C:
			return fmt.Errorf("%w: %s: no result after %s", cgroupdrv.ErrJob, what, JobTimeout)
		case <-ctx.Done():
			return fmt.Errorf("%w: %s: %v", cgroupdrv.ErrJob, what, ctx.Err())
		}
	}
}

func jobResult(what, res string) error {
	if res != "done" {
		return fmt.Errorf("%w: %s: job result %q", cgroupdrv.ErrJob, what, res)
	}
	return nil
}

func isUnitExists(err error) bool {
	var de dbus.Error
	if errors.As(err, &de) {
		return de.Name == "org.freedesktop.systemd1.UnitExists"
	}
	return err != nil && strings.Contains(err.Error(), "already loaded or has a fragment file")
}

func isNoSuchUnit(err error) bool {
	var de dbus.Error
	if err == nil {
		return false
	}
	if e, ok := err.(dbus.Error); ok {
		de = e
	} else {
		return strings.Contains(err.Error(), "not loaded")
	}
	return de.Name == "org.freedesktop.systemd1.NoSuchUnit" || strings.Contains(de.Error(), "not loaded")
}
