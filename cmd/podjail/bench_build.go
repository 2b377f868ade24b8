package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
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
// this process and, when service is set, n through the service, each after
// pause (the service arms the next build meanwhile). Every build must
// succeed.
func benchBuilds(ctx context.Context, runner *plugin.Runner, id, service string, n int, pause time.Duration) (local, viaService time.Duration, err error) {
	l, err := lang.Default().Lookup(id)
	if err != nil {
		return 0, 0, err
	}
	var src []byte
	if len(l.Extensions) > 0 {
		src = benchBuildSource[l.Extensions[0]]
	}
	if src == nil || len(l.Compile) == 0 {
		return 0, 0, fmt.Errorf("--build-lang %s: bench builds C or C++ (a language with a compile step and a trivial program here)", id)
	}
	local, err = medianOf(n, 0, func() error {
		res, err := runner.Build(ctx, l, src, "")
		if res.Dir != "" {
			_ = os.RemoveAll(res.Dir)
		}
		if err == nil && !res.OK {
			err = fmt.Errorf("the trivial %s program did not build: %s\n%s", id, res.Note, res.Output)
		}
		return err
	})
	if err != nil || service == "" {
		return local, 0, err
	}
	c, closeFn, err := sandbox.Dial(ctx, service)
	if err != nil {
		return local, 0, err
	}
	defer closeFn()
	viaService, err = medianOf(n, pause, func() error {
		res, err := c.Compile(ctx, id, src)
		if err == nil && !res.OK {
			err = fmt.Errorf("the trivial %s program did not build through the service: %s\n%s", id, res.Note, res.Output)
		}
		if err == nil {
			err = c.Release(ctx, res.Handle)
		}
		return err
	})
	return local, viaService, err
}
