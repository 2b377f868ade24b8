package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/podjail/podjail/cgroupdrv/systemd"
	"github.com/podjail/podjail/plugin/sandbox"
)

// healthCommand says whether the service can judge now: it answers on its
// socket, its Podman answers it (Capabilities asks Podman), and, under
// Podman's systemd cgroup manager, the systemd bus its runs' slices are
// started over answers. Exit 0 and one line saying so when healthy; else
// exit 1 and one line saying what is wrong, for systemd, quadlet's
// HealthCmd= and an operator's eyes.
func healthCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newCommand("health", "", 0,
		"Exit 0 when the podjail service answers and its Podman and systemd bus do; else exit 1 with one line saying what is wrong.")
	service := fs.String("service", "", "Unix socket `path` of the service (default: $PODJAIL_SERVICE, else the default socket)")
	timeout := fs.Duration("timeout", 20*time.Second, "how long the checks may take together")
	if code, done := fs.parse(args, stdout, stderr); done {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	line, err := health(ctx, servicePath(*service), func(rootless bool) (string, error) {
		bus := &systemd.Bus{User: rootless}
		defer bus.Close()
		return bus.Version(ctx)
	})
	if err != nil {
		fmt.Fprintf(stdout, "unhealthy: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "healthy: %s\n", line)
	return exitOK
}

// servicePath is --service, else $PODJAIL_SERVICE, else the default socket.
func servicePath(flagValue string) string {
	for _, p := range []string{flagValue, os.Getenv("PODJAIL_SERVICE")} {
		if p != "" && p != "none" {
			return p
		}
	}
	return sandbox.DefaultSocket()
}

// health checks the service at path, then the bus systemdVersion reaches,
// and says what it found or the first thing that is wrong.
func health(ctx context.Context, path string, systemdVersion func(rootless bool) (string, error)) (string, error) {
	if path == "" {
		return "", errors.New("no service socket: XDG_RUNTIME_DIR is unset and --service not given")
	}
	c, closeFn, err := sandbox.Dial(ctx, path)
	if err != nil {
		return "", fmt.Errorf("the podjail service does not answer: %v", err)
	}
	defer closeFn()
	caps, err := c.Capabilities(ctx)
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		return "", fmt.Errorf("the service's Podman does not answer (is podman.socket up?): %v", err)
	case err != nil:
		return "", fmt.Errorf("the service answers but fails: %v", err)
	}
	line := fmt.Sprintf("podjail %s at %s, Podman %s", caps.Version, path, caps.Host.PodmanVersion)
	if caps.Host.CgroupManager != "systemd" {
		return line, nil
	}
	v, err := systemdVersion(caps.Host.Rootless)
	if err != nil {
		return "", fmt.Errorf("the systemd bus the runs' slices need does not answer: %v", err)
	}
	return line + ", systemd " + v, nil
}
