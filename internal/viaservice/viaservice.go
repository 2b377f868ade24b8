// Package viaservice runs one program through a podjail service as podjail
// run and the fronts do in process: the same request, the service's report.
package viaservice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
	"github.com/podjail/podjail/plugin/sandbox/engine"
)

// Run runs req, with files, through a podjail service: the
// same run as in process, the report the service's. A failure of the shim
// is the same *runner.ShimError as in process. The verdict is the
// service's, in its report.
func Run(ctx context.Context, svc *sandbox.Client, req runner.RunRequest, files plugin.Files) (plugin.JudgedRun, error) {
	// The service resolves paths in its own working directory, not ours;
	// it fills in the defaults of the limits itself.
	checked := req
	if err := checked.Check(); err != nil {
		return plugin.JudgedRun{RunResult: runner.RunResult{Image: req.Image}}, err
	}
	req.InputFile, req.StderrFile = checked.InputFile, checked.StderrFile
	x, err := engine.ExecRequestOf(req)
	if err != nil {
		return plugin.JudgedRun{}, err
	}
	if x.StderrPath != "" {
		// Appended to here, once the program ended: the service need not
		// see our file, nor be allowed to write it.
		f, err := os.OpenFile(x.StderrPath, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return plugin.JudgedRun{}, &runner.RequestError{Field: "stderr", Err: err}
		}
		defer f.Close()
		x.StderrPath, x.Stderr = "", f
	}
	x.Files, x.Collect = files.In, files.Out
	xr, err := svc.Exec(ctx, x, req.Output)
	if errors.Is(err, sandbox.ErrPermissionDenied) && x.InputPath != "" && len(x.Binds) == 0 {
		// A service of another user does not read our files with its
		// rights: the input goes whole, read with ours.
		xr, err = execUploading(ctx, svc, x, req.Output)
	}
	if err != nil {
		return plugin.JudgedRun{}, err
	}
	var res plugin.JudgedRun
	if err := json.Unmarshal(xr.Report, &res); err != nil {
		return plugin.JudgedRun{}, fmt.Errorf("the service's report: %w", err)
	}
	if err := writeCollected(files, xr.Files); err != nil {
		return res, err
	}
	if rep := res.Report; rep != nil && rep.Error != "" {
		return res, &runner.ShimError{Step: string(rep.Step), Err: rep.Error}
	}
	return res, nil
}

// writeCollected writes the files of f.Out a service collected (got)
// into f.OutDir, mode 0755, each a new file, as the Runner does.
func writeCollected(f plugin.Files, got map[string][]byte) error {
	for _, name := range f.Out {
		data, ok := got[name]
		if !ok {
			continue
		}
		out, err := os.OpenFile(filepath.Join(f.OutDir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o755)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		if err = errors.Join(err, out.Close()); err != nil {
			return err
		}
	}
	return nil
}

// execUploading is x through svc with its input file sent whole.
func execUploading(ctx context.Context, svc *sandbox.Client, x sandbox.ExecRequest, out io.Writer) (sandbox.ExecResult, error) {
	f, err := os.Open(x.InputPath)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	defer f.Close()
	x.InputPath, x.Stdin, x.StdinWhole = "", f, true
	return svc.Exec(ctx, x, out)
}
