package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
)

// omegajailCommand does what omegaUp's Runner asks of omegajail (see
// docs/omegajail.md): compile into the home directory, or run in it, each
// in a fresh container, and write the .meta file the Runner parses. A
// failure of ours writes no .meta: the Runner must not read a verdict.
func omegajailCommand(ctx context.Context, args []string, stderr io.Writer, log hclog.Logger) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "podjail omegajail: %v\n", err)
		return code
	}
	req, err := omegajail.ParseArgs(args)
	if err != nil {
		return fail(omegajail.UsageExitCode, err)
	}
	id, err := omegajail.LanguageID(req.Language)
	if err != nil {
		return fail(omegajail.UsageExitCode, err)
	}
	l, err := lang.Default().Lookup(id)
	if err != nil {
		return fail(omegajail.UsageExitCode, err)
	}
	shimPath, err := findShim("")
	if err != nil || shimPath == "" {
		return fail(exitFailure, fmt.Errorf("podjail-shim not found beside podjail (%v)", err))
	}
	runner, err := newRunner(ctx, "", shimPath, log)
	if err != nil {
		return fail(exitFailure, err)
	}
	defer runner.Close(context.WithoutCancel(ctx))
	var meta omegajail.Meta
	if req.Mode == omegajail.ModeCompile {
		meta, err = omegajailCompile(ctx, runner, req, l)
	} else {
		meta, err = omegajailRun(ctx, runner, req, l)
	}
	if err != nil {
		return fail(exitFailure, err)
	}
	if req.Meta != "" {
		var b bytes.Buffer
		if err := omegajail.WriteMeta(&b, meta); err != nil {
			return fail(exitFailure, err)
		}
		if err := os.WriteFile(req.Meta, b.Bytes(), 0o644); err != nil {
			return fail(exitFailure, err)
		}
	}
	return omegajail.ExitCode(meta)
}

// omegajailCompile builds the one source in the home directory and puts
// the artefacts beside it; the compiler's messages go to -2 (where
// omegajail's compilers write them).
func omegajailCompile(ctx context.Context, r *plugin.Runner, req omegajail.Request, l lang.Language) (omegajail.Meta, error) {
	if len(req.CompileSources) != 1 {
		return omegajail.Meta{}, fmt.Errorf("podjail compiles one source file, got %d", len(req.CompileSources))
	}
	src, err := os.ReadFile(filepath.Join(req.Homedir, req.CompileSources[0]))
	if err != nil {
		return omegajail.Meta{}, err
	}
	if req.TimeLimitMs != nil {
		l.BuildTimeLimit = time.Duration(*req.TimeLimitMs) * time.Millisecond
	}
	start := time.Now()
	b, err := r.Build(ctx, l, src, "")
	if b.Dir != "" {
		defer os.RemoveAll(b.Dir)
	}
	if err != nil {
		return omegajail.Meta{}, err
	}
	if err := writeIfNamed(req.Stdout, nil); err != nil {
		return omegajail.Meta{}, err
	}
	if err := writeIfNamed(req.Stderr, []byte(b.Output)); err != nil {
		return omegajail.Meta{}, err
	}
	status := 1
	if b.OK {
		status = 0
		for _, a := range l.Artefacts {
			data, err := os.ReadFile(filepath.Join(b.Dir, a))
			if err != nil {
				return omegajail.Meta{}, err
			}
			if err := os.WriteFile(filepath.Join(req.Homedir, a), data, 0o755); err != nil {
				return omegajail.Meta{}, err
			}
		}
	}
	return omegajail.Meta{TimeUs: b.Time.Microseconds(), WallTimeUs: time.Since(start).Microseconds(),
		MemBytes: max(b.Peak, 0), ExitStatus: &status}, nil
}

// omegajailRun runs the artefacts of the home directory (mounted
// read-only) on -0, stdout to -1, stderr to -2.
func omegajailRun(ctx context.Context, r *plugin.Runner, req omegajail.Request, l lang.Language) (omegajail.Meta, error) {
	homedir, err := filepath.Abs(req.Homedir)
	if err != nil {
		return omegajail.Meta{}, err
	}
	run := omegajailRunRequest(req, l, homedir)
	if req.Stdout != "" {
		f, err := os.Create(req.Stdout)
		if err != nil {
			return omegajail.Meta{}, err
		}
		defer f.Close()
		run.Output = f
	}
	if req.Stderr != "" {
		if err := stderrFile(req.Stderr); err != nil {
			return omegajail.Meta{}, err
		}
		run.StderrFile = req.Stderr
	}
	res, err := r.Run(ctx, run)
	if err != nil {
		return omegajail.Meta{}, err
	}
	if res.Verdict == plugin.IE {
		// No .meta: the Runner must not read a verdict into our failure.
		return omegajail.Meta{}, fmt.Errorf("the run never started: %s", res.VerdictNote)
	}
	return omegajailMeta(res, run.MemoryBytes), nil
}

// omegajailRunRequest is the run of the home directory's artefacts. As in
// omegajail, the home directory is the working directory, /home, with
// HOME=/home: omegaUp's validators open data.in, data.out and meta.in
// relative to it. The languages' commands find the artefacts at
// lang.ArtefactDir, the same directory mounted there too.
func omegajailRunRequest(req omegajail.Request, l lang.Language, homedir string) plugin.RunRequest {
	run := plugin.RunRequest{
		Image:   l.RunImage,
		Command: append(append([]string{}, l.Run...), req.ExtraArgs...),
		Binds: []bindings.Bind{
			{Source: homedir, Destination: lang.ArtefactDir},
			{Source: homedir, Destination: omegajailHome},
		},
		WorkDir:        omegajailHome,
		Env:            append(slices.Clone(l.Env), "HOME="+omegajailHome),
		MemoryExitCode: l.MemoryExitCode,
		WallLimit:      req.WallTimeLimit(), // from the go: the container's start is not counted
		TimeLimit:      l.ExtraTime,
	}
	if req.Stdin != "" && req.Stdin != "-" {
		run.InputFile = req.Stdin
	}
	if req.TimeLimitMs != nil {
		run.TimeLimit += time.Duration(*req.TimeLimitMs) * time.Millisecond
	}
	if run.TimeLimit == 0 {
		run.TimeLimit = req.WallTimeLimit()
	}
	if req.MemoryLimit != nil {
		run.MemoryBytes = int64(*req.MemoryLimit)
	}
	if req.OutputLimit != nil {
		run.OutputLimit = int64(*req.OutputLimit)
	}
	// libinteractive's pipes: read-only mounts, which still let the
	// program open a named pipe for writing.
	for _, b := range req.Binds {
		src, err := filepath.Abs(b.Source)
		if err != nil {
			src = b.Source
		}
		run.Binds = append(run.Binds, bindings.Bind{Source: src, Destination: b.Target})
	}
	return run
}

// omegajailHome is where omegajail puts the home directory.
const omegajailHome = "/home"

// omegajailMeta says in omegajail's terms how the run ended: the Runner
// turns SIGXCPU into TLE, SIGXFSZ into OLE, memory above the limit into
// MLE and SIGSYS into RFE.
func omegajailMeta(res plugin.RunResult, memoryLimit int64) omegajail.Meta {
	m := omegajail.Meta{TimeUs: res.Measure.Time.Microseconds(), WallTimeUs: res.Wall.Microseconds(), MemBytes: max(res.Measure.Peak, 0)}
	if rep := res.Report; rep != nil && res.Measure.Time == res.Measure.ShimTime {
		m.TimeUs, m.SysTimeUs = rep.UserUs, rep.SysUs
	}
	switch res.Verdict {
	case plugin.TLE:
		m.Signal = "SIGXCPU"
	case plugin.OLE:
		m.Signal = "SIGXFSZ"
	case plugin.MLE:
		m.Signal = "SIGKILL"
		m.MemBytes = max(m.MemBytes, memoryLimit+1, res.Measure.ContainerPeak)
	case plugin.RFE:
		m.Signal = "SIGSYS"
		m.Syscall = res.SyscallName // "" when the kernel log did not say
	default:
		if res.Signal != "" {
			m.Signal = res.Signal
		} else {
			status := int(res.ExitCode)
			m.ExitStatus = &status
		}
	}
	return m
}

func writeIfNamed(path string, data []byte) error {
	if path == "" {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}
