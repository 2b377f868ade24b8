package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/opencontainers/selinux/go-selinux"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	cgmanager "github.com/podjail/podjail/cgroupdrv/manager"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/policy"
)

// Setup says how to make a Runner on this host.
type Setup struct {
	// URL of the Podman API. Zero value: socket discovery
	// ($CONTAINER_HOST, the user's socket, /run/podman/podman.sock).
	URL string
	// Shim is the host path of podjail-shim. Zero value: runs without it.
	Shim string
	// Log receives the runner's log. Zero value: nothing is logged.
	Log hclog.Logger
	// MemoryCeiling is the Runner's MemoryCeiling. Zero value: none.
	MemoryCeiling int64
	// Observer is the Runner's Observer, told also of the sweeps at its
	// setup. Zero value: nobody is told.
	Observer Observer
}

// MemoryCeilingEnv names the environment variable that the commands read a
// Runner's memory ceiling from (a size: 640MiB), so that it holds for every
// front, including those a judge execs with its own flags.
const MemoryCeilingEnv = "PODJAIL_MEMORY_CEILING"

// MemoryCeilingFromEnv reads $PODJAIL_MEMORY_CEILING; 0 when it is not set.
func MemoryCeilingFromEnv() (int64, error) {
	s := os.Getenv(MemoryCeilingEnv)
	if s == "" {
		return 0, nil
	}
	b, err := lang.ParseSize(s)
	if err != nil || b <= 0 {
		return 0, &runner.RequestError{Field: "$" + MemoryCeilingEnv, Err: fmt.Errorf("%q is not a memory size like 640MiB (%v)", s, err)}
	}
	return b, nil
}

// Connect reaches the Podman service picked by socket discovery.
func Connect(ctx context.Context, url string) (*bindings.Client, error) {
	uid := os.Geteuid()
	d := bindings.Discovery{
		Flag:          url,
		ContainerHost: os.Getenv("CONTAINER_HOST"),
		XDGRuntimeDir: os.Getenv("XDG_RUNTIME_DIR"),
		UID:           uid,
	}
	return bindings.Connect(ctx, d.URL(), uid != 0)
}

// NewRunner connects to Podman, picks the cgroup driver it uses, writes
// the seccomp profile, and removes the containers and cgroups that dead
// podjail instances of this host left.
func NewRunner(ctx context.Context, s Setup) (*Runner, error) {
	log := s.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	start := time.Now()
	defer func() { log.Debug("runner set up", "took", time.Since(start)) }()
	// step logs how long each setup step took: under emulation the setup
	// is half of a one-run command's time.
	step := func(name string) {
		log.Debug("setup step", "step", name, "since_start", time.Since(start))
	}
	// Judges that exec podjail may clear the environment (omegaUp's Runner
	// does); the user's runtime directory is where systemd makes it.
	if uid := os.Geteuid(); uid != 0 && os.Getenv("XDG_RUNTIME_DIR") == "" {
		_ = os.Setenv("XDG_RUNTIME_DIR", fmt.Sprintf("/run/user/%d", uid))
	}
	bindings.RouteLibraryLogs(log)
	client, err := Connect(ctx, s.URL)
	if err != nil {
		return nil, err
	}
	step("connect")
	if err := shimUsable(s.Shim, policy.SELinuxState(), selinux.FileLabel); err != nil {
		return nil, err
	}
	self, err := runner.Self()
	if err != nil {
		return nil, err
	}
	// The container sweep and the host's steps are independent: side by
	// side, a one-run command pays the longer of the two, not their sum.
	obs := orNobody(s.Observer)
	var swept sync.WaitGroup
	swept.Go(func() {
		runner.SweepContainers(ctx, client, self, log, obs)
		step("sweep containers")
	})
	r, err := hostSetup(ctx, client, self, log, step, obs)
	swept.Wait()
	if err != nil {
		return nil, err
	}
	r.Shim, r.MemoryCeiling, r.Observer = s.Shim, s.MemoryCeiling, s.Observer
	// After the sweep: a swept container's level is not adopted.
	if err := adoptLevels(ctx, client, r.Levels, log); err != nil {
		return nil, fmt.Errorf("adopt the SELinux levels of live containers: %w", err)
	}
	return r, nil
}

// hostSetup asks the service about its host, picks the cgroup driver,
// sweeps dead instances' parents and writes the seccomp profile.
func hostSetup(ctx context.Context, client *bindings.Client, self runner.Instance, log hclog.Logger, step func(string), obs Observer) (*Runner, error) {
	cache := hostCache{dir: seccompDir(os.Geteuid() != 0), now: time.Now}
	host, err := cache.get(ctx, client.URL(), client.Host)
	if err != nil {
		return nil, err
	}
	step("host info")
	driver, err := cgmanager.New(host.CgroupManager, host.Rootless)
	if err != nil {
		return nil, err
	}
	runner.SweepParentsLogged(ctx, driver, self, log, obs)
	step("sweep parents")
	profile, err := policy.WriteSeccomp(seccompDir(host.Rootless))
	if err != nil {
		return nil, fmt.Errorf("write the seccomp profile: %w", err)
	}
	step("seccomp profile")
	cores := pinnableCores(cgroupdrv.Host{}, os.Geteuid(), log)
	return &Runner{Runner: runner.Runner{Runtime: client, Self: self, Cgroups: driver, Seccomp: profile,
		Levels: policy.NewLevelPool(), Log: log}, Cores: cores}, nil
}

// adoptLevels marks the SELinux levels of the service's containers (other
// runners' runs, and anyone else's: Podman draws from the same range) as
// taken, so no two live runs share one.
func adoptLevels(ctx context.Context, rt bindings.Runtime, levels *policy.LevelPool, log hclog.Logger) error {
	if !levels.Enabled() {
		log.Debug("SELinux per-run levels off: SELinux with MCS is not enabled")
		return nil
	}
	list, err := rt.ListByLabel(ctx, "")
	if err != nil {
		return err
	}
	var labels []string
	for _, c := range list {
		st, err := rt.Inspect(ctx, c.ID)
		if err == nil && st.ProcessLabel != "" {
			labels = append(labels, st.ProcessLabel)
		}
	}
	err = levels.Adopt(labels)
	log.Debug("SELinux levels adopted", "labels", strings.Join(labels, " "), "held", levels.Len())
	return err
}

// seccompDir holds podjail's seccomp profile where the Podman service can
// read it and nobody else can write: /run/podjail, or the user's runtime
// directory rootless.
func seccompDir(rootless bool) string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); rootless && d != "" {
		return filepath.Join(d, "podjail")
	}
	return "/run/podjail"
}

// FindShim resolves a --shim flag: a path, "none", or empty for
// $PODJAIL_SHIM, else podjail-shim beside the running executable or where a
// package puts it (shimNear). A shim asked for but missing is an
// error; one not found by the default lookup means running without it.
func FindShim(flagValue string) (string, error) {
	if flagValue == "none" {
		return "", nil
	}
	explicit := flagValue
	if explicit == "" {
		explicit = os.Getenv("PODJAIL_SHIM")
	}
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
			return "", fmt.Errorf("shim %s: not a file (build it with make build; --shim none runs without it)", abs)
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil
	}
	return shimNear(exe), nil
}

// shimNear is podjail-shim beside exe, else where a package installs it
// for exe's prefix (/usr/bin/podjail: /usr/libexec/podjail/podjail-shim,
// contrib/rpm); "" when neither is a file.
func shimNear(exe string) string {
	dir := filepath.Dir(exe)
	for _, p := range []string{
		filepath.Join(dir, "podjail-shim"),
		filepath.Join(filepath.Dir(dir), "libexec", "podjail", "podjail-shim"),
	} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
