package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
)

// benchMS writes a duration in milliseconds, as the bench prints them.
func benchMS(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// benchMSDiff is a difference in milliseconds, signed.
func benchMSDiff(d time.Duration) string {
	return fmt.Sprintf("%+.1f ms", float64(d.Microseconds())/1000)
}

// printTop lists the cgroups that used most of a judge's host time, per
// test, each beside the same cgroup's per bare lifecycle (and with idle
// containers alive, when measured) and the judge's excess over it.
func printTop(w io.Writer, j benchJudge) {
	ms := benchMS
	diff := func(a, b time.Duration) string { return benchMSDiff(a - b) }
	switch {
	case j.Floor == 0:
		for _, c := range j.Top {
			fmt.Fprintf(w, "    %10s  %s\n", ms(c.CPU), c.Path)
		}
	case j.FloorAlive == 0:
		fmt.Fprintf(w, "    per test, by cgroup: the judge, a bare lifecycle, the difference\n")
		for _, c := range j.Top {
			fmt.Fprintf(w, "    %10s  %10s  %10s  %s\n", ms(c.CPU), ms(c.Floor), diff(c.CPU, c.Floor), c.Path)
		}
	default:
		fmt.Fprintf(w, "    per test, by cgroup: the judge, a bare lifecycle, the difference; a bare one with %d alive, the difference\n", j.Alive)
		for _, c := range j.Top {
			fmt.Fprintf(w, "    %10s  %10s  %10s  %10s  %10s  %s\n", ms(c.CPU), ms(c.Floor), diff(c.CPU, c.Floor), ms(c.FloorAlive), diff(c.CPU, c.FloorAlive), c.Path)
		}
	}
}

// hostCPU is the processor time all cores have spent busy since boot
// (/proc/stat's first line, all but idle and iowait); -1 if unreadable.
func hostCPU() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return -1
	}
	var ticks int64
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return -1
		}
		if i != 3 && i != 4 { // idle, iowait
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// cgroupCPU is one cgroup's processor time over a judge, per test.
type cgroupCPU struct {
	Path string        `json:"path"`
	CPU  time.Duration `json:"cpu_ns"`
	// Floor is the same cgroup's per bare lifecycle at the same P
	// (benchFloor.Cgroups): CPU less Floor is podjail's excess there.
	// Zero: it used none, or the floor was not measured.
	Floor time.Duration `json:"bare_lifecycle_cpu_ns,omitempty"`
	// FloorAlive is the same with idle containers alive beside
	// (benchFloor.AliveCgroups). Zero: none, or not measured.
	FloorAlive time.Duration `json:"bare_lifecycle_alive_cpu_ns,omitempty"`
}

// cgroupUsage reads cpu.stat usage of the cgroups down to five levels below
// the root: the system's services and the users' managers at three, a
// user manager's services (a rootless Podman's, its conmons) at five.
func cgroupUsage() map[string]time.Duration {
	use := map[string]time.Duration{}
	root := cgroupdrv.DefaultRoot
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if rel != "." && strings.Count(rel, "/") >= 5 {
			return filepath.SkipDir
		}
		if v, err := cgroupdrv.CPUUsage(p); err == nil && rel != "." {
			use[rel] = v
		}
		return nil
	})
	return use
}

// topCgroups gives the k leaf-most cgroups that used most processor time
// between two readings, per test; a parent is left out when a child of it
// is listed for most of its time.
func topCgroups(before, after map[string]time.Duration, n, k int) []cgroupCPU {
	var all []cgroupCPU
	for p, v := range after {
		if d := v - before[p]; d > 0 {
			all = append(all, cgroupCPU{Path: p, CPU: d / time.Duration(n)})
		}
	}
	slices.SortFunc(all, func(a, b cgroupCPU) int { return int(b.CPU - a.CPU) })
	var top []cgroupCPU
	for _, c := range all {
		covered := false
		for _, o := range all {
			if strings.HasPrefix(o.Path, c.Path+"/") && o.CPU*2 > c.CPU {
				covered = true
				break
			}
		}
		if !covered {
			top = append(top, c)
		}
		if len(top) == k {
			break
		}
	}
	return top
}
