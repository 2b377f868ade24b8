package bindings

import (
	"errors"
	"slices"
	"testing"

	"github.com/containers/podman/v5/pkg/specgen"

	"github.com/podjail/podjail/policy"
)

func validSpec() Spec {
	return Spec{
		Name: "podjail-run-test", Image: "localhost/x", Command: []string{"/prog", "a"},
		Labels: map[string]string{"io.podjail.role": "run"}, Profile: policy.Default(),
		MemoryBytes: 64 << 20, Pids: 16, CPUs: 1.5, InputFile: "/srv/in", Stdin: true,
	}
}

func TestSpecLowersTheProfile(t *testing.T) {
	g, err := validSpec().generator()
	if err != nil {
		t.Fatal(err)
	}
	if g.User != "65534:65534" {
		t.Errorf("user %q", g.User)
	}
	if !slices.Equal(g.CapDrop, []string{"all"}) || len(g.CapAdd) != 0 {
		t.Errorf("caps: drop %v add %v", g.CapDrop, g.CapAdd)
	}
	if g.NoNewPrivileges == nil || !*g.NoNewPrivileges {
		t.Error("no-new-privileges not set")
	}
	if !*g.ReadOnlyFilesystem || *g.ReadWriteTmpfs {
		t.Error("root must be read-only with no implicit rw tmpfs")
	}
	if g.NetNS.NSMode != specgen.NoNetwork {
		t.Errorf("network %v", g.NetNS)
	}
	if g.LogConfiguration.Driver != "none" {
		t.Errorf("log driver %q", g.LogConfiguration.Driver)
	}
	mem := g.ResourceLimits.Memory
	if *mem.Limit != 64<<20 || *mem.Swap != *mem.Limit {
		t.Errorf("memory %d swap %d: swap must equal memory", *mem.Limit, *mem.Swap)
	}
	if g.ResourceLimits.Pids.Limit != 16 {
		t.Errorf("pids %d", g.ResourceLimits.Pids.Limit)
	}
	if *g.ResourceLimits.CPU.Quota != 150000 || *g.ResourceLimits.CPU.Period != 100000 {
		t.Errorf("cpu quota %d period %d", *g.ResourceLimits.CPU.Quota, *g.ResourceLimits.CPU.Period)
	}
	if !slices.Equal(g.Entrypoint, []string{"/prog"}) || !slices.Equal(g.Command, []string{"a"}) {
		t.Errorf("entrypoint %v command %v", g.Entrypoint, g.Command)
	}
	var tmpfs, input bool
	for _, m := range g.Mounts {
		switch m.Destination {
		case "/tmp":
			tmpfs = m.Type == "tmpfs" && slices.Contains(m.Options, "noexec") && slices.Contains(m.Options, "nosuid") &&
				slices.Contains(m.Options, "nodev") && slices.Contains(m.Options, "size=16777216") && slices.Contains(m.Options, "mode=1777")
		case InputPath:
			input = m.Type == "bind" && m.Source == "/srv/in" && slices.Contains(m.Options, "ro")
		}
	}
	if !tmpfs || !input {
		t.Errorf("mounts wrong (tmpfs ok %v, input ok %v): %+v", tmpfs, input, g.Mounts)
	}
}

func TestSpecRefusesUnsafeOrIncomplete(t *testing.T) {
	for name, mutate := range map[string]func(*Spec){
		"no image":        func(s *Spec) { s.Image = "" },
		"no command":      func(s *Spec) { s.Command = nil },
		"no memory limit": func(s *Spec) { s.MemoryBytes = 0 },
		"no pids limit":   func(s *Spec) { s.Pids = 0 },
		"no cpu quota":    func(s *Spec) { s.CPUs = 0 },
		"no user":         func(s *Spec) { s.Profile.User = "" },
		"unsized scratch": func(s *Spec) { s.Profile.ScratchBytes = 0 },
	} {
		s := validSpec()
		mutate(&s)
		if _, err := s.generator(); err == nil {
			t.Errorf("%s: accepted", name)
		} else if name == "no user" && !errors.Is(err, policy.ErrInvalidProfile) {
			t.Errorf("%s: %v does not wrap ErrInvalidProfile", name, err)
		}
	}
}

func TestSpecLowersTheShimRun(t *testing.T) {
	s := validSpec()
	s.Profile = policy.Shim()
	s.ShimFile = "/usr/libexec/podjail-shim"
	s.Env = map[string]string{"PODJAIL_NONCE": "abc"}
	s.CgroupParent = "podjail_1_2_ab.slice"
	g, err := s.generator()
	if err != nil {
		t.Fatal(err)
	}
	if g.User != "0:0" || !slices.Equal(g.CapAdd, []string{"CAP_SETUID", "CAP_SETGID", "CAP_CHOWN"}) || !slices.Equal(g.CapDrop, []string{"all"}) {
		t.Errorf("user %q, caps add %v drop %v", g.User, g.CapAdd, g.CapDrop)
	}
	if !slices.Equal(g.Unmask, []string{"/sys/fs/cgroup"}) || g.CgroupNS.NSMode != specgen.Private {
		t.Errorf("unmask %v, cgroupns %v: the shim needs a private, writable cgroup namespace", g.Unmask, g.CgroupNS)
	}
	if g.CgroupsMode != "no-conmon" {
		t.Errorf("cgroups mode %q: conmon must not be charged to the run", g.CgroupsMode)
	}
	if g.CgroupParent != "podjail_1_2_ab.slice" || g.Env["PODJAIL_NONCE"] != "abc" {
		t.Errorf("cgroup parent %q, env %v", g.CgroupParent, g.Env)
	}
	found := false
	for _, m := range g.Mounts {
		if m.Destination == ShimPath {
			found = m.Source == s.ShimFile && slices.Contains(m.Options, "ro")
		}
	}
	if !found {
		t.Errorf("shim not bind-mounted read-only at %s: %+v", ShimPath, g.Mounts)
	}
}

// A build's working directory is not in its image: Podman makes it, where
// it would otherwise refuse to start the container.
func TestSpecMakesTheWorkingDirectory(t *testing.T) {
	s := validSpec()
	s.WorkDir = "/build"
	g, err := s.generator()
	if err != nil {
		t.Fatal(err)
	}
	if g.WorkDir != "/build" || g.CreateWorkingDir == nil || !*g.CreateWorkingDir {
		t.Errorf("workdir %q, create %v; want /build, made if missing", g.WorkDir, g.CreateWorkingDir)
	}
}

func TestSpecLowersRlimitsAsPodmanNamesThem(t *testing.T) {
	s := validSpec()
	s.Rlimits = policy.Rlimits(64<<20, 16<<20, 0)
	g, err := s.generator()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]uint64{}
	for _, r := range g.Rlimits {
		names[r.Type] = r.Hard
	}
	// crun refuses "RLIMIT_RLIMIT_CORE": Podman prefixes the name itself.
	want := map[string]uint64{"core": 0, "stack": 64 << 20, "nofile": 64, "fsize": 16 << 20}
	for k, v := range want {
		if got, ok := names[k]; !ok || got != v {
			t.Errorf("rlimit %s = %d (present %t), want %d; all: %v", k, got, ok, v, names)
		}
	}
}
