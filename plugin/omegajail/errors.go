package omegajail

import "errors"

// UsageExitCode is omegajail's exit status for a command line it rejects
// (clap's usage error).
const UsageExitCode = 2

// ErrHelp and ErrVersion are returned by ParseArgs for -h/--help and
// -V/--version, which clap answers on stdout with exit status 0.
var (
	ErrHelp    = errors.New("omegajail: help requested")
	ErrVersion = errors.New("omegajail: version requested")
)

// ArgError is a command line omegajail would reject; its exit status is
// UsageExitCode.
type ArgError struct {
	// Flag names the flag at fault as its long form ("--homedir"), or
	// the argument as given when it is not a flag omegajail knows.
	Flag string
	// Reason says what is wrong with it.
	Reason string
}

func (e *ArgError) Error() string { return "omegajail: " + e.Flag + ": " + e.Reason }

func argErr(flag, reason string) error { return &ArgError{Flag: flag, Reason: reason} }
