package plugin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

// fakeHost answers Host only: Doctor asks the runtime nothing else.
type fakeHost struct {
	bindings.Runtime
	info bindings.HostInfo
}

func (f fakeHost) Host(context.Context) (bindings.HostInfo, error) { return f.info, nil }

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func unifiedTree(t *testing.T, userControllers string) string {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n")
	writeFile(t, filepath.Join(root, cgroupdrv.UserManagerPath(1000), "cgroup.controllers"), userControllers+"\n")
	return root
}

// goodHost is the host the fake runtime reports.
var goodHost = runnertest.GoodHost

func doctorIn(root string, uid int, host bindings.HostInfo) DoctorInput {
	return DoctorInput{
		Cgroups:        cgroupdrv.Host{Root: root},
		UID:            uid,
		Kernel:         "6.12.57+deb13-amd64",
		Runtime:        fakeHost{info: host},
		SystemdVersion: func(bool) (string, error) { return "257", nil },
		SELinux:        func() string { return "disabled" },
	}
}

func failed(checks []Check) map[string]Check {
	m := map[string]Check{}
	for _, c := range checks {
		if !c.OK {
			m[c.Name] = c
		}
	}
	return m
}

func TestDoctorPassesAFitHost(t *testing.T) {
	root := unifiedTree(t, "cpuset cpu io memory pids")
	for _, uid := range []int{0, 1000} {
		checks := Doctor(context.Background(), doctorIn(root, uid, goodHost))
		if !Fit(checks) {
			t.Errorf("uid %d: fit host refused: %+v", uid, failed(checks))
		}
	}
}

func TestDoctorRefusesHybridCgroups(t *testing.T) {
	root := t.TempDir()
	for _, c := range []string{"cpu", "memory", "pids"} {
		if err := os.MkdirAll(filepath.Join(root, c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(root, "unified", "cgroup.controllers"), "hugetlb\n")
	checks := Doctor(context.Background(), doctorIn(root, 0, goodHost))
	bad := failed(checks)
	c, ok := bad["cgroup v2 unified"]
	if !ok || !strings.Contains(c.Detail, "hybrid") || !strings.Contains(c.Fix, "systemd.unified_cgroup_hierarchy=1") {
		t.Fatalf("hybrid host not refused clearly: %+v", checks)
	}
	if Fit(checks) {
		t.Fatal("hybrid host called fit")
	}
}

func TestDoctorRefusesMissingDelegation(t *testing.T) {
	root := unifiedTree(t, "cpu memory pids")
	bad := failed(Doctor(context.Background(), doctorIn(root, 1000, goodHost)))
	c, ok := bad["delegation to the user"]
	if !ok || !strings.Contains(c.Detail, "cpuset") || !strings.Contains(c.Fix, "Delegate=") {
		t.Fatalf("missing cpuset delegation not reported: %+v", bad)
	}
	if len(bad) != 1 {
		t.Errorf("other checks failed too: %+v", bad)
	}
}

func TestDoctorRefusesWrongRuntimeOldKernelAndNoPodman(t *testing.T) {
	root := unifiedTree(t, "cpuset cpu io memory pids")
	runc := goodHost
	runc.OCIRuntime = "runc"
	if _, ok := failed(Doctor(context.Background(), doctorIn(root, 0, runc)))["OCI runtime crun"]; !ok {
		t.Error("runc accepted")
	}
	old := doctorIn(root, 0, goodHost)
	old.Kernel = "5.15.0-91-generic"
	if _, ok := failed(Doctor(context.Background(), old))["kernel >= 5.19"]; !ok {
		t.Error("kernel 5.15 accepted")
	}
	down := doctorIn(root, 1000, goodHost)
	down.Runtime = nil
	down.ConnectErr = &bindings.UnreachableError{Socket: "unix:///run/user/1000/podman/podman.sock", Rootless: true, Err: errors.New("refused")}
	bad := failed(Doctor(context.Background(), down))
	if c, ok := bad["Podman >= 5 on the socket"]; !ok || !strings.Contains(c.Detail, "systemctl --user enable --now podman.socket") {
		t.Errorf("unreachable Podman not reported with advice: %+v", bad)
	}
	nobus := doctorIn(root, 0, goodHost)
	nobus.SystemdVersion = func(bool) (string, error) { return "", cgroupdrv.ErrBusUnreachable }
	if _, ok := failed(Doctor(context.Background(), nobus))["D-Bus to systemd"]; !ok {
		t.Error("unreachable D-Bus accepted with the systemd manager")
	}
	cgroupfs := goodHost
	cgroupfs.CgroupManager = "cgroupfs"
	nobus.Runtime = fakeHost{info: cgroupfs}
	if !Fit(Doctor(context.Background(), nobus)) {
		t.Error("D-Bus required although Podman uses cgroupfs")
	}
}

func TestParseKernel(t *testing.T) {
	for release, want := range map[string][2]int{
		"6.12.57+deb13-amd64":      {6, 12},
		"5.19.0":                   {5, 19},
		"5.14.0-427.el9.x86_64":    {5, 14},
		"6.18.44-fc-v1045":         {6, 18},
		"6.1rc2":                   {6, 1},
		"4.18.0-553.el8_10.x86_64": {4, 18},
	} {
		major, minor, ok := parseKernel(release)
		if !ok || major != want[0] || minor != want[1] {
			t.Errorf("parseKernel(%q) = %d.%d %v", release, major, minor, ok)
		}
	}
	if _, _, ok := parseKernel("garbage"); ok {
		t.Error("garbage parsed")
	}
}

func TestDoctorSELinuxChecks(t *testing.T) {
	root := unifiedTree(t, "cpuset cpu io memory pids")
	in := func(state, label string, boolOn bool) DoctorInput {
		d := doctorIn(root, 0, goodHost)
		d.Module = func(string) (bool, error) { return boolOn, nil }
		d.Allows = func(scon, tcon, class string, perms ...string) (bool, error) { return boolOn, nil }
		d.SELinux = func() string { return state }
		d.Shim = "/usr/libexec/podjail/podjail-shim"
		d.FileLabel = func(string) (string, error) { return label, nil }
		d.Boolean = func(name string) (bool, error) {
			if name != "container_manage_cgroup" {
				t.Errorf("boolean %q asked", name)
			}
			return boolOn, nil
		}
		return d
	}
	const good, bad = "system_u:object_r:container_ro_file_t:s0", "system_u:object_r:bin_t:s0"
	if checks := Doctor(context.Background(), in("enforcing", good, true)); !Fit(checks) {
		t.Errorf("ready enforcing host refused: %+v", failed(checks))
	}
	bads := failed(Doctor(context.Background(), in("enforcing", bad, false)))
	if c, ok := bads["SELinux: shim label"]; !ok || !strings.Contains(c.Detail, "bin_t") || !strings.Contains(c.Fix, "restorecon") {
		t.Errorf("mislabelled shim not refused with the fix: %+v", bads)
	}
	if c, ok := bads["SELinux: cgroup boolean"]; !ok || !strings.Contains(c.Fix, "setsebool -P container_manage_cgroup on") {
		t.Errorf("boolean off not refused with the fix: %+v", bads)
	}
	if c, ok := bads["SELinux: podjail module"]; !ok || !strings.Contains(c.Fix, "semodule -i podjail.pp") ||
		!strings.Contains(c.Detail, "not installed") || !strings.Contains(c.Detail, "denies that container_t may enter") {
		t.Errorf("the module's rules missing not refused with the fix: %+v", bads)
	}
	// A caller the policy will not answer (no compute_av, no module store):
	// the check says so and stays OK.
	d0 := in("enforcing", good, true)
	d0.Module = func(string) (bool, error) { return false, os.ErrPermission }
	d0.Allows = func(string, string, string, ...string) (bool, error) { return false, os.ErrPermission }
	for _, c := range Doctor(context.Background(), d0) {
		if c.Name == "SELinux: podjail module" && (!c.OK || !strings.Contains(c.Detail, "cannot ask the policy")) {
			t.Errorf("unanswered questions: %+v, want OK saying so", c)
		}
	}
	// Permissive: the same misses are reported but the host stays fit.
	checks := Doctor(context.Background(), in("permissive", bad, false))
	if !Fit(checks) {
		t.Errorf("permissive host refused: %+v", failed(checks))
	}
	var fixes int
	for _, c := range checks {
		if c.Fix != "" {
			fixes++
		}
	}
	if fixes != 3 {
		t.Errorf("permissive: %d checks carry a fix, want the label, the boolean and the module", fixes)
	}
	// Without SELinux neither is asked.
	d := in("disabled", bad, false)
	d.FileLabel = func(string) (string, error) { t.Error("label read without SELinux"); return "", nil }
	if checks := Doctor(context.Background(), d); !Fit(checks) {
		t.Errorf("host without SELinux refused: %+v", failed(checks))
	}
}

func TestShimUsable(t *testing.T) {
	label := func(l string) func(string) (string, error) { return func(string) (string, error) { return l, nil } }
	const shim = "/opt/podjail/podjail-shim"
	if err := shimUsable(shim, "enforcing", label("system_u:object_r:container_ro_file_t:s0")); err != nil {
		t.Errorf("labelled shim refused: %v", err)
	}
	err := shimUsable(shim, "enforcing", label("unconfined_u:object_r:tmp_t:s0"))
	if !errors.Is(err, ErrShimLabel) || !strings.Contains(err.Error(), "semanage fcontext -a -t container_ro_file_t "+shim) {
		t.Errorf("a tmp_t shim on an enforcing host: %v", err)
	}
	for _, state := range []string{"permissive", "disabled"} {
		if err := shimUsable(shim, state, label("unconfined_u:object_r:tmp_t:s0")); err != nil {
			t.Errorf("%s: %v", state, err)
		}
	}
	if err := shimUsable("", "enforcing", label("x")); err != nil {
		t.Errorf("no shim: %v", err)
	}
}
