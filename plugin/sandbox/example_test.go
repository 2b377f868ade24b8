package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/plugin/sandbox"
)

// A judge loads the plugin, compiles and runs a submission once, then
// judges it on every test of examples/problems/aplusb, printing each test
// as soon as it is judged. It needs a fit host with Podman, the
// localhost/podjail-gcc image and podjail-shim beside podjail-plugin, so it
// is compiled by go test but not run.
func Example_judge() {
	ctx := context.Background()
	logger := hclog.New(&hclog.LoggerOptions{Name: "judge", Level: hclog.Info})

	sb, kill, err := sandbox.Open(ctx, "/usr/local/libexec/podjail/podjail-plugin", logger)
	if err != nil {
		log.Fatal(err) // ErrFailedPrecondition: the binary is missing or is no podjail plugin
	}
	defer kill()

	caps, err := sb.Capabilities(ctx)
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		log.Fatal("Podman is down, try again later: ", err)
	case errors.Is(err, sandbox.ErrFailedPrecondition):
		log.Fatal("the host needs fixing (podjail doctor): ", err)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("podjail", caps.Version, "rootless:", caps.Host.Rootless, "shim:", caps.Host.Shim)

	problemDir, _ := filepath.Abs("examples/problems/aplusb") // a path on the plugin's host
	src, err := os.ReadFile(filepath.Join(problemDir, "solutions", "accepted.c"))
	if err != nil {
		log.Fatal(err)
	}

	// Compile once, run as often as needed, release.
	c, err := sb.Compile(ctx, "c11", src)
	if err != nil {
		log.Fatal(err)
	}
	if !c.OK {
		fmt.Printf("CE: %s\n%s\n", c.Note, c.Output) // the submission's fault: a value
		return
	}
	defer sb.Release(ctx, c.Handle)
	r, err := sb.Run(ctx, sandbox.RunRequest{
		Handle: c.Handle,
		Input:  []byte("1 2\n"),
		Limits: sandbox.Limits{Time: 3 * time.Second, Memory: 64 << 20, Output: 1 << 20, Wall: 10 * time.Second},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("output %q, exit %d, %.3f s, peak %d bytes, killed %q\n", r.Output, r.ExitCode, r.Time.Seconds(), r.Peak, r.Killed)

	// Judge on every test, each reported as soon as it is judged.
	res, err := sb.Judge(ctx, sandbox.JudgeRequest{ProblemDir: problemDir, Language: "c11", Source: src},
		func(t sandbox.TestResult) {
			fmt.Printf("[%d/%d] %-8s %-3s %.3f s %s\n", t.Index, t.Total, t.Name, t.Verdict, t.Time.Seconds(), t.Note)
		})
	if errors.Is(err, sandbox.ErrInvalidArgument) {
		log.Fatal("bad problem package or language: ", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("verdict:", res.Verdict, res.Note)
}
