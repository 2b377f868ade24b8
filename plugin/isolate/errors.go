package isolate

import "strings"

// Exit statuses of isolate (isolate.1.txt, RETURN VALUE).
const (
	ExitOK      = 0 // the program ran and exited with status 0
	ExitFailed  = 1 // the program ran and failed: RE, SG or TO
	ExitSandbox = 2 // an error of the sandbox itself (XX) or of the command line
)

// UsageError is a command line isolate rejects: it prints Message on
// stderr and exits with ExitSandbox.
type UsageError struct {
	// Message is what isolate writes to stderr, newlines included:
	// getopt's "isolate: unrecognized option '--foo'\n", or one of
	// isolate's own messages followed by its "Try 'isolate' --help' for
	// more information.\n" line.
	Message string
	// Help says isolate also prints its full usage text on stdout (after
	// an error of getopt's own).
	Help bool
}

func (e *UsageError) Error() string {
	first, _, _ := strings.Cut(e.Message, "\n")
	return first
}

// tryHelp is usage()'s second line, stray quote and all.
const tryHelp = "Try 'isolate' --help' for more information.\n"

// usage is isolate's usage(msg): the message, then tryHelp.
func usage(msg string) error { return &UsageError{Message: msg + tryHelp} }

// getoptErr is an error glibc's getopt prints before isolate's usage(NULL).
func getoptErr(msg string) error { return &UsageError{Message: "isolate: " + msg + "\n", Help: true} }
