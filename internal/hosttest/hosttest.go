// Package hosttest guards the tests that need a real Podman host. They run
// in the project's test VM (make test-vm), which sets PODJAIL_INTEGRATION=1;
// there a missing piece fails the test. Anywhere else they skip, saying why
// and how to run them, so a skip is never silent and never counted as a pass
// in the VM.
package hosttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/policy"
)

// Env is what an integration test gets.
type Env struct {
	// Podjail is the podjail binary under test.
	Podjail string
	// Image is the scratch image holding the test binary as /podjail.test.
	Image string
	// Client talks to the Podman service of the current user.
	Client *bindings.Client
	// Rootless says the test runs as an unprivileged user.
	Rootless bool
	// Progs is the host directory holding the test image's programs, to
	// run them outside a container too.
	Progs string
	// CgroupManager is what the Podman service uses: systemd or cgroupfs.
	CgroupManager string
}

// Required reports whether this run must have a Podman host.
func Required() bool { return os.Getenv("PODJAIL_INTEGRATION") == "1" }

// Podman returns the integration environment, or skips the test (outside
// the VM) or fails it (inside) when something is missing.
func Podman(t testing.TB) Env {
	t.Helper()
	if !Required() {
		t.Skip("needs a real Podman host on cgroup v2: run `make test-vm` (sets PODJAIL_INTEGRATION=1)")
	}
	env := Env{
		Podjail:  os.Getenv("PODJAIL_BIN"),
		Image:    os.Getenv("PODJAIL_TEST_IMAGE"),
		Rootless: os.Geteuid() != 0,
	}
	if env.Podjail == "" || env.Image == "" {
		t.Fatal("PODJAIL_INTEGRATION=1 but PODJAIL_BIN or PODJAIL_TEST_IMAGE is unset")
	}
	if _, err := exec.LookPath(env.Podjail); err != nil {
		t.Fatalf("podjail binary: %v", err)
	}
	if p := os.Getenv("PODJAIL_PAYLOAD"); p != "" {
		env.Progs = filepath.Join(p, "progs")
	}
	d := bindings.Discovery{ContainerHost: os.Getenv("CONTAINER_HOST"), XDGRuntimeDir: os.Getenv("XDG_RUNTIME_DIR"), UID: os.Geteuid()}
	c, err := bindings.Connect(context.Background(), d.URL(), env.Rootless)
	if err != nil {
		t.Fatalf("Podman service: %v", err)
	}
	env.Client = c
	env.CgroupManager, err = managers.get(d.URL(), env.Rootless, func() (string, error) {
		host, err := c.Host(context.Background())
		return host.CgroupManager, err
	})
	if err != nil {
		t.Fatalf("Podman service: %v", err)
	}
	return env
}

// managers keeps each service's cgroup manager for the test process: it
// changes only when the service is reconfigured and restarted, and Debian's
// Podman takes seconds to answer /info (it queries dpkg). Each test still
// gets a Client of its own, since Attach replaces a connection's transport.
var managers managerCache

// managerCache maps a service (URL, rootless) to its cgroup manager.
type managerCache struct {
	mu   sync.Mutex
	seen map[managerKey]string
}

type managerKey struct {
	url      string
	rootless bool
}

// get returns the manager kept for the service, else asks fetch and keeps
// its answer. A failure is not kept: the next test asks again, and fails
// too if the service still does not answer. The lock is held across fetch
// so that parallel tests starting together ask once.
func (m *managerCache) get(url string, rootless bool, fetch func() (string, error)) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := managerKey{url, rootless}
	if v, ok := m.seen[k]; ok {
		return v, nil
	}
	v, err := fetch()
	if err != nil {
		return "", err
	}
	if m.seen == nil {
		m.seen = make(map[managerKey]string)
	}
	m.seen[k] = v
	return v, nil
}

// SELinux returns the integration environment of the SELinux pass: `make
// test-vm` boots the VM a second time with SELinux on the kernel command
// line and sets PODJAIL_SELINUX=1. Elsewhere the test skips, saying where
// it runs; in that pass a host without SELinux fails it.
func SELinux(t testing.TB) Env {
	t.Helper()
	if os.Getenv("PODJAIL_SELINUX") != "1" {
		t.Skip("runs in the SELinux pass of `make test-vm` (a boot with security=selinux, PODJAIL_SELINUX=1)")
	}
	env := Podman(t)
	if state := policy.SELinuxState(); state == "disabled" || !policy.MCSEnabled() {
		t.Fatalf("PODJAIL_SELINUX=1 but SELinux with MCS is not on (state %s)", state)
	}
	return env
}
