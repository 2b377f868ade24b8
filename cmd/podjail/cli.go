package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/podjail/podjail/plugin/sandbox/engine"
)

// cli is one command line's writers, which the commands write to rather
// than to the process's own: tests call run with buffers.
type cli struct {
	stdout, stderr io.Writer
}

// exitCode ends a command that did its work, or failed at it, with code
// (a usage error is any other error: exit 2 and the usage).
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

// usageError is a command line podjail cannot take: exit 2, the error and
// the command's usage on stderr.
type usageError struct{ error }

// newRoot is podjail's command tree.
func newRoot(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "podjail",
		Short: "judge untrusted code in Podman containers",
		Long: `podjail judges untrusted code in Podman containers: each run and each test in a
fresh, locked-down container.

Run "podjail COMMAND --help" for a command's flags; exit codes are in README.md.`,
		Version:           engine.BuildVersion(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true, // the man pages are the same for every build
		// Args is cobra's own: a word that is no command is refused
		// with the commands it is near.
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{errors.New("name a command (podjail COMMAND ARGS...)")}
		},
	}
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetVersionTemplate("podjail {{.Version}}\n")
	// No -v: run's -v is verbose, not the version.
	root.Flags().Bool("version", false, "print podjail's version")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newRunCommand(c), newJudgeCommand(c), newVerifyCommand(c), newOmegajailCommand(c), newIsolateCommand(c),
		newDoctorCommand(c), newBenchCommand(c), newServeCommand(c), newHealthCommand(c),
		newVersionCommand(c), newCompletionCommand(c), newGenDocsCommand(c))
	return root
}

// onHost is the RunE of a command that works on the host: podjail's host
// directory ($PODJAIL_HOST_DIR) and its logger are set up first, which
// help and usage errors never need.
func (c *cli) onHost(body func(ctx context.Context, args []string, log hclog.Logger) int) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := useHostDir(); err != nil {
			fmt.Fprintf(c.stderr, "podjail: %v\n", err)
			return exitCode(exitFailure)
		}
		logOut, closeLog := logOutput(cmd.Name(), c.stderr)
		defer closeLog()
		log := hclog.New(&hclog.LoggerOptions{
			Name:   "podjail",
			Output: logOut,
			Level:  hclog.LevelFromString(os.Getenv("PODJAIL_LOG_LEVEL")),
		})
		return exitOf(body(cmd.Context(), args, log))
	}
}

// exitOf is a command's exit code as RunE returns it.
func exitOf(code int) error {
	if code == exitOK {
		return nil
	}
	return exitCode(code)
}

// codeOf is run's exit code for what the command tree returned: a usage
// error is written with the usage of the command it was for.
func codeOf(cmd *cobra.Command, err error, stderr io.Writer) int {
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	}
	if cmd == nil {
		cmd = &cobra.Command{Use: "podjail"}
	}
	fmt.Fprintf(stderr, "%s: %v\n\n%s", cmd.CommandPath(), err, cmd.UsageString())
	return exitUsage
}

// flagError names the fix of a bad flag. pflag reads "-json" as the
// shorthands -j -s -o -n: a word that is a long flag with one dash is told
// to take two.
func flagError(cmd *cobra.Command, err error) error {
	if m := shorthandErr.FindStringSubmatch(err.Error()); m != nil {
		name, _, _ := strings.Cut(m[1], "=")
		if f := cmd.Flags().Lookup(name); f != nil && len(name) > 1 {
			return usageError{fmt.Errorf("unknown flag -%s: a long flag takes two dashes (--%s)", m[1], m[1])}
		}
	}
	return usageError{err}
}

var shorthandErr = regexp.MustCompile(`^unknown shorthand flag: '.' in -(.+)$`)

// exactArgs wants n arguments, which usage names ("PROBLEM_DIR SOURCE").
func exactArgs(n int, usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("want %d arguments (%s), got %d", n, usage, len(args))}
		}
		return nil
	}
}

// noArgs refuses any argument of a command that takes flags only.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q: %s takes flags only", args[0], cmd.CommandPath())}
	}
	return nil
}

// newVersionCommand prints "podjail VERSION": the version set at link
// time (the RPM's), else the module's or the VCS revision's.
func newVersionCommand(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print podjail's version",
		Long:  "Prints podjail's version (also podjail --version).",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(c.stdout, "podjail %s\n", engine.BuildVersion())
			return nil
		},
	}
}

const urlUsage = "Podman API `URL` (default: $CONTAINER_HOST, else the user's socket, else /run/podman/podman.sock)"

// The flags several commands share, worded once.
const (
	shimUsage      = "host `path` of podjail-shim (default: $PODJAIL_SHIM, else beside podjail)"
	languagesUsage = "YAML `file` adding to or overriding the built-in language table"
)

// urlFlag registers --url on fs.
func urlFlag(fs *pflag.FlagSet) *string { return fs.String("url", "", urlUsage) }
