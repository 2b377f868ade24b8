package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
)

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer, log hclog.Logger) int {
	fs := flag.NewFlagSet("podjail run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: podjail run --image IMAGE [flags] -- PROGRAM [ARGS...]")
		fs.PrintDefaults()
	}
	url := urlFlag(fs)
	var req plugin.RunRequest
	var outputLimit, memory byteSize = plugin.DefaultOutputLimit, plugin.DefaultMemory
	fs.StringVar(&req.Image, "image", "", "container `image` holding the program (required)")
	fs.StringVar(&req.InputFile, "input", "", "`file` given to the program as stdin (default: empty stdin)")
	fs.Var(&outputLimit, "output-limit", "stdout cap in `bytes` (K, M, G suffixes); past it the run is killed")
	fs.Var(&memory, "memory", "memory limit in `bytes` (K, M, G suffixes); swap is not allowed")
	fs.Int64Var(&req.Pids, "pids", plugin.DefaultPids, "maximum number of tasks")
	fs.Float64Var(&req.CPUs, "cpus", plugin.DefaultCPUs, "CPU quota in cores")
	fs.DurationVar(&req.WallLimit, "wall-limit", 0, "kill the run after this elapsed `duration` (default: none)")
	outFile := fs.String("output", "", "write the program's stdout to `file` (default: podjail's stdout; with --json: discarded)")
	asJSON := fs.Bool("json", false, "print the report as JSON on stdout")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	req.Command = fs.Args()
	req.OutputLimit, req.MemoryBytes = int64(outputLimit), int64(memory)

	if err := req.Check(); err != nil {
		fmt.Fprintf(stderr, "podjail run: %v\n", err)
		fs.Usage()
		return exitUsage
	}
	switch {
	case *outFile != "":
		f, err := os.Create(*outFile)
		if err != nil {
			fmt.Fprintf(stderr, "podjail run: output: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		req.Output = f
	case !*asJSON:
		req.Output = stdout
	}

	res, err := runOnce(ctx, *url, req, log)
	if err != nil {
		fmt.Fprintf(stderr, "podjail run: %v\n", err)
		switch {
		case ctx.Err() != nil:
			return exitSignal
		case isBadInput(err):
			return exitUsage
		}
		return exitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		printRunReport(stderr, res)
	}
	return exitOK
}

func runOnce(ctx context.Context, url string, req plugin.RunRequest, log hclog.Logger) (plugin.RunResult, error) {
	client, err := connect(ctx, url)
	if err != nil {
		return plugin.RunResult{}, err
	}
	self, err := plugin.Self()
	if err != nil {
		return plugin.RunResult{}, err
	}
	if swept, err := plugin.Sweep(ctx, client, self); err != nil {
		log.Warn("sweeping containers of dead podjail instances failed", "error", err)
	} else if len(swept) > 0 {
		log.Info("removed containers left by dead podjail instances", "containers", swept)
	}
	r := &plugin.Runner{Runtime: client, Self: self, Log: log}
	return r.Run(ctx, req)
}

// isBadInput tells the caller's mistakes (exit 2) from failures of podjail
// or the host (exit 1).
func isBadInput(err error) bool {
	var reqErr *plugin.RequestError
	var imgErr *bindings.ImageMissingError
	return errors.As(err, &reqErr) || errors.As(err, &imgErr)
}

func printRunReport(w io.Writer, r plugin.RunResult) {
	switch {
	case r.Killed != "":
		fmt.Fprintf(w, "killed: %s\n", r.Killed)
	case r.Signal != "":
		fmt.Fprintf(w, "ended by signal %s (exit code %d)\n", r.Signal, r.ExitCode)
	default:
		fmt.Fprintf(w, "exited with code %d\n", r.ExitCode)
	}
	fmt.Fprintf(w, "output: %d bytes (limit %d)\n", r.OutputBytes, r.OutputLimit)
	fmt.Fprintf(w, "wall: %.3f s\n", r.Wall.Seconds())
	fmt.Fprintf(w, "container: %s (removed)\n", r.Container)
}
