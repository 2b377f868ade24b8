package shim

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseProcCgroup(t *testing.T) {
	for in, want := range map[string]string{
		"0::/\n": "/",
		"12:pids:/x\n1:name=systemd:/y\n0::/machine.slice/libpod-1.scope/container\n": "/machine.slice/libpod-1.scope/container",
	} {
		if got, err := parseProcCgroup([]byte(in)); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "1:name=systemd:/\n", "0::relative\n", "0::/a/../b\n"} {
		if got, err := parseProcCgroup([]byte(in)); err == nil {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}

func TestParseKeyed(t *testing.T) {
	got := parseKeyed([]byte("low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 0\n"))
	want := map[string]int64{"low": 0, "high": 0, "max": 12, "oom": 1, "oom_kill": 2, "oom_group_kill": 0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

// TestMeasure reads a program cgroup's counters as the kernel writes them;
// a kernel before 6.1 has no pids.peak, which the report gives as -1.
func TestMeasure(t *testing.T) {
	cg := &Cgroups{Program: t.TempDir()}
	put := func(name, val string) {
		if err := os.WriteFile(filepath.Join(cg.Program, name), []byte(val), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("memory.peak", "1048576\n")
	put("memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\noom_group_kill 0\n")
	var r Report
	if err := cg.Measure(&r); stepOf(err) != StepMeasure {
		t.Errorf("no cpu.stat: %v, want a failure at step %s", err, StepMeasure)
	}
	put("cpu.stat", "user_usec 1500000\nsystem_usec 100000\nnr_periods 0\n")
	if err := cg.Measure(&r); stepOf(err) != StepMeasure {
		t.Errorf("a cpu.stat without usage_usec: %v, want a failure at step %s", err, StepMeasure)
	}
	put("cpu.stat", "usage_usec 1600123\nuser_usec 1500000\nsystem_usec 100123\nnr_periods 0\n")
	if err := cg.Measure(&r); err != nil || r.PeakBytes != 1<<20 || r.OOM != 1 || r.OOMKill != 1 || r.PidsPeak != -1 {
		t.Fatalf("without pids.peak: %+v, %v", r, err)
	}
	if r.CgroupUs != 1600123 || r.CgroupUserUs != 1500000 || r.CgroupSysUs != 100123 {
		t.Errorf("cpu.stat read as usage %d, user %d, system %d", r.CgroupUs, r.CgroupUserUs, r.CgroupSysUs)
	}
	put("pids.peak", "7\n")
	if err := cg.Measure(&r); err != nil || r.PidsPeak != 7 {
		t.Fatalf("with pids.peak: %+v, %v", r, err)
	}
	put("pids.peak", "max\n")
	if err := cg.Measure(&r); stepOf(err) != StepMeasure {
		t.Errorf("a pids.peak that is no number: %v, want a failure at step %s", err, StepMeasure)
	}
	put("memory.peak", "")
	if err := cg.Measure(&r); stepOf(err) != StepMeasure {
		t.Errorf("an empty memory.peak: %v, want a failure at step %s", err, StepMeasure)
	}
	if err := (&Cgroups{Program: filepath.Join(cg.Program, "gone")}).Measure(&r); stepOf(err) != StepMeasure {
		t.Errorf("no program cgroup: %v, want a failure at step %s", err, StepMeasure)
	}
}

// TestKillAndRemove: cgroup.kill gets one write of "1"; a program cgroup
// that is already gone is nothing to kill, and Remove takes it away.
func TestKillAndRemove(t *testing.T) {
	cg := &Cgroups{Program: filepath.Join(t.TempDir(), ProgramCgroup)}
	if err := cg.Kill(); err != nil {
		t.Errorf("Kill of a cgroup that is gone: %v", err)
	}
	if err := os.Mkdir(cg.Program, 0o755); err != nil {
		t.Fatal(err)
	}
	kill := filepath.Join(cg.Program, "cgroup.kill")
	if err := os.WriteFile(kill, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cg.Kill(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(kill); string(got) != "1" {
		t.Errorf("cgroup.kill got %q, want \"1\"", got)
	}
	if err := os.Remove(kill); err != nil {
		t.Fatal(err)
	}
	cg.Remove()
	if _, err := os.Stat(cg.Program); !os.IsNotExist(err) {
		t.Errorf("program cgroup still there after Remove: %v", err)
	}
}

// TestWriteFile: a cgroup file takes its value in one write; a file that
// is not there is a failure of the cgroup step, never one created.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(dir, "pids.max", "64"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "pids.max")); string(got) != "64" {
		t.Errorf("pids.max holds %q", got)
	}
	if err := writeFile(dir, "memory.max", "1"); stepOf(err) != StepCgroup {
		t.Errorf("a missing file: %v, want a failure at step %s", err, StepCgroup)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory.max")); !os.IsNotExist(err) {
		t.Error("writeFile created a file that was not there")
	}
	if !hasWord("cpuset cpu io memory", "cpu") || hasWord("cpuset io", "cpu") {
		t.Error("hasWord does not match whole words")
	}
}

// TestSetupCgroupsNeedsCgroup2: on anything but a cgroup2 mount (a hybrid
// host's /sys/fs/cgroup is a tmpfs that would take the mkdirs) the shim
// makes nothing and fails at its cgroup step.
func TestSetupCgroupsNeedsCgroup2(t *testing.T) {
	root := t.TempDir()
	if _, err := SetupCgroups(root, 1<<20, 8); stepOf(err) != StepCgroup {
		t.Errorf("no cgroup of ours under %s: %v, want a failure at step %s", root, err, StepCgroup)
	}
	own, err := ownCgroup()
	if err != nil {
		t.Skipf("this host has no cgroup2 entry in /proc/self/cgroup: %v", err)
	}
	base := filepath.Join(root, own)
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = SetupCgroups(root, 1<<20, 8)
	if stepOf(err) != StepCgroup || !strings.Contains(err.Error(), "not a cgroup2 mount") {
		t.Errorf("a plain directory: %v, want a failure at step %s saying it is not cgroup2", err, StepCgroup)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("SetupCgroups made %v in a plain directory", entries)
	}
}
