// Command podjail judges untrusted code in Podman containers.
//
// Exit codes (README.md has this table, word for word):
//
//	0    the command did its work: run's program ran, however it ended;
//	     judge's submission was accepted; doctor's host is fit; health's
//	     service is healthy; -h, --help and --version
//	1    a failure of podjail or the host (Podman unreachable, an unfit host,
//	     an unhealthy service); judge: the verdict is IE or CF
//	2    bad usage or input: a bad flag or argument, a missing input file,
//	     an image not in Podman's storage
//	3    judge: the submission was judged and not accepted
//	130  run: interrupted (SIGINT, SIGTERM)
//
// The isolate and omegajail fronts exit as the tools they imitate do
// (docs/isolate.md, docs/omegajail.md).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitSignal  = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	// Installed under another tool's name (a symlink), podjail is that tool.
	if name := filepath.Base(os.Args[0]); name == "omegajail" || name == "isolate" {
		args = append([]string{name}, args...)
	}
	code := run(ctx, args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs podjail's command line args and returns its exit code; the
// commands write to stdout and stderr, never to the process's own.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(&cli{stdout: stdout, stderr: stderr})
	// Never nil: cobra reads os.Args for nil.
	root.SetArgs(append([]string{}, args...))
	cmd, err := root.ExecuteContextC(ctx)
	return codeOf(cmd, err, stderr)
}

// stdinOf is the process's stdin when stdout is the process's own (the
// command line), else nothing: tests call run with buffers.
func stdinOf(stdout io.Writer) io.Reader {
	if stdout == os.Stdout {
		return os.Stdin
	}
	return nil
}

// logOutput is where a command logs: $PODJAIL_LOG_FILE when set (appended
// to), else stderr, except for omegajail, whose stderr omegaUp's Runner
// appends to compile.err for the contestant to read: nothing of podjail's
// own goes there.
func logOutput(command string, stderr io.Writer) (io.Writer, func()) {
	if path := os.Getenv("PODJAIL_LOG_FILE"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			return f, func() { _ = f.Close() }
		}
		fmt.Fprintf(stderr, "podjail: PODJAIL_LOG_FILE: %v; logging to stderr\n", err)
	}
	if command == "omegajail" {
		return io.Discard, func() {}
	}
	return stderr, func() {}
}
