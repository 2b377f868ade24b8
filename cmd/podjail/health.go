package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/podjail/podjail/cgroupdrv/systemd"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/sandbox"
)

// healthFlags are podjail health's flags.
type healthFlags struct {
	service *string
	timeout *time.Duration
	asJSON  *bool
}

func newHealthCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "health [flags]",
		Short: "say whether the service, its Podman and its systemd bus answer (exit 0: healthy)",
		Long:  "Exit 0 when the podjail service answers and its Podman and systemd bus do; else exit 1 with one line saying what is wrong.",
		Args:  noArgs,
	}
	fs := cmd.Flags()
	var f healthFlags
	f.service = fs.String("service", "", "Unix socket `path` of the service (default: $PODJAIL_SERVICE, else the default socket)")
	f.timeout = fs.Duration("timeout", 20*time.Second, "how long the checks may take together")
	f.asJSON = fs.Bool("json", false, "print the checks as JSON on stdout")
	cmd.RunE = c.onHost(func(ctx context.Context, _ []string, _ hclog.Logger) int {
		return checkHealth(ctx, f, c.stdout, c.stderr)
	})
	return cmd
}

// checkHealth is podjail health once its flags are read: it says whether
// the service can judge now: it answers on its socket, its Podman answers
// it (Capabilities asks Podman), and, under Podman's systemd cgroup
// manager, the systemd bus its runs' slices are started over answers. Exit 0 and one line saying so when healthy; else
// exit 1 and one line saying what is wrong, for systemd, quadlet's
// HealthCmd= and an operator's eyes; --json gives the same as each check's
// result.
func checkHealth(ctx context.Context, f healthFlags, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, *f.timeout)
	defer cancel()
	r := health(ctx, servicePath(*f.service), func(rootless bool) (string, error) {
		bus := &systemd.Bus{User: rootless}
		defer bus.Close()
		return bus.Version(ctx)
	})
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(r)
	} else {
		fmt.Fprintln(stdout, r.line())
	}
	if !r.Healthy {
		return exitFailure
	}
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

// healthReport is what health found: its checks in order (the service
// answers, its Podman, its systemd bus), up to the first that failed.
type healthReport struct {
	Healthy bool   `json:"healthy"`
	Service string `json:"service"`
	// Version is the service's podjail version, once its Podman answered.
	Version string         `json:"version,omitempty"`
	Checks  []plugin.Check `json:"checks"`
}

func (r *healthReport) pass(name, detail string) {
	r.Checks = append(r.Checks, plugin.Check{Name: name, OK: true, Detail: detail})
}

func (r *healthReport) fail(name, fix string, err error) healthReport {
	r.Checks = append(r.Checks, plugin.Check{Name: name, Detail: err.Error(), Fix: fix})
	return *r
}

// line is the one line health prints: what answered, or the first thing
// that is wrong.
func (r healthReport) line() string {
	last := r.Checks[len(r.Checks)-1]
	if !r.Healthy {
		return "unhealthy: " + last.Detail
	}
	parts := []string{fmt.Sprintf("podjail %s at %s", r.Version, r.Service)}
	for _, c := range r.Checks[1:] {
		parts = append(parts, c.Detail)
	}
	return "healthy: " + strings.Join(parts, ", ")
}

// health checks the service at path, then its Podman, then the bus
// systemdVersion reaches, and says what it found up to the first thing
// that is wrong.
func health(ctx context.Context, path string, systemdVersion func(rootless bool) (string, error)) healthReport {
	r := healthReport{Service: path}
	const startService = "start the service (podjail.socket, or podjail serve), or name its socket with --service"
	if path == "" {
		return r.fail("service", startService, errors.New("no service socket: XDG_RUNTIME_DIR is unset and --service not given"))
	}
	c, closeFn, err := sandbox.Dial(ctx, path)
	if err != nil {
		return r.fail("service", startService, fmt.Errorf("the podjail service does not answer: %v", err))
	}
	defer closeFn()
	r.pass("service", "answers at "+path)
	caps, err := c.Capabilities(ctx)
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		return r.fail("podman", "start the Podman API the service talks to (podman.socket)", fmt.Errorf("the service's Podman does not answer (is podman.socket up?): %v", err))
	case err != nil:
		return r.fail("podman", "", fmt.Errorf("the service answers but fails: %v", err))
	}
	r.Version = caps.Version
	r.pass("podman", "Podman "+caps.Host.PodmanVersion)
	if caps.Host.CgroupManager == "systemd" {
		v, err := systemdVersion(caps.Host.Rootless)
		if err != nil {
			return r.fail("systemd", "", fmt.Errorf("the systemd bus the runs' slices need does not answer: %v", err))
		}
		r.pass("systemd", "systemd "+v)
	}
	r.Healthy = true
	return r
}
