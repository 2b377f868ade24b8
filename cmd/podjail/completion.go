package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/podjail/podjail/plugin/sandbox/engine"
)

// completionFiles are the completion scripts' file names, as each shell
// looks them up in its directory of completions.
var completionFiles = map[string]string{"bash": "podjail", "zsh": "_podjail", "fish": "podjail.fish"}

func newCompletionCommand(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "completion [flags] bash|zsh|fish",
		Short: "print the shell completion script for bash, zsh or fish",
		Long: `Prints podjail's completion script for a shell. The RPM installs them; by hand:

  podjail completion bash >/usr/share/bash-completion/completions/podjail
  podjail completion zsh >/usr/share/zsh/site-functions/_podjail
  podjail completion fish >/usr/share/fish/vendor_completions.d/podjail.fish

or, for this shell only: source <(podjail completion bash).`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(exactArgs(1, "bash, zsh or fish"), onlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := writeCompletion(cmd.Root(), args[0], c.stdout); err != nil {
				fmt.Fprintf(c.stderr, "podjail completion: %v\n", err)
				return exitCode(exitFailure)
			}
			return nil
		},
	}
}

// onlyValidArgs is cobra.OnlyValidArgs, a usage error.
func onlyValidArgs(cmd *cobra.Command, args []string) error {
	if err := cobra.OnlyValidArgs(cmd, args); err != nil {
		return usageError{err}
	}
	return nil
}

func writeCompletion(root *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	}
	return fmt.Errorf("no completion for %q: bash, zsh or fish", shell)
}

// newGenDocsCommand writes the man pages or the completion scripts into a
// directory, for make man, make completions and the RPM's build. It is
// hidden: the pages are a build's, not a user's, to make.
func newGenDocsCommand(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:    "__gen-docs man|completions DIR",
		Hidden: true,
		Args:   exactArgs(2, "man|completions DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			switch args[0] {
			case "man":
				err = genMan(cmd.Root(), args[1])
			case "completions":
				err = genCompletions(cmd.Root(), args[1])
			default:
				return usageError{fmt.Errorf("%q: want man or completions", args[0])}
			}
			if err != nil {
				fmt.Fprintf(c.stderr, "podjail __gen-docs: %v\n", err)
				return exitCode(exitFailure)
			}
			return nil
		},
	}
}

// genMan writes podjail.1 and podjail-COMMAND.1 for each command into dir.
// Their date is $SOURCE_DATE_EPOCH's when set (cobra/doc reads it).
func genMan(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	header := &doc.GenManHeader{Section: "1", Source: "podjail " + engine.BuildVersion(), Manual: "podjail manual"}
	return doc.GenManTree(root, header, dir)
}

// genCompletions writes each shell's script into dir under the name its
// shell looks for (completionFiles).
func genCompletions(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for shell, name := range completionFiles {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		err = writeCompletion(root, shell, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
