// Command podjail judges untrusted code in Podman containers.
//
// Exit codes: 0 the command did its work (for run: the program ran, however
// it ended; for judge: the submission was accepted); 1 a failure of podjail
// or the host (for judge also IE and CF); 2 bad usage or input; 3 (judge)
// the submission was judged and not accepted.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

const usage = `usage: podjail COMMAND [flags]

commands:
  run      run one program in one fresh container and report how it ended
  judge    build a submission and judge it on every test of a problem
  doctor   check that this host can run podjail

Run "podjail COMMAND -h" for a command's flags.
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
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	log := hclog.New(&hclog.LoggerOptions{
		Name:   "podjail",
		Output: stderr,
		Level:  hclog.LevelFromString(os.Getenv("PODJAIL_LOG_LEVEL")),
	})
	switch args[0] {
	case "run":
		return runCommand(ctx, args[1:], stdout, stderr, log)
	case "judge":
		return judgeCommand(ctx, args[1:], stdout, stderr, log)
	case "doctor":
		return doctorCommand(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "podjail: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}
