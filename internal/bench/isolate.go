package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// benchIsolate times `isolate --run` of argv through the isolate front,
// called as Judge0 and CMS call it (an executable named isolate, a box
// made by --init): n in process ($PODJAIL_SERVICE=none: a runner's setup
// and a container's whole life per call), then n through the service at
// path, each after pause (the service arms the next run meanwhile).
func benchIsolate(ctx context.Context, self, image, service string, argv []string, n int, pause time.Duration) (inProcess, viaService time.Duration, err error) {
	dir, err := os.MkdirTemp("", "podjail-bench-isolate-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "isolate")
	if err := os.Symlink(self, bin); err != nil {
		return 0, 0, err
	}
	root := filepath.Join(dir, "boxes")
	isolate := func(svc string, args ...string) error {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "PODJAIL_ISOLATE_ROOT="+root, "PODJAIL_ISOLATE_IMAGE="+image, "PODJAIL_SERVICE="+svc)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("isolate %v: %w\n%s", args, err, out)
		}
		return nil
	}
	if err := isolate("none", "-b", "0", "--init"); err != nil {
		return 0, 0, err
	}
	defer isolate("none", "-b", "0", "--cleanup")
	run := append([]string{"-b", "0", "-s", "--run", "--"}, argv...)
	if inProcess, err = medianOf(n, 0, func() error { return isolate("none", run...) }); err != nil {
		return 0, 0, err
	}
	viaService, err = medianOf(n, pause, func() error { return isolate(service, run...) })
	return inProcess, viaService, err
}
