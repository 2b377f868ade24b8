package runnertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
)

// Cgroups is a cgroupdrv.Driver whose parents are directories in a
// test's TempDir holding the files the runner reads, in the kernel's
// formats (as opencontainers/cgroups' fs tests fake them): cpu.stat,
// memory.peak, memory.events and cpu.pressure. Parents are named as the
// cgroupfs driver names them: CgroupParent "/<id>", Path root+"/<id>".
// It is safe for concurrent use.
type Cgroups struct {
	root string
	rt   *Runtime // when set, Destroy notes a parent still holding a live container

	mu        sync.Mutex
	created   []string
	destroyed []string
	busy      []string // destroyed while a container of theirs was alive
	createErr error
}

var _ cgroupdrv.Driver = (*Cgroups)(nil)

// NewCgroups returns a driver whose parents are in a new directory of t's
// TempDir.
func NewCgroups(t testing.TB) *Cgroups {
	return &Cgroups{root: t.TempDir()}
}

// FailCreate makes every Create from now on fail with err (nil: succeed).
func (f *Cgroups) FailCreate(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.createErr = err
}

func (*Cgroups) Name() string { return "fake" }

// Create makes the parent id (cgroupdrv.CheckID must accept it) with its
// files zeroed; it fails as FailCreate says.
func (f *Cgroups) Create(ctx context.Context, id string) (cgroupdrv.Parent, error) {
	if err := ctx.Err(); err != nil {
		return cgroupdrv.Parent{}, err
	}
	if err := cgroupdrv.CheckID(id); err != nil {
		return cgroupdrv.Parent{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.createErr != nil {
		return cgroupdrv.Parent{}, f.createErr
	}
	p := cgroupdrv.Parent{ID: id, CgroupParent: "/" + id, Path: filepath.Join(f.root, id)}
	if err := os.Mkdir(p.Path, 0o755); err != nil {
		return cgroupdrv.Parent{}, err
	}
	files := map[string]string{
		"cpu.stat":      cpuStat(0),
		"memory.peak":   "0\n",
		"memory.events": memoryEvents(0, 0),
		"cpu.pressure":  cpuPressure(0),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(p.Path, name), []byte(content), 0o644); err != nil {
			return cgroupdrv.Parent{}, err
		}
	}
	f.created = append(f.created, id)
	return p, nil
}

// Destroy removes the parent's directory, noting it as busy if a
// container of the runtime is still alive in it.
func (f *Cgroups) Destroy(_ context.Context, p cgroupdrv.Parent) error {
	if f.rt != nil && f.rt.LiveIn(p.CgroupParent) {
		f.mu.Lock()
		f.busy = append(f.busy, p.ID)
		f.mu.Unlock()
	}
	if err := os.RemoveAll(p.Path); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.destroyed = append(f.destroyed, p.ID)
	return nil
}

// List lists the parents on disk.
func (f *Cgroups) List(context.Context) ([]cgroupdrv.Parent, error) {
	entries, err := os.ReadDir(f.root)
	if err != nil {
		return nil, err
	}
	var out []cgroupdrv.Parent
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, cgroupdrv.Parent{ID: e.Name(), CgroupParent: "/" + e.Name(), Path: filepath.Join(f.root, e.Name())})
		}
	}
	return out, nil
}

// Path is the directory of the parent given to Podman as cgroupParent.
func (f *Cgroups) Path(cgroupParent string) string {
	return filepath.Join(f.root, cgroupParent)
}

// Left lists the parents still on disk, sorted.
func (f *Cgroups) Left(t testing.TB) []string {
	t.Helper()
	list, err := f.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range list {
		ids = append(ids, p.ID)
	}
	sort.Strings(ids)
	return ids
}

// Counts returns how many parents were created and destroyed, and those
// destroyed while a container of theirs was alive.
func (f *Cgroups) Counts() (created, destroyed int, busy []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.created), len(f.destroyed), append([]string(nil), f.busy...)
}

// The kernel's formats of the files read.

func cpuStat(usage time.Duration) string {
	us := usage.Microseconds()
	return fmt.Sprintf("usage_usec %d\nuser_usec %d\nsystem_usec %d\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n",
		us, us*3/4, us-us*3/4)
}

func memoryEvents(oom, oomKill uint64) string {
	return fmt.Sprintf("low 0\nhigh 0\nmax %d\noom %d\noom_kill %d\noom_group_kill 0\n", oom, oom, oomKill)
}

func cpuPressure(total time.Duration) string {
	return fmt.Sprintf("some avg10=0.00 avg60=0.00 avg300=0.00 total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", total.Microseconds())
}

// cgFiles serialises read-modify-writes of the fake cgroup files; each
// file is replaced whole (rename) so that a reader never sees it half
// written, as the kernel's files are never seen.
var cgFiles sync.Mutex

func replaceFile(dir, name, content string) error {
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// ChargeCPU adds d to dir's cpu.stat usage, as a program running in it would.
func ChargeCPU(dir string, d time.Duration) error {
	cgFiles.Lock()
	defer cgFiles.Unlock()
	cur, err := cgroupdrv.CPUUsage(dir)
	if err != nil {
		return err
	}
	return replaceFile(dir, "cpu.stat", cpuStat(cur+d))
}

// SetCPU sets dir's cpu.stat usage.
func SetCPU(dir string, usage time.Duration) error {
	cgFiles.Lock()
	defer cgFiles.Unlock()
	return replaceFile(dir, "cpu.stat", cpuStat(usage))
}

// SetPeak sets dir's memory.peak.
func SetPeak(dir string, peak int64) error {
	cgFiles.Lock()
	defer cgFiles.Unlock()
	return replaceFile(dir, "memory.peak", fmt.Sprintf("%d\n", peak))
}

// SetOOMKill records an OOM kill in dir's memory.events.
func SetOOMKill(dir string) error {
	cgFiles.Lock()
	defer cgFiles.Unlock()
	return replaceFile(dir, "memory.events", memoryEvents(1, 1))
}

// SetPressure sets the "some" total of dir's cpu.pressure.
func SetPressure(dir string, total time.Duration) error {
	cgFiles.Lock()
	defer cgFiles.Unlock()
	return replaceFile(dir, "cpu.pressure", cpuPressure(total))
}
