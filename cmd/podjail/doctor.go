package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/podjail/podjail/plugin"
)

func doctorCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("podjail doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := urlFlag(fs)
	asJSON := fs.Bool("json", false, "print the checks as JSON")
	shimFlag := fs.String("shim", "", "host `path` of podjail-shim, whose SELinux label is checked (default: $PODJAIL_SHIM, else beside podjail)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	in := plugin.DoctorInput{UID: os.Geteuid()}
	// A missing shim is run's and judge's error to report; here it only
	// means there is no label to check.
	in.Shim, _ = plugin.FindShim(*shimFlag)
	client, err := connect(ctx, *url)
	if err != nil {
		in.ConnectErr = err
	} else {
		in.Runtime = client
	}
	checks := plugin.Doctor(ctx, in)
	fit := plugin.Fit(checks)
	if *asJSON {
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
