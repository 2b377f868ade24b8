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
	host, err := c.Host(context.Background())
	if err != nil {
		t.Fatalf("Podman service: %v", err)
	}
	env.CgroupManager = host.CgroupManager
	return env
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
