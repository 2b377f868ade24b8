package main

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/podjail/podjail/internal/bench"
)

func newBenchCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench [flags] --image IMAGE",
		Short: "measure podjail against podman run on this host",
		Long:  "Measures, in this boot: `podman run --rm` of a trivial program, one whole `podjail run`, and `podjail judge` of a problem of that program one test at a time and on every core.",
		Args:  noArgs,
	}
	o := bench.Defaults()
	benchFlags(cmd.Flags(), &o)
	cmd.RunE = c.onHost(func(ctx context.Context, _ []string, log hclog.Logger) int {
		if err := bench.Run(ctx, o, c.stdout, c.stderr, log); err != nil {
			fmt.Fprintf(c.stderr, "podjail bench: %v\n", err)
			if bench.IsUsage(err) {
				return exitUsage
			}
			return exitFailure
		}
		return exitOK
	})
	return cmd
}

// benchFlags reads bench's flags into o, whose values are their defaults.
func benchFlags(fs *pflag.FlagSet, o *bench.Options) {
	fs.StringVar(&o.URL, "url", "", urlUsage)
	fs.StringVar(&o.Image, "image", "", "`image` holding the programs (required)")
	fs.StringVar(&o.Program, "program", o.Program, "absolute `path` in the image of a trivial static program")
	fs.IntVar(&o.Tests, "tests", o.Tests, "`number` of tests of the judged problem")
	fs.IntVar(&o.Repeat, "repeat", o.Repeat, "`times` each of podman run and podjail run is timed (the median is kept)")
	fs.StringVar(&o.Podman, "podman", o.Podman, "the podman `command` timed as a user runs it")
	fs.StringVar(&o.Burner, "burner", "", "`argv` (in the image, space-separated) of a CPU burner judged as 3 tests with P = 1 and P = 2, e.g. \"/tprog burn 1000\"")
	fs.StringVar(&o.BurnerBare, "burner-bare", "", "host `path` of the same burner binary, run bare for its rusage")
	fs.StringVar(&o.Stream, "stream", "", "`argv` (in the image, space-separated) of a program writing much to stdout, run once and its rate compared with a bare pipe's, e.g. \"/tprog write 64\"")
	fs.StringVar(&o.StreamBare, "stream-bare", "", "host `path` of the same stream program, run bare into a pipe")
	fs.StringVar(&o.Idle, "idle", "", "`argv` (in the image, space-separated) of a program that waits, e.g. \"/tprog sleep 3600\": the bare lifecycles are timed again with as many of it alive beside as a judge keeps armed ahead")
	fs.IntVar(&o.Parallel, "parallel", 0, "the `P` timed beside P = 1 (0: every core podjail is given); above the cores, runs share them in turn, which a judge never does: on a one-processor VM, what a second slot costs")
	fs.IntVar(&o.Rounds, "rounds", o.Rounds, "`pairs` of the bare lifecycles and a judge, timed one after the other at each P; above 1, their ratios and the median of them are printed")
	fs.BoolVar(&o.ByProcess, "by-process", false, "at P = 1, split the host's processor time by command (BSD process accounting: root only; it takes the host's accounting file until the bench ends)")
	fs.IntVar(&o.SpecSteps, "spec-steps", 0, "at P = 1, also time `n` lifecycles for each step of podjail's run container built up from the bare one a part at a time (its settings, seccomp, mounts, parent cgroup; aside, the attach); 0: not")
	fs.StringVar(&o.Shim, "shim", "", shimUsage)
	fs.BoolVar(&o.JSON, "json", false, "print the figures as JSON on stdout")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of this process's judges (podjail's own share of a test) to `file`, for go tool pprof")
	fs.StringVar(&o.BuildLang, "build-lang", "", "`language` (c or cpp) whose build of a trivial program is timed in process and, with --service, through the service")
	fs.StringVar(&o.Service, "service", "", "Unix socket `path` of a running podjail service: also time reaching it against setting up a runner in process")
}
