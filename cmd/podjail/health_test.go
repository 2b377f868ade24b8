package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/internal/hosttest"
)

// healthOf runs `podjail health --service sock` and fails the test unless
// its exit says healthy as wanted; it gives the one line it printed.
func healthOf(t *testing.T, env hosttest.Env, sock string, want bool) string {
	t.Helper()
	r := podjail(t, env, "health", "--service", sock, "--timeout", "60s")
	line := strings.TrimSpace(r.stdout)
	if got := r.code == 0; got != want || strings.Count(line, "\n") != 0 {
		t.Errorf("podjail health: exit %d, printed %q (stderr %q); want healthy=%t on one line", r.code, line, r.stderr, want)
	}
	return line
}

// stopPodman stops the Podman API of the test's user (its socket too, so
// that no call wakes it) until the test ends or startPodman.
func stopPodman(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { startPodman(t) })
	if out, err := systemctl("stop", "podman.socket", "podman.service").CombinedOutput(); err != nil {
		t.Fatalf("stop Podman: %v\n%s", err, out)
	}
}

func startPodman(t *testing.T) {
	if out, err := systemctl("start", "podman.socket").CombinedOutput(); err != nil {
		t.Errorf("start Podman again: %v\n%s", err, out)
	}
}

// TestServeHealth: `podjail health` says healthy (exit 0, one line naming
// podjail, Podman and, under the systemd manager, systemd) while a service,
// its Podman and its bus answer; with Podman stopped under the running
// service it exits 1 with one line naming Podman; healthy again once
// Podman is back, with no restart of the service.
func TestServeHealth(t *testing.T) {
	env := hosttest.Podman(t)
	sock, stop := startService(t, env, "--drain", "2s")
	line := healthOf(t, env, sock, true)
	want := []string{"healthy:", "Podman"}
	if env.CgroupManager == "systemd" {
		want = append(want, "systemd")
	}
	for _, w := range want {
		if !strings.Contains(line, w) {
			t.Errorf("healthy line %q does not name %q", line, w)
		}
	}
	stopPodman(t)
	if line := healthOf(t, env, sock, false); !strings.Contains(line, "Podman") {
		t.Errorf("with Podman stopped, health says %q: it should name Podman", line)
	}
	startPodman(t)
	healthOf(t, env, sock, true)
	if code, log := stop(); code != 0 {
		t.Errorf("service: exit %d\n%s", code, log)
	}
	if r := podjail(t, env, "health", "--service", sock); r.code == 0 {
		t.Errorf("health of a stopped service: exit 0 (%q)", r.stdout)
	}
}

// TestServeNotifiesSystemd runs the service as a transient systemd unit
// with Type=notify and WatchdogSec= (the system's manager rootful, the
// user's rootless): systemd-run returns once the service said READY=1 and
// the unit is active; it stays active past twice WatchdogSec while Podman
// answers (it pings the watchdog); with Podman stopped it stops pinging and
// systemd ends it with Result=watchdog.
func TestServeNotifiesSystemd(t *testing.T) {
	env := hosttest.Podman(t)
	const watchdog = 10 * time.Second
	unit := fmt.Sprintf("podjail-notify-%d", time.Now().UnixNano())
	sock := filepath.Join(t.TempDir(), "podjail.sock")
	run := []string{"--unit", unit, "-p", "Type=notify", "-p", fmt.Sprintf("WatchdogSec=%d", int(watchdog.Seconds())),
		"-p", "TimeoutStartSec=180", "--setenv=PODJAIL_LOG_LEVEL=debug", "--", env.Podjail, "serve", "--listen", sock, "--drain", "2s"}
	if env.Rootless {
		run = append([]string{"--user"}, run...)
	}
	t.Cleanup(func() {
		_ = systemctl("stop", unit).Run()
		_ = systemctl("reset-failed", unit).Run()
	})
	if out, err := exec.Command("systemd-run", run...).CombinedOutput(); err != nil {
		t.Fatalf("systemd-run: %v\n%s", err, out)
	}
	if state := unitProperty(t, unit, "ActiveState"); state != "active" {
		t.Fatalf("after systemd-run returned, %s is %s: want active (READY=1 sent)", unit, state)
	}
	healthOf(t, env, sock, true)
	select {
	case <-time.After(2 * watchdog):
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	if state := unitProperty(t, unit, "ActiveState"); state != "active" {
		t.Fatalf("%s is %s after twice WatchdogSec with Podman up: the watchdog was not pinged (result %s)", unit, state, unitProperty(t, unit, "Result"))
	}
	stopPodman(t)
	deadline := time.Now().Add(4 * watchdog)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		if s := unitProperty(t, unit, "ActiveState"); s != "active" && s != "deactivating" {
			break
		}
		<-tick.C
	}
	if res := unitProperty(t, unit, "Result"); res != "watchdog" {
		t.Errorf("with Podman stopped, %s ended with result %q (state %s): want watchdog", unit, res, unitProperty(t, unit, "ActiveState"))
	}
}

// unitProperty reads one property of a unit of the test's manager; "" for
// a unit that is gone.
func unitProperty(t *testing.T, unit, name string) string {
	t.Helper()
	out, err := systemctl("show", "-p", name, "--value", unit).Output()
	if err != nil {
		t.Logf("systemctl show %s %s: %v", name, unit, err)
		return ""
	}
	return strings.TrimSpace(string(out))
}
