package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/sandbox"
)

// doctorFlags are podjail doctor's flags.
type doctorFlags struct {
	url, shim *string
	asJSON    *bool
}

func newDoctorCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "doctor [flags]",
		Short: "check that this host can run podjail",
		Long:  "Checks that this host can run podjail: one line per check and, on FAIL, what to change. Exit 0 only on a fit host.",
		Args:  noArgs,
	}
	fs := cmd.Flags()
	var f doctorFlags
	f.url = urlFlag(fs)
	f.asJSON = fs.Bool("json", false, "print the checks as JSON")
	f.shim = fs.String("shim", "", "host `path` of podjail-shim, whose SELinux label is checked (default: $PODJAIL_SHIM, else beside podjail)")
	cmd.RunE = c.onHost(func(ctx context.Context, _ []string, _ hclog.Logger) int {
		return doctor(ctx, f, c.stdout, c.stderr)
	})
	return cmd
}

// doctor is podjail doctor once its flags are read.
func doctor(ctx context.Context, f doctorFlags, stdout, stderr io.Writer) int {
	in := plugin.DoctorInput{UID: os.Geteuid()}
	// A missing shim is run's and judge's error to report; here it only
	// means there is no label to check.
	in.Shim, _ = plugin.FindShim(*f.shim)
	client, err := connect(ctx, *f.url)
	if err != nil {
		in.ConnectErr = err
	} else {
		in.Runtime = client
	}
	checks := append(plugin.Doctor(ctx, in), probeService(ctx, sandbox.DefaultSocket()))
	fit := plugin.Fit(checks)
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Fit    bool           `json:"fit"`
			Checks []plugin.Check `json:"checks"`
		}{fit, checks})
	} else {
		for _, c := range checks {
			mark := "PASS"
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(stdout, "%s  %-26s %s\n", mark, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(stdout, "      %-26s fix: %s\n", "", c.Fix)
			}
		}
		if fit {
			fmt.Fprintln(stdout, "this host is fit for podjail")
		} else {
			fmt.Fprintln(stdout, "this host is NOT fit for podjail: fix the FAIL lines above")
		}
	}
	if !fit {
		return exitFailure
	}
	return exitOK
}

// probeService checks the podjail service on the default socket. None is
// fine (commands then work in their own process); a socket nobody answers
// on is not.
func probeService(ctx context.Context, path string) plugin.Check {
	if path == "" {
		return serviceCheck(path, false, sandbox.Capabilities{}, nil)
	}
	if _, err := os.Stat(path); err != nil {
		return serviceCheck(path, false, sandbox.Capabilities{}, nil)
	}
	c, closeFn, err := sandbox.Dial(ctx, path)
	if err != nil {
		return serviceCheck(path, true, sandbox.Capabilities{}, err)
	}
	defer closeFn()
	caps, err := c.Capabilities(ctx)
	return serviceCheck(path, true, caps, err)
}

// serviceCheck is the service's line of podjail doctor.
func serviceCheck(path string, exists bool, caps sandbox.Capabilities, err error) plugin.Check {
	c := plugin.Check{Name: "podjail service", OK: true}
	user := ""
	if os.Geteuid() != 0 {
		user = " --user"
	}
	switch {
	case !exists:
		c.Detail = fmt.Sprintf("none at %s (optional: commands judge in their own process; to run one, install contrib/systemd's units, or contrib/quadlet's for podjail's image in a container: docs/service.md)", path)
	case err != nil:
		c.OK = false
		c.Detail = fmt.Sprintf("%s does not answer: %v", path, err)
		c.Fix = fmt.Sprintf("start it (systemctl%s start podjail.socket, the native or the quadlet unit's, or podjail serve), or remove the stale socket", user)
	default:
		c.Detail = fmt.Sprintf("answers at %s: podjail %s, Podman %s (%s, rootless %t, shim %t)",
			path, caps.Version, caps.Host.PodmanVersion, caps.Host.CgroupManager, caps.Host.Rootless, caps.Host.Shim)
	}
	return c
}
