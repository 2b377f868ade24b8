package shim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// CgroupRoot is where cgroup2 is mounted in the container.
const CgroupRoot = "/sys/fs/cgroup"

// Names of the two children made under the shim's own cgroup.
const (
	ShimCgroup    = "shim"
	ProgramCgroup = "program"
)

// Cgroups is the pair the shim made: Base is its own (now empty) cgroup.
type Cgroups struct {
	Base, Shim, Program string
}

// ownCgroup reads the cgroup2 path of this process ("0::/PATH" in /proc/self/cgroup).
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	return parseProcCgroup(b)
}

func parseProcCgroup(b []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			if !strings.HasPrefix(p, "/") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
				return "", fmt.Errorf("odd cgroup path %q", p)
			}
			return p, nil
		}
	}
	return "", errors.New("no cgroup2 entry (0::) in /proc/self/cgroup: cgroup v2 is required")
}

// SetupCgroups makes <own>/shim and <own>/program, moves the shim into shim/ (a
// cgroup that hands controllers to children may hold no process itself), enables
// memory, pids and (if offered) cpu for the children, and limits program/:
// memory.max, memory.swap.max 0, pids.max.
func SetupCgroups(root string, memoryBytes, pids int64) (*Cgroups, error) {
	own, err := ownCgroup()
	if err != nil {
		return nil, &SetupError{StepCgroup, err}
	}
	base := filepath.Join(root, own)
	// Nothing is made anywhere but in a cgroup2 mount (a hybrid host's
	// /sys/fs/cgroup is a tmpfs that would take the mkdirs silently).
	var fs unix.Statfs_t
	if err := unix.Statfs(base, &fs); err != nil {
		return nil, &SetupError{StepCgroup, err}
	}
	if fs.Type != unix.CGROUP2_SUPER_MAGIC {
		return nil, stepErr(StepCgroup, "%s is not a cgroup2 mount (type %#x): cgroup v2 is required", base, fs.Type)
	}
	cg := &Cgroups{Base: base, Shim: filepath.Join(base, ShimCgroup), Program: filepath.Join(base, ProgramCgroup)}
	if err := os.Mkdir(cg.Shim, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, &SetupError{StepCgroup, err}
	}
	// A program cgroup that already exists would carry someone else's peak.
	if err := os.Mkdir(cg.Program, 0o755); err != nil {
		return nil, &SetupError{StepCgroup, err}
	}
	if err := writeFile(cg.Shim, "cgroup.procs", strconv.Itoa(os.Getpid())); err != nil {
		return nil, err
	}
	ctrls, err := os.ReadFile(filepath.Join(base, "cgroup.controllers"))
	if err != nil {
		return nil, &SetupError{StepCgroup, err}
	}
	enable := "+memory +pids"
	if hasWord(string(ctrls), "cpu") {
		enable += " +cpu"
	}
	if err := writeFile(base, "cgroup.subtree_control", enable); err != nil {
		return nil, err
	}
	for _, kv := range [][2]string{
		{"memory.max", strconv.FormatInt(memoryBytes, 10)},
		{"memory.swap.max", "0"},
		{"pids.max", strconv.FormatInt(pids, 10)},
	} {
		if err := writeFile(cg.Program, kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return cg, nil
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// writeFile writes val to a cgroup file in one write (cgroup files take one value per write).
func writeFile(dir, name, val string) error {
	p := filepath.Join(dir, name)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return &SetupError{StepCgroup, err}
	}
	_, err = f.Write([]byte(val))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &SetupError{StepCgroup, fmt.Errorf("write %q to %s: %w", val, p, err)}
	}
	return nil
}

// Kill kills every process in program/ at once (cgroup.kill, Linux 5.14): a
// file write, so it needs neither CAP_KILL nor the program's uid.
func (cg *Cgroups) Kill() error {
	f, err := os.OpenFile(filepath.Join(cg.Program, "cgroup.kill"), os.O_WRONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.Write([]byte("1"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Measure reads the program cgroup's counters into r. Called once every
// process of the program is dead and reaped, when cpu.stat is final.
func (cg *Cgroups) Measure(r *Report) error {
	var err error
	if r.PeakBytes, err = readInt(cg.Program, "memory.peak"); err != nil {
		return &SetupError{StepMeasure, err}
	}
	// cpu.stat's usage is in every cgroup v2, the cpu controller on or off.
	st, err := os.ReadFile(filepath.Join(cg.Program, "cpu.stat"))
	if err != nil {
		return &SetupError{StepMeasure, err}
	}
	cpu := parseKeyed(st)
	usage, ok := cpu["usage_usec"]
	if !ok {
		return stepErr(StepMeasure, "no usage_usec in %s/cpu.stat", cg.Program)
	}
	r.CgroupUs, r.CgroupUserUs, r.CgroupSysUs = usage, cpu["user_usec"], cpu["system_usec"]
	ev, err := os.ReadFile(filepath.Join(cg.Program, "memory.events"))
	if err != nil {
		return &SetupError{StepMeasure, err}
	}
	kv := parseKeyed(ev)
	r.OOM, r.OOMKill = kv["oom"], kv["oom_kill"]
	if r.PidsPeak, err = readInt(cg.Program, "pids.peak"); errors.Is(err, os.ErrNotExist) {
		r.PidsPeak = -1 // pids.peak is Linux 6.1+
	} else if err != nil {
		return &SetupError{StepMeasure, err}
	}
	return nil
}

// Remove removes program/ (best effort: the container's end takes it anyway).
func (cg *Cgroups) Remove() { _ = syscall.Rmdir(cg.Program) }

func readInt(dir, name string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// parseKeyed parses "key value" lines (memory.events, cpu.stat).
func parseKeyed(b []byte) map[string]int64 {
	m := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			m[k] = n
		}
	}
	return m
}
