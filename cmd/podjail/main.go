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

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/plugin/sandbox/engine"
)

const usage = `usage: podjail COMMAND [flags] ARGS...

commands:
  run        run one program in one fresh container and report how it ended
  judge      build a submission and judge it on every test of a problem
  omegajail  omegajail's command line, for omegaUp's Runner (docs/omegajail.md)
  isolate    isolate's command line, for CMS, Judge0 and others (docs/isolate.md)
  doctor     check that this host can run podjail
  bench      measure podjail against podman run on this host
  serve      serve judges on a Unix socket; judge goes through it (docs/service.md)
  health     say whether the service, its Podman and its systemd bus answer (exit 0: healthy)
  version    print podjail's version

Run "podjail COMMAND --help" for a command's flags.
`

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

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// What needs nothing of the host is answered before podjail looks at it.
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, usage)
		return exitUsage
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case args[0] == "--version" || args[0] == "version":
		return versionCommand(args[1:], stdout, stderr)
	}
	if err := useHostDir(); err != nil {
		fmt.Fprintf(stderr, "podjail: %v\n", err)
		return exitFailure
	}
	logOut, closeLog := logOutput(args[0], stderr)
	defer closeLog()
	log := hclog.New(&hclog.LoggerOptions{
		Name:   "podjail",
		Output: logOut,
		Level:  hclog.LevelFromString(os.Getenv("PODJAIL_LOG_LEVEL")),
	})
	switch args[0] {
	case "run":
		return runCommand(ctx, args[1:], stdout, stderr, log)
	case "judge":
		return judgeCommand(ctx, args[1:], stdout, stderr, log)
	case "omegajail":
		return omegajailFront(ctx, args[1:], stdout, stderr, log)
	case "isolate":
		return isolateCommand(ctx, args[1:], stdinOf(stdout), stdout, stderr, log)
	case "health":
		return healthCommand(ctx, args[1:], stdout, stderr)
	case "doctor":
		return doctorCommand(ctx, args[1:], stdout, stderr)
	case "serve":
		return serveCommand(ctx, args[1:], stdout, stderr, log)
	case "bench":
		return benchCommand(ctx, args[1:], stdout, stderr, log)
	default:
		fmt.Fprintf(stderr, "podjail: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}

// versionCommand prints "podjail VERSION": the version set at link time
// (the RPM's), else the module's or the VCS revision's.
func versionCommand(args []string, stdout, stderr io.Writer) int {
	fs := newCommand("version", "", 0, "Prints podjail's version.")
	if code, done := fs.parse(args, stdout, stderr); done {
		return code
	}
	fmt.Fprintf(stdout, "podjail %s\n", engine.BuildVersion())
	return exitOK
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
