package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/internal/viaservice"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
)

// runFlags are podjail run's flags.
type runFlags struct {
	req                 runner.RunRequest
	outputLimit, memory byteSize
	url, outFile, shim  string
	service             string
	asJSON, verbose     bool
}

func newRunCommand(c *cli) *cobra.Command {
	f := runFlags{outputLimit: runner.DefaultOutputLimit, memory: runner.DefaultMemory}
	cmd := &cobra.Command{
		Use:   "run [flags] --image IMAGE [--] PROGRAM [ARGS...]",
		Short: "run one program in one fresh container and report how it ended",
		Long: `Runs PROGRAM, a path in IMAGE, in one fresh container and reports how it ended.
podjail's flags come before PROGRAM; every word from PROGRAM on is the program's,
its own flags included (-- before PROGRAM says so too).`,
		Args: cobra.ArbitraryArgs,
	}
	cmd.RunE = c.onHost(func(ctx context.Context, args []string, log hclog.Logger) int {
		return runProgram(ctx, cmd, f, args, c.stdout, c.stderr, log)
	})
	fs := cmd.Flags()
	fs.SetInterspersed(false) // the program's flags are its own
	fs.StringVar(&f.url, "url", "", urlUsage)
	fs.StringVar(&f.req.Image, "image", "", "container `image` holding the program (required)")
	fs.StringVar(&f.req.InputFile, "input", "", "`file` given to the program as stdin (default: empty stdin)")
	fs.Var(&f.outputLimit, "output-limit", "stdout cap in `bytes` (K, M, G suffixes); past it the run is killed")
	fs.Var(&f.memory, "memory", "memory limit in `bytes` (K, M, G suffixes); swap is not allowed")
	fs.Int64Var(&f.req.Limits.Pids, "pids", runner.DefaultPids, "maximum number of tasks")
	fs.Float64Var(&f.req.Limits.CPUs, "cpus", runner.DefaultCPUs, "CPU quota in cores")
	fs.DurationVar(&f.req.Wait.Wall, "wall-limit", 0, "kill the run after this elapsed `duration` (default: none, or 5(L+2s) with --time-limit)")
	fs.DurationVar(&f.req.Limits.Time, "time-limit", 0, "processor time limit L: watch the three deadlines and print a verdict (the output is not judged)")
	fs.StringVar(&f.outFile, "output", "", "write the program's stdout to `file` (default: podjail's stdout; with --json: discarded)")
	fs.BoolVar(&f.asJSON, "json", false, "print the report as JSON on stdout")
	fs.StringVar(&f.shim, "shim", "", "host `path` of podjail-shim, or \"none\" to run without it (default: $PODJAIL_SHIM, else podjail-shim beside podjail)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "also print the container's own figures")
	fs.StringVar(&f.service, "service", "", serviceUsage)
	// --v, the flag's name before it had a long one, still works.
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "v" {
			name = "verbose"
		}
		return pflag.NormalizedName(name)
	})
	return cmd
}

// runProgram is podjail run once its flags are read.
func runProgram(ctx context.Context, cmd *cobra.Command, f runFlags, args []string, stdout, stderr io.Writer, log hclog.Logger) int {
	req := f.req
	req.Command = args
	req.Limits.Output, req.Limits.Memory = int64(f.outputLimit), int64(f.memory)

	if err := req.Check(); err != nil {
		return codeOf(cmd, usageError{err}, stderr)
	}
	switch {
	case f.outFile != "":
		f, err := os.Create(f.outFile)
		if err != nil {
			fmt.Fprintf(stderr, "podjail run: output: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		req.Output = f
	case !f.asJSON:
		req.Output = stdout
	}

	shimPath, err := findShim(f.shim)
	if err != nil {
		fmt.Fprintf(stderr, "podjail run: %v\n", err)
		return exitUsage
	}
	if f.url != "" && f.service == "" && os.Getenv("PODJAIL_SERVICE") == "" {
		f.service = "none" // a Podman named by hand is not the default service's
	}
	svc, closeSvc, err := runService(ctx, f.service, f.shim, log)
	if err != nil {
		fmt.Fprintf(stderr, "podjail run: %v\n", err)
		if isBadInput(err) {
			return exitUsage
		}
		return exitFailure
	}
	var res plugin.JudgedRun
	if svc != nil {
		defer closeSvc()
		res, err = viaservice.Run(ctx, svc, req, plugin.Files{})
	} else {
		res, err = runOnce(ctx, f.url, shimPath, req, plugin.Files{}, log)
	}
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
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		printRunReport(stderr, res, f.verbose)
	}
	return exitOK
}

// runOnce runs req, with files, in this process, and judges it
// (plugin.JudgeRun) when it ran.
func runOnce(ctx context.Context, url, shimPath string, req runner.RunRequest, files plugin.Files, log hclog.Logger) (plugin.JudgedRun, error) {
	r, err := newRunner(ctx, url, shimPath, log)
	if err != nil {
		return plugin.JudgedRun{}, err
	}
	defer r.Close(context.WithoutCancel(ctx))
	res, err := r.RunFiles(ctx, req, files)
	if err != nil {
		return plugin.JudgedRun{RunResult: res}, err
	}
	return plugin.JudgeRun(req, res), nil
}

// runService is the service podjail run goes through (see dialService),
// nil for none. --shim none runs only in this process: the service always
// measures with its shim.
func runService(ctx context.Context, service, shimFlag string, log hclog.Logger) (*sandbox.Client, func() error, error) {
	if shimFlag == "none" {
		if service != "" && service != "none" {
			return nil, nil, &runner.RequestError{Field: "--shim none", Err: errors.New("runs only in this process, a service always uses its shim: drop --service (or pass --service none)")}
		}
		return nil, nil, nil
	}
	return dialService(ctx, service, log)
}

// frontRun runs one program for a front (isolate, omegajail), whose
// command line is the judge's and has no --service: through the service
// $PODJAIL_SERVICE names or that answers on the default socket, else, or
// when that service may not or cannot use this caller's paths (it runs as
// another user, or in a container without them), in this process.
func frontRun(ctx context.Context, req runner.RunRequest, files plugin.Files, log hclog.Logger) (plugin.JudgedRun, error) {
	svc, closeSvc, err := dialService(ctx, "", log)
	if err != nil {
		return plugin.JudgedRun{}, err
	}
	if svc != nil {
		defer closeSvc()
		res, err := viaservice.Run(ctx, svc, req, files)
		if !errors.Is(err, sandbox.ErrPermissionDenied) && !errors.Is(err, sandbox.ErrFailedPrecondition) {
			return res, err
		}
		log.Warn("the podjail service cannot run this; running in this process", "error", err)
	}
	shimPath, err := findShim("")
	if err != nil || shimPath == "" {
		return plugin.JudgedRun{}, fmt.Errorf("podjail-shim not found beside podjail (%v)", err)
	}
	return runOnce(ctx, "", shimPath, req, files, log)
}

func newRunner(ctx context.Context, url, shimPath string, log hclog.Logger) (*plugin.Runner, error) {
	ceiling, err := plugin.MemoryCeilingFromEnv()
	if err != nil {
		return nil, err
	}
	return plugin.NewRunner(ctx, plugin.Setup{URL: url, Shim: shimPath, Log: log, MemoryCeiling: ceiling})
}

// findShim resolves --shim (see plugin.FindShim).
func findShim(flagValue string) (string, error) { return plugin.FindShim(flagValue) }

// errCode is the exit code of a command that failed with err: the
// caller's mistake (isBadInput) or a failure of podjail or the host.
func errCode(err error) int {
	if isBadInput(err) {
		return exitUsage
	}
	return exitFailure
}

// isBadInput tells the caller's mistakes (exit 2) from failures of podjail
// or the host (exit 1).
func isBadInput(err error) bool {
	var reqErr *runner.RequestError
	var imgErr *bindings.ImageMissingError
	return errors.As(err, &reqErr) || errors.As(err, &imgErr) || errors.Is(err, sandbox.ErrInvalidArgument)
}

func printRunReport(w io.Writer, r plugin.JudgedRun, verbose bool) {
	switch {
	case r.Killed != runner.NotKilled:
		fmt.Fprintf(w, "killed: %s\n", r.Killed)
	case r.Signal != "":
		fmt.Fprintf(w, "ended by signal %s (exit code %d)\n", r.Signal, r.ExitCode)
	default:
		fmt.Fprintf(w, "exited with code %d\n", r.ExitCode)
	}
	fmt.Fprintf(w, "output: %d bytes (limit %d)\n", r.OutputBytes, r.OutputLimit)
	if r.Verdict != "" {
		fmt.Fprintf(w, "verdict: %s %s\n", r.Verdict, r.VerdictNote)
	}
	m := r.Measure
	fmt.Fprintf(w, "time: %.3f s (%s)\n", m.Time.Seconds(), m.TimeFrom)
	fmt.Fprintf(w, "peak memory: %s (%s)\n", mib(m.Peak), m.PeakFrom)
	fmt.Fprintf(w, "memory limit exceeded: %t (%s)\n", m.MemoryExceeded, m.MemoryFrom)
	fmt.Fprintf(w, "wall: %.3f s\n", r.Wall.Seconds())
	if verbose {
		fmt.Fprintf(w, "container cpu: %s, own cost: %s, peak: %s\n", seconds(m.ContainerCPU), seconds(m.ContainerCost), mib(m.ContainerPeak))
	}
	fmt.Fprintf(w, "container: %s (removed)\n", r.Container)
}

func mib(b int64) string {
	if b < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
}

func seconds(d time.Duration) string {
	if d < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}
