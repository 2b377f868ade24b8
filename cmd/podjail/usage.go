package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one podjail command's flags and usage. Every command's usage
// has one form: "usage: podjail NAME [flags] ARGS", what it does, its
// flags.
type command struct {
	*flag.FlagSet
	name  string
	args  string // the positional arguments, as the usage line names them
	nargs int    // how many there must be; anyArgs: run's program and its arguments
	about string
}

// anyArgs is command.nargs for a command whose arguments are not podjail's
// to count: run's program and its own flags, after "--".
const anyArgs = -1

func newCommand(name, args string, nargs int, about string) *command {
	c := &command{FlagSet: flag.NewFlagSet("podjail "+name, flag.ContinueOnError), name: name, args: args, nargs: nargs, about: about}
	c.Usage = c.printUsage
	return c
}

func (c *command) usageLine() string {
	return strings.TrimSpace("usage: podjail " + c.name + " [flags] " + c.args)
}

// printUsage writes the usage to the flag set's output, which parse points
// at stdout for -h and at stderr for a usage error.
func (c *command) printUsage() {
	w := c.Output()
	fmt.Fprintln(w, c.usageLine())
	if c.about != "" {
		fmt.Fprintf(w, "\n%s\n", c.about)
	}
	fmt.Fprintln(w, "\nflags:")
	c.PrintDefaults()
}

// parse parses args. -h and --help print the usage on stdout and end the
// command with exit 0, as Podman's commands do. A bad flag, a flag after
// the arguments (Go's flag package stops at the first argument, and would
// take it for one) or a wrong number of arguments ends it with exit 2, the
// error and the usage on stderr. done says the command ends here, with
// code.
func (c *command) parse(args []string, stdout, stderr io.Writer) (code int, done bool) {
	// The flag package prints its message and the usage before it returns;
	// whether that was for -h is known only after.
	var printed bytes.Buffer
	c.SetOutput(&printed)
	err := c.Parse(args)
	c.SetOutput(stderr)
	switch {
	case err == nil:
		err = c.checkArgs()
	case !errors.Is(err, flag.ErrHelp):
		// The flag package's message, then a blank line and the usage.
		msg, rest, _ := strings.Cut(printed.String(), "\n")
		fmt.Fprintf(stderr, "podjail %s: %s\n\n%s", c.name, msg, rest)
		return exitUsage, true
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.SetOutput(stdout)
		c.Usage()
		c.SetOutput(stderr)
		return exitOK, true
	case err != nil:
		fmt.Fprintf(stderr, "podjail %s: %v\n\n", c.name, err)
		c.Usage()
		return exitUsage, true
	}
	return exitOK, false
}

// checkArgs checks the arguments left after the flags: -h or --help among
// them asks for help, as anywhere; a flag of the command among them is
// refused naming the fix; then their number.
func (c *command) checkArgs() error {
	if c.nargs == anyArgs {
		return nil
	}
	rest := c.Args()
	for i, a := range rest {
		name, ok := flagName(a)
		switch {
		case !ok:
		case name == "h" || name == "help":
			return flag.ErrHelp
		case c.nargs > 0 && c.Lookup(name) != nil:
			return fmt.Errorf("flag %s after %s: put flags first (podjail %s %s %s)", a, c.args, c.name, c.flagWords(rest[i:]), c.args)
		}
	}
	switch {
	case len(rest) == c.nargs:
		return nil
	case c.nargs == 0:
		return fmt.Errorf("unexpected argument %q: podjail %s takes flags only", rest[0], c.name)
	}
	return fmt.Errorf("want %d arguments (%s), got %d", c.nargs, c.args, len(rest))
}

// flagWords is the flag that starts rest, with its value when that is the
// next word, for the usage example of checkArgs.
func (c *command) flagWords(rest []string) string {
	name, _ := flagName(rest[0])
	if strings.Contains(rest[0], "=") || isBoolFlag(c.Lookup(name)) || len(rest) < 2 {
		return rest[0]
	}
	return rest[0] + " " + rest[1]
}

// flagName is the name of a word that reads as a flag ("-x", "--x",
// "--x=v"), as the flag package reads one.
func flagName(word string) (string, bool) {
	if len(word) < 2 || word[0] != '-' || word == "--" {
		return "", false
	}
	name := strings.TrimPrefix(word[1:], "-")
	name, _, _ = strings.Cut(name, "=")
	if name == "" || name[0] == '-' {
		return "", false
	}
	return name, true
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
