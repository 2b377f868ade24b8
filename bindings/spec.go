package bindings

import (
	"fmt"
	"strings"

	"github.com/containers/podman/v5/pkg/specgen"
	spec "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/podjail/podjail/policy"
)

// InputPath is where a run's input file is bind-mounted, read-only.
const InputPath = "/run/podjail/input"

// StderrPath is where the file a run's stderr goes to is bind-mounted,
// read-write.
const StderrPath = "/run/podjail/stderr"

// ControlPath is where a run's control pipe (a FIFO the shim takes as its
// stdin: the go, then the program's streamed input) is bind-mounted.
const ControlPath = "/run/podjail/control"

// StdoutPath is where a run's stdout pipe (a FIFO the shim gives the
// program as its stdout, read by the runner on the host) is bind-mounted.
const StdoutPath = "/run/podjail/stdout"

// StatusPath is where a run's status pipe (a FIFO the shim makes its
// stderr: its armed line and its report, read by the runner on the host)
// is bind-mounted.
const StatusPath = "/run/podjail/status"

// ShimPath is where the shim binary is bind-mounted, read-only.
const ShimPath = "/run/podjail/shim"

// Spec is podjail's description of one container. Lowering it to Podman's
// spec happens here and nowhere else.
type Spec struct {
	// Name of the container. Zero value: Podman picks one.
	Name string
	// Image to run. Required.
	Image string
	// Command is the argv of the program. Required.
	Command []string
	// Labels are set on the container. Zero value: none.
	Labels map[string]string

	// Profile is the security profile. Required: see policy.Default.
	Profile policy.Profile

	// MemoryBytes is the memory limit; swap is set equal so the program
	// can never swap. Required (> 0).
	MemoryBytes int64
	// Pids caps the number of tasks. Required (> 0).
	Pids int64
	// CPUs is the CPU quota in cores (1.5 = one and a half). Required (> 0).
	CPUs float64
	// CPUSet is the cores the container may run on (cpuset.cpus: "2",
	// "0-1"). Zero value: any.
	CPUSet string

	// InputFile is a host file bind-mounted read-only at InputPath.
	// Zero value: no input mount.
	InputFile string
	// StderrFile is a host file bind-mounted read-write at StderrPath.
	// Zero value: no such mount.
	StderrFile string
	// Stdin keeps the container's stdin open for Attach. Zero value: the
	// program's stdin is empty.
	Stdin bool
	// ControlPipe is a host FIFO bind-mounted at ControlPath, which the
	// shim opens for reading. Zero value: no such mount.
	ControlPipe string
	// StdoutPipe is a host FIFO bind-mounted at StdoutPath, which the shim
	// opens for writing. Zero value: no such mount.
	StdoutPipe string
	// StatusPipe is a host FIFO bind-mounted at StatusPath, which the shim
	// opens for writing. Zero value: no such mount.
	StatusPipe string

	// ShimFile is the host's shim binary, bind-mounted read-only at
	// ShimPath. Zero value: no shim mount.
	ShimFile string
	// Env is the container's environment. Zero value: the image's only.
	Env map[string]string
	// Binds are host paths bind-mounted (artefacts, a checker's files,
	// isolate's box). Zero value: none.
	Binds []Bind
	// Writable leaves the root filesystem writable, in the container's
	// own layer (the build step's compiler writes there). Zero value:
	// read-only root.
	Writable bool
	// WorkDir is the working directory, made (root's, mode 0755) where the
	// image has none: a build's, which the shim fills. Zero value: the
	// image's.
	WorkDir string
	// SeccompProfile is the host path of a seccomp profile (JSON) the
	// Podman service reads. Zero value: Podman's default profile.
	SeccompProfile string
	// Rlimits are set on the container's processes. Zero value: Podman's.
	Rlimits []policy.Rlimit
	// SELinuxLevel is the run's own MCS level ("s0:c1,c2"). Zero value:
	// Podman picks one.
	SELinuxLevel string
	// CgroupParent is the per-run parent (a slice under systemd, a path
	// under cgroupfs) the container's cgroup is made in. Zero value:
	// Podman's default parent.
	CgroupParent string
}

// Bind is one bind mount, read-only unless Writable.
type Bind struct {
	// Source is the host path; Destination the path in the container.
	Source, Destination string
	// Writable mounts it read-write (isolate's box). Zero value: read-only.
	Writable bool
}

// cpuPeriod is the CFS period, in microseconds, that CPUs is a share of.
const cpuPeriod = 100000

func (s Spec) validate() error {
	switch {
	case s.Image == "":
		return fmt.Errorf("container spec: no image")
	case len(s.Command) == 0:
		return fmt.Errorf("container spec: no command")
	case s.MemoryBytes <= 0:
		return fmt.Errorf("container spec: memory limit must be positive, got %d", s.MemoryBytes)
	case s.Pids <= 0:
		return fmt.Errorf("container spec: pids limit must be positive, got %d", s.Pids)
	case s.CPUs <= 0:
		return fmt.Errorf("container spec: CPU quota must be positive, got %g", s.CPUs)
	}
	return s.Profile.Validate()
}

// generator lowers the spec to Podman's SpecGenerator.
func (s Spec) generator() (*specgen.SpecGenerator, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	yes, no := true, false
	g := specgen.NewSpecGenerator(s.Image, false)
	g.Name = s.Name
	g.Entrypoint = s.Command[:1]
	g.Command = s.Command[1:]
	g.Labels = s.Labels
	g.Env = map[string]string{}
	for k, v := range s.Env {
		g.Env[k] = v
	}
	g.EnvHost = &no
	g.HTTPProxy = &no
	g.Terminal = &no
	g.Stdin = &s.Stdin
	g.Init = &no
	g.Systemd = "false"

	// Identity and privileges.
	g.User = s.Profile.User
	g.CapDrop = []string{"all"}
	g.CapAdd = s.Profile.CapAdd
	g.NoNewPrivileges = &yes
	g.Passwd = &no
	g.Unmask = s.Profile.Unmask
	g.SeccompProfilePath = s.SeccompProfile
	g.SelinuxOpts = policy.LabelOpts(s.SELinuxLevel)
	for _, r := range s.Rlimits {
		// Podman takes "core" and adds the RLIMIT_ itself.
		name := strings.ToLower(strings.TrimPrefix(r.Type, "RLIMIT_"))
		g.Rlimits = append(g.Rlimits, spec.POSIXRlimit{Type: name, Soft: r.Soft, Hard: r.Hard})
	}

	// Filesystem: read-only root, no implicit writable tmpfs, one sized
	// scratch tmpfs, the input as one read-only file.
	readOnly := !s.Writable
	g.ReadOnlyFilesystem = &readOnly
	g.WorkDir = s.WorkDir
	if s.WorkDir != "" {
		yes := true
		g.CreateWorkingDir = &yes
	}
	g.ReadWriteTmpfs = &no
	if s.Profile.ScratchPath != "" && !s.bindsAt(s.Profile.ScratchPath) {
		g.Mounts = append(g.Mounts, spec.Mount{
			Destination: s.Profile.ScratchPath,
			Type:        "tmpfs",
			Source:      "tmpfs",
			Options:     s.Profile.ScratchOptions(),
		})
	}
	if s.ShimFile != "" {
		g.Mounts = append(g.Mounts, spec.Mount{
			Destination: ShimPath,
			Type:        "bind",
			Source:      s.ShimFile,
			Options:     []string{"ro", "nosuid", "nodev", "rbind"},
		})
	}
	// "z": on an SELinux host Podman relabels the source
	// container_file_t:s0, shared, so any run's container_t may read (and
	// execute) the artefacts, inputs and checker files, which keep their
	// host labels otherwise; elsewhere it does nothing. The shim is not
	// relabelled: contrib/selinux gives it its label once.
	for _, b := range s.Binds {
		mode := "ro"
		if b.Writable {
			mode = "rw"
		}
		g.Mounts = append(g.Mounts, spec.Mount{
			Destination: b.Destination,
			Type:        "bind",
			Source:      b.Source,
			Options:     []string{mode, "nosuid", "nodev", "rbind", "z"},
		})
	}
	// The run's own files, one each, none executable: the input, the
	// pipes of its stdio, the caller's stderr file.
	for _, f := range []struct {
		source, destination, mode string
	}{
		{s.InputFile, InputPath, "ro"},
		{s.ControlPipe, ControlPath, "ro"},
		{s.StdoutPipe, StdoutPath, "rw"},
		{s.StatusPipe, StatusPath, "rw"},
		{s.StderrFile, StderrPath, "rw"},
	} {
		if f.source != "" {
			g.Mounts = append(g.Mounts, spec.Mount{
				Destination: f.destination,
				Type:        "bind",
				Source:      f.source,
				Options:     []string{f.mode, "nosuid", "nodev", "noexec", "rbind", "z"},
			})
		}
	}

	// No network, no log driver (attach carries a run's stdio without the
	// shim; a shimmed run's goes through its pipes).
	g.NetNS = specgen.Namespace{NSMode: specgen.NoNetwork}
	g.LogConfiguration = &specgen.LogConfig{Driver: "none"}

	// cgroups: a private namespace (the shim sees its own cgroup as the
	// root) under the run's own parent.
	g.CgroupNS = specgen.Namespace{NSMode: specgen.Private}
	g.CgroupParent = s.CgroupParent
	// conmon, and the `podman container cleanup` it runs when the
	// container exits, stay in the service's cgroup: in the parent they
	// would be charged to the run (measured at 1.6 s under emulation).
	g.CgroupsMode = "no-conmon"

	// Resources. Swap equal to memory means memory.swap.max = 0.
	period := uint64(cpuPeriod)
	quota := int64(s.CPUs * cpuPeriod)
	g.ResourceLimits = &spec.LinuxResources{
		Memory: &spec.LinuxMemory{Limit: &s.MemoryBytes, Swap: &s.MemoryBytes},
		Pids:   &spec.LinuxPids{Limit: s.Pids},
		CPU:    &spec.LinuxCPU{Quota: &quota, Period: &period, Cpus: s.CPUSet},
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("container spec: %w", err)
	}
	return g, nil
}

// bindsAt reports whether a bind mount goes to dir (it then replaces the
// scratch tmpfs there: isolate's --dir=/tmp=...).
func (s Spec) bindsAt(dir string) bool {
	for _, b := range s.Binds {
		if b.Destination == dir {
			return true
		}
	}
	return false
}
