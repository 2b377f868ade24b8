package bench

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/podjail/podjail/internal/viaservice"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
)

// benchBuildSource is the trivial program whose build is timed: what is
// measured is the build container's life around the compiler, not the
// compiler's work on a real submission.
var benchBuildSource = map[string][]byte{
	".c":   []byte("int main(void) { return 0; }\n"),
	".cpp": []byte("int main() { return 0; }\n"),
}

// benchBuilds times n builds of the trivial program in language id in
// this process and, when service is set, n through the service's Compile
// and n as a front builds through it (Exec, the source in and the
// artefacts back on the call: omegajail's compile), each after pause (the
// service arms the next build meanwhile). It fills rep's build figures.
// Every build must succeed.
func benchBuilds(ctx context.Context, rep *benchReport, pr *plugin.Runner, id, service string, n int, pause time.Duration) error {
	l, err := lang.Default().Lookup(id)
	if err != nil {
		return err
	}
	var src []byte
	if len(l.Extensions) > 0 {
		src = benchBuildSource[l.Extensions[0]]
	}
	if src == nil || len(l.Compile) == 0 {
		return fmt.Errorf("--build-lang %s: bench builds C or C++ (a language with a compile step and a trivial program here)", id)
	}
	files := map[string][]byte{l.Source: src}
	build := func(run func(context.Context, runner.RunRequest, plugin.Files) (runner.RunResult, error), where string) func() error {
		return func() error {
			res, err := plugin.BuildWith(ctx, run, l, files, "")
			if res.Dir != "" {
				_ = os.RemoveAll(res.Dir)
			}
			if err == nil && !res.OK {
				err = fmt.Errorf("the trivial %s program did not build %s: %s\n%s", id, where, res.Note, res.Output)
			}
			return err
		}
	}
	rep.BuildLang = id
	if rep.BuildInProcess, err = medianOf(n, 0, build(pr.RunFiles, "in process")); err != nil || service == "" {
		return err
	}
	c, closeFn, err := sandbox.Dial(ctx, service)
	if err != nil {
		return err
	}
	defer closeFn()
	rep.BuildService, err = medianOf(n, pause, func() error {
		res, err := c.Compile(ctx, id, src)
		if err == nil && !res.OK {
			err = fmt.Errorf("the trivial %s program did not build through the service: %s\n%s", id, res.Note, res.Output)
		}
		if err == nil {
			err = c.Release(ctx, res.Handle)
		}
		return err
	})
	if err != nil {
		return err
	}
	front := func(ctx context.Context, req runner.RunRequest, f plugin.Files) (runner.RunResult, error) {
		res, err := viaservice.Run(ctx, c, req, f)
		return res.RunResult, err
	}
	rep.BuildFront, err = medianOf(n, pause, build(front, "as a front through the service"))
	return err
}
