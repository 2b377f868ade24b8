// Package engine is the real sandbox.Engine: podjail's Runner over Podman
// and the language table. The podjail-plugin binary serves it; it is kept
// out of package sandbox so that a judge importing the client does not
// link Podman's bindings (and needs none of their build tags).
package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
)

// Version is podjail's version as Capabilities reports it. Set it at link
// time (-ldflags "-X github.com/podjail/podjail/plugin/sandbox/engine.Version=v1.2.3");
// empty: the binary's module version or VCS revision.
var Version string

// Options configure an Engine.
type Options struct {
	// URL is the Podman API URL. Zero value: socket discovery
	// ($CONTAINER_HOST, else the user's socket when not root, else
	// /run/podman/podman.sock).
	URL string
	// ShimPath is the host path of podjail-shim (see FindShim). Zero
	// value: programs run without the shim, measured by their parent
	// cgroup alone, and Judge is refused.
	ShimPath string
	// Languages is the language table. Zero value: lang.Default().
	Languages *lang.Table
	// TmpDir holds Judge's artefacts and outputs; it must be readable by
	// the Podman service. Zero value: os.TempDir().
	TmpDir string
	// Log receives the Runner's log. Zero value: nothing is logged.
	Log hclog.Logger
	// MemoryCeiling is the Runner's (plugin.Setup). Zero value: none.
	MemoryCeiling int64
	// Warm keeps a run armed ahead for each shape of Run and Exec that
	// comes again (runner.Warm), for a long-lived service. Zero value:
	// every run is armed when it is asked for.
	Warm bool
	// WarmShapes is how many shapes Warm keeps armed at once. Zero value:
	// runner.DefaultWarmShapes.
	WarmShapes int
	// Observer is told what the Runner does (plugin.Observer), for
	// metrics. Zero value: nobody is told.
	Observer plugin.Observer
	// Bounds are the server's (sandbox.ServerOptions.Bounds): the engine
	// keeps the ones it alone can see, the bytes an Exec gives back and a
	// judged problem's limits. Zero value: their defaults.
	Bounds sandbox.Bounds
}

// Engine serves sandbox calls with a plugin.Runner.
type Engine struct {
	runner *plugin.Runner
	warm   *runner.Warm // nil: none
	langs  *lang.Table
	tmpDir string
	bounds sandbox.Bounds // zero: the defaults
	cores  *cores         // nil: no run is pinned
}

var _ sandbox.Engine = (*Engine)(nil)

// New connects to Podman, picks the cgroup driver it uses, and sweeps what
// dead podjail instances of this host left (what cmd/podjail's newRunner
// does). Its errors are marked with sandbox's kinds.
func New(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Log == nil {
		opts.Log = hclog.NewNullLogger()
	}
	if opts.Languages == nil {
		opts.Languages = lang.Default()
	}
	if opts.ShimPath == "" {
		opts.Log.Warn("no podjail-shim: runs are measured by their parent cgroup alone, and Judge is refused")
	}
	runner, err := plugin.NewRunner(ctx, plugin.Setup{URL: opts.URL, Shim: opts.ShimPath, Log: opts.Log, MemoryCeiling: opts.MemoryCeiling, Observer: opts.Observer})
	if err != nil {
		return nil, Classify(err)
	}
	e := &Engine{runner: runner, langs: opts.Languages, tmpDir: opts.TmpDir, bounds: opts.Bounds, cores: newCores(runner.Cores)}
	if opts.Warm {
		e.warm = plugin.NewWarm(runner, opts.TmpDir, opts.WarmShapes)
	}
	return e, nil
}

// run is one run of Run: warm when the engine keeps runs armed (Exec's
// go through the Runner's RunFiles, warm then too).
func (e *Engine) run(ctx context.Context, req runner.RunRequest, l plugin.Bounds) (runner.RunResult, error) {
	l.Set(&req)
	if e.warm != nil {
		return e.warm.Run(ctx, req)
	}
	return e.runner.Run(ctx, req)
}

// Runner is the engine's runner.
func (e *Engine) Runner() *plugin.Runner { return e.runner }

func (e *Engine) Capabilities(ctx context.Context) (sandbox.Capabilities, error) {
	host, err := e.runner.Runtime.Host(ctx)
	if err != nil {
		return sandbox.Capabilities{}, Classify(err)
	}
	return sandbox.Capabilities{
		Version:   BuildVersion(),
		Languages: Languages(e.langs),
		Host: sandbox.Host{
			Rootless:      host.Rootless,
			CgroupManager: host.CgroupManager,
			Shim:          e.runner.Shim != "",
			PodmanVersion: host.Version,
		},
	}, nil
}

// Languages lists a table's languages for Capabilities.
func Languages(t *lang.Table) []sandbox.Language {
	var out []sandbox.Language
	for _, id := range t.IDs() {
		l, err := t.Lookup(id)
		if err != nil {
			continue
		}
		out = append(out, sandbox.Language{
			ID: l.ID, Name: l.Name, Aliases: l.Aliases, Extensions: l.Extensions, Compiled: len(l.Compile) > 0,
		})
	}
	return out
}

// Images are the images t's languages build and run in: the service's
// own, which an Exec may run too (sandbox.ServerOptions.Images), each once.
func Images(t *lang.Table) []string {
	var out []string
	for _, id := range t.IDs() {
		l, err := t.Lookup(id)
		if err != nil {
			continue
		}
		for _, image := range []string{l.BuildImage, l.RunImage} {
			if image != "" && !slices.Contains(out, image) {
				out = append(out, image)
			}
		}
	}
	return out
}

func (e *Engine) Build(ctx context.Context, language string, source []byte, dir string) (sandbox.Build, string, error) {
	l, err := e.langs.Lookup(language)
	if err != nil {
		return sandbox.Build{}, "", err
	}
	res, err := e.runner.Build(ctx, l, source, dir)
	b := sandbox.Build{OK: res.OK, Output: res.Output, Note: res.Note, Time: res.Time, Peak: res.Peak}
	return b, res.Dir, Classify(err)
}

func (e *Engine) Run(ctx context.Context, x sandbox.Execution) (sandbox.RunResult, error) {
	l, err := e.langs.Lookup(x.Artefacts.Language)
	if err != nil {
		return sandbox.RunResult{}, err
	}
	limits := plugin.HandleLimits(x.Limits.Time, x.Limits.Wall, x.Limits.Memory, x.Limits.Output)
	if limits.CPUSet, err = e.cores.unpinned(ctx); err != nil {
		return sandbox.RunResult{}, err
	}
	res, err := e.run(ctx, runner.RunRequest{
		Image:   l.RunImage,
		Command: l.Run,
		Env:     l.Env,
		// Given for completeness: without a time limit the run has no
		// verdict, and the caller judges from the figures and exit code.
		MemoryExitCode: l.MemoryExitCode,
		InputFile:      x.InputPath,
		Binds:          []bindings.Bind{{Source: x.Artefacts.Dir, Destination: lang.ArtefactDir}},
		Output:         x.Output,
	}, limits)
	if err != nil {
		return sandbox.RunResult{}, Classify(err)
	}
	return RunResult(res), nil
}

// Exec runs a command of an image as podjail run does, with its defaults
// for the zero values.
func (e *Engine) Exec(ctx context.Context, req sandbox.ExecRequest, stdout io.Writer) (sandbox.ExecResult, error) {
	if err := visible(req); err != nil {
		return sandbox.ExecResult{}, err
	}
	run := RunRequestOf(req, stdout)
	if err := run.Check(); err != nil {
		return sandbox.ExecResult{}, Classify(err)
	}
	cpuset, err := e.cores.unpinned(ctx)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	run.Limits.CPUSet = cpuset
	files := plugin.Files{In: req.Files, Out: req.Collect, TmpDir: e.tmpDir}
	if len(req.Collect) > 0 {
		dir, err := os.MkdirTemp(e.tmpDir, "podjail-collect-")
		if err != nil {
			return sandbox.ExecResult{}, err
		}
		defer os.RemoveAll(dir)
		files.OutDir = dir
	}
	res, err := e.runner.RunFiles(ctx, run, files)
	var missing *bindings.ImageMissingError
	var shimErr *runner.ShimError
	switch {
	case errors.As(err, &missing):
		// The image is the request's own choice, not the host's setup.
		return sandbox.ExecResult{}, sandbox.Mark(err, sandbox.ErrInvalidArgument)
	case errors.As(err, &shimErr) && res.Report != nil:
		// The shim's report says which step failed (a program that cannot
		// be executed fails "start"): the caller reads it in the report.
	case err != nil:
		return sandbox.ExecResult{}, Classify(err)
	}
	// The mechanism's result has no verdict: the judging layer's, when
	// the run ended (a failure of the shim has none).
	judged := plugin.JudgedRun{RunResult: res}
	if err == nil {
		judged = plugin.JudgeRun(run, res)
	}
	report, err := json.Marshal(judged)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	collected, err := readCollected(files, e.bounds.WithDefaults().MaxCollect)
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	return sandbox.ExecResult{Run: RunResult(res), Verdict: judged.Verdict, VerdictNote: judged.VerdictNote,
		Container: res.Container, Report: report, Files: collected}, nil
}

// readCollected reads the files of f.Out the run left in f.OutDir, at
// most limit bytes of them in all (sandbox.Bounds.MaxCollect): past it,
// the call fails with ErrResourceExhausted before more is read.
func readCollected(f plugin.Files, limit int64) (map[string][]byte, error) {
	var out map[string][]byte
	for _, name := range f.Out {
		data, err := readAtMost(filepath.Join(f.OutDir, name), limit)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		limit -= int64(len(data))
		if out == nil {
			out = map[string][]byte{}
		}
		out[name] = data
	}
	return out, nil
}

// readAtMost reads the file at path whole if it holds at most limit
// bytes, else fails with sandbox.Bounds' collect error, having read no
// more than limit + 1 bytes.
func readAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, sandbox.Bounds{MaxCollect: max(limit, 0)}.CollectError(fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, max(limit, 0)+1))
	if err == nil && int64(len(data)) > limit {
		err = sandbox.Bounds{MaxCollect: max(limit, 0)}.CollectError(int64(len(data)))
	}
	return data, err
}

// visible checks that this process sees the host paths x names: a
// service in a container sees only its volumes, and a caller's box it
// cannot see is the deployment's failure (FAILED_PRECONDITION), not the
// request's. The fronts then work in their own process.
func visible(x sandbox.ExecRequest) error {
	paths := []string{x.InputPath, x.StderrPath}
	for _, b := range x.Binds {
		paths = append(paths, b.Source)
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return sandbox.Mark(fmt.Errorf("this podjail service does not see %s, which the run names (a service in a container sees only its volumes: give it %s at the same path, e.g. Volume=%s:%s in podjail.container)", p, filepath.Dir(p), filepath.Dir(p), filepath.Dir(p)), sandbox.ErrFailedPrecondition)
		}
	}
	return nil
}

// RunRequestOf is the run x asks for, stdout going to stdout (nil:
// discarded).
// ExecRequestOf is its inverse: a field added to one is added to both.
func RunRequestOf(x sandbox.ExecRequest, stdout io.Writer) runner.RunRequest {
	run := runner.RunRequest{
		Image:          x.Image,
		Command:        x.Command,
		InputFile:      x.InputPath,
		StdinStream:    x.Stdin,
		StderrFile:     x.StderrPath,
		StderrToStdout: x.StderrToStdout,
		Output:         cmp.Or[io.Writer](stdout, io.Discard),
		MemoryExitCode: x.MemoryExitCode,
		Env:            x.Env,
		WorkDir:        x.WorkDir,
		Writable:       x.Writable,
		Tasks:          x.Tasks,
	}
	plugin.Bounds{Deadlines: runner.Deadlines{CPU: x.CPULimit, Wall: x.Limits.Wall},
		Limits: runner.Limits{Time: x.Limits.Time, Output: x.Limits.Output, Memory: x.Limits.Memory, Pids: x.Pids, CPUs: x.CPUs,
			FileSize: x.FileSize, Stack: x.Stack}}.WithDefaults().Set(&run)
	for _, b := range x.Binds {
		run.Binds = append(run.Binds, bindings.Bind{Source: b.Source, Destination: b.Destination, Writable: b.Writable})
	}
	return run
}

// ExecRequestOf asks a service for run (whose Output, a writer, stays the
// caller's). A regular file as stdin is sent whole before the run, so
// that the service can have it armed ahead; any other stream is fed as it
// comes. What only a Runner in this process does (files copied in or out
// as Copy, a Stop channel, pinned cores, an idle limit of its own) cannot
// cross: a request with it is refused.
func ExecRequestOf(run runner.RunRequest) (sandbox.ExecRequest, error) {
	// The idle limit does not cross: the service sets it from the time
	// limit, as Check did for a request that went through it.
	l, w := run.Limits, run.Wait
	ownIdle := w.Idle != 0 && (l.Time == 0 || w.Idle != runner.DeadlinesFor(l.Time).Idle)
	if len(run.Copy.In) > 0 || len(run.Copy.Out) > 0 || run.Copy.Unpack || w.Stop != nil || l.CPUSet != "" || ownIdle {
		return sandbox.ExecRequest{}, errors.New("this run needs the runner in this process (its own hooks, a stop channel, pinned cores or an idle limit; files go in and out as plugin.Files)")
	}
	x := sandbox.ExecRequest{
		Image:          run.Image,
		Command:        run.Command,
		InputPath:      run.InputFile,
		Stdin:          run.StdinStream,
		StderrPath:     run.StderrFile,
		StderrToStdout: run.StderrToStdout,
		Limits:         sandbox.Limits{Time: l.Time, Memory: l.Memory, Output: l.Output, Wall: w.Wall},
		Pids:           l.Pids,
		CPUs:           l.CPUs,
		CPULimit:       w.CPU,
		FileSize:       l.FileSize,
		Stack:          l.Stack,
		MemoryExitCode: run.MemoryExitCode,
		Env:            run.Env,
		WorkDir:        run.WorkDir,
		Writable:       run.Writable,
		Tasks:          run.Tasks,
	}
	if f, ok := run.StdinStream.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			x.StdinWhole = true
		}
	}
	for _, b := range run.Binds {
		x.Binds = append(x.Binds, sandbox.Bind{Source: b.Source, Destination: b.Destination, Writable: b.Writable})
	}
	return x, nil
}

// RunResult converts a Runner's result (all but Output).
func RunResult(r runner.RunResult) sandbox.RunResult {
	m := r.Measure
	return sandbox.RunResult{
		ExitCode:       r.ExitCode,
		Signal:         r.Signal,
		Killed:         r.Killed.String(),
		KilledNote:     r.KilledNote,
		Time:           m.Time,
		Peak:           m.Peak,
		MemoryExceeded: m.MemoryExceeded,
		OutputBytes:    r.OutputBytes,
		TimeFrom:       m.TimeFrom,
		PeakFrom:       m.PeakFrom,
		MemoryFrom:     m.MemoryFrom,
		Wall:           r.Wall,
	}
}

func (e *Engine) Judge(ctx context.Context, req sandbox.JudgeRequest, progress func(sandbox.TestResult)) (sandbox.JudgeResult, error) {
	if e.runner.Shim == "" {
		return sandbox.JudgeResult{}, sandbox.Mark(errors.New("judging needs podjail-shim: put it beside podjail-plugin, or name it with --shim or $PODJAIL_SHIM"), sandbox.ErrFailedPrecondition)
	}
	p, err := problem.Load(req.ProblemDir)
	if err != nil {
		return sandbox.JudgeResult{}, err
	}
	l, err := e.langs.Lookup(req.Language)
	if err != nil {
		return sandbox.JudgeResult{}, err
	}
	// The problem's own limits: the language's extra time is the table's.
	if err := e.bounds.CheckJudge(p.MemoryBytes, p.TimeLimit); err != nil {
		return sandbox.JudgeResult{}, err
	}
	defer e.cores.hold(req.Parallel)()
	res, err := e.runner.Judge(ctx, plugin.JudgeRequest{
		Problem:            p,
		Lang:               l,
		Source:             req.Source,
		Languages:          e.langs,
		StopOnFirstFailure: req.StopOnFirstFailure,
		Parallel:           req.Parallel,
		RetryIE:            req.RetryIE,
		TmpDir:             e.tmpDir,
		Progress: func(done, total int, t plugin.TestResult) {
			progress(TestResult(done, total, t))
		},
	})
	if err != nil {
		return sandbox.JudgeResult{}, Classify(err)
	}
	return JudgeResult(res), nil
}

// TestResult converts the Runner's judgement of the done-th test of total.
func TestResult(done, total int, t plugin.TestResult) sandbox.TestResult {
	return sandbox.TestResult{
		Index: done, Total: total, Name: t.Name, Sample: t.Sample,
		Verdict: t.Verdict, Note: t.Note, Time: t.Time, Peak: t.Peak, Points: t.Points,
	}
}

// JudgeResult converts the Runner's judgement of a submission.
func JudgeResult(r plugin.JudgeResult) sandbox.JudgeResult {
	out := sandbox.JudgeResult{Verdict: r.Verdict, Note: r.Note, Build: build(r.Build)}
	if r.Checker != nil {
		b := build(*r.Checker)
		out.Checker = &b
	}
	for i, t := range r.Tests {
		out.Tests = append(out.Tests, TestResult(i+1, len(r.Tests), t))
	}
	return out
}

func build(b plugin.BuildResult) sandbox.Build {
	return sandbox.Build{OK: b.OK, Output: b.Output, Note: b.Note, Time: b.Time, Peak: b.Peak}
}

// Classify marks the Runner's and the bindings' errors with sandbox's
// kinds: Podman unreachable is ErrUnavailable; an unfit host or a missing
// image ErrFailedPrecondition; a bad request ErrInvalidArgument. Other
// errors are returned as they are.
func Classify(err error) error {
	var unreachable *bindings.UnreachableError
	var missing *bindings.ImageMissingError
	var bad *runner.RequestError
	var op *net.OpError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &unreachable),
		errors.As(err, &op) && op.Op == "dial",
		errors.Is(err, syscall.ECONNREFUSED):
		return sandbox.Mark(err, sandbox.ErrUnavailable)
	case errors.As(err, &missing), errors.Is(err, bindings.ErrTooOld), errors.Is(err, cgroupdrv.ErrUnsupported):
		return sandbox.Mark(err, sandbox.ErrFailedPrecondition)
	case errors.As(err, &bad):
		return sandbox.Mark(err, sandbox.ErrInvalidArgument)
	}
	return err
}

// FindShim resolves podjail-plugin's --shim as podjail does (see
// plugin.FindShim).
func FindShim(flagValue string) (string, error) { return plugin.FindShim(flagValue) }

// BuildVersion is podjail's version: Version when set at link time, else
// the module version or the VCS revision the binary was built from.
func BuildVersion() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}
