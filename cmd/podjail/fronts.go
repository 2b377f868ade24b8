package main

import (
	"context"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
)

// The fronts take their command lines as the tools they imitate do: every
// word after the command goes to their own parsers, -h, --help and
// --version included (docs/omegajail.md, docs/isolate.md).

func newOmegajailCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "omegajail [omegajail's flags]",
		Short: "omegajail's command line, for omegaUp's Runner (docs/omegajail.md)",
		Long: `Speaks omegajail's command line, for omegaUp's Runner: podjail installed as
omegajail (a symlink) is this command. Its flags are omegajail's
("podjail omegajail --help" prints them); docs/omegajail.md maps them.`,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
	}
	cmd.RunE = c.onHost(func(ctx context.Context, args []string, log hclog.Logger) int {
		return omegajailFront(ctx, args, c.stdout, c.stderr, log)
	})
	return cmd
}

func newIsolateCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "isolate [isolate's flags]",
		Short: "isolate's command line, for CMS, Judge0 and others (docs/isolate.md)",
		Long: `Speaks isolate's command line, for CMS, Judge0 and others: podjail installed as
isolate (a symlink) is this command. Its flags are isolate's, and as isolate
it knows no --help; docs/isolate.md maps them.`,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
	}
	cmd.RunE = c.onHost(func(ctx context.Context, args []string, log hclog.Logger) int {
		return isolateCommand(ctx, args, stdinOf(c.stdout), c.stdout, c.stderr, log)
	})
	return cmd
}
