package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/shim"
)

// Build limits besides the language's own time and memory.
const (
	buildOutputKeep = 64 << 10 // compiler output kept for a CE
)

// mergeStderr runs argv with its stderr on stdout (the shim gives programs
// stderr /dev/null; a compiler's messages are on stderr).
var mergeStderr = []string{"/bin/sh", "-c", `exec "$0" "$@" 2>&1`}

// BuildResult is the build step's outcome. A failed build is a value (CE),
// not an error.
type BuildResult struct {
	// OK says the artefacts are in Dir.
	OK bool `json:"ok"`
	// Output is the compiler's output (stdout and stderr), at most 64 KiB.
	Output string `json:"output,omitempty"`
	// Note says why the build failed, when it did.
	Note string `json:"note,omitempty"`
	// Missing names the artefact the build failed for lacking, when the
	// compiler itself succeeded (a Java class not named as the target):
	// a front whose tool reports the compiler's status alone (omegajail)
	// reads that as a success and leaves the judge to find the artefact
	// missing. Empty otherwise.
	Missing string        `json:"missing,omitempty"`
	Time    time.Duration `json:"time_ns"`
	Peak    int64         `json:"peak_bytes"`
	// Dir is the host directory holding the artefacts (for a language
	// with nothing to compile, the source), mode 0755; the caller removes it.
	Dir string `json:"-"`
}

// Build compiles source (the submission's text) for l in a fresh container
// of l.BuildImage: the source goes in as the shim's input to unpack (or,
// without the shim, through the API), the compiler writes in the
// container's own layer, the artefacts come back through the API into a
// new directory under tmpDir. Languages with no compile step just get
// their source there. With a Warm (NewWarm), the build takes a container
// armed ahead for its language.
func (r *Runner) Build(ctx context.Context, l lang.Language, source []byte, tmpDir string) (BuildResult, error) {
	return r.BuildFiles(ctx, l, map[string][]byte{l.Source: source}, tmpDir)
}

// BuildFiles is Build with several files: each is written into
// lang.BuildDir under its name, a plain file name (no slash, not "." or
// ".."), and l.Compile names the ones to compile (Build's one file is
// l.Source). A language with no compile step gets every file in the
// artefact directory. An empty map or a bad name is a *RequestError.
func (r *Runner) BuildFiles(ctx context.Context, l lang.Language, files map[string][]byte, tmpDir string) (BuildResult, error) {
	res, err := BuildWith(ctx, r.RunFiles, l, files, tmpDir)
	r.observe().Built(res, err)
	return res, err
}

// BuildWith is BuildFiles with the build run by run: a Runner's RunFiles,
// or a service's (a front's build, through podjail serve).
func BuildWith(ctx context.Context, run func(context.Context, runner.RunRequest, Files) (runner.RunResult, error), l lang.Language, files map[string][]byte, tmpDir string) (BuildResult, error) {
	if err := checkBuildFiles(files); err != nil {
		return BuildResult{}, err
	}
	dir, err := os.MkdirTemp(tmpDir, "podjail-artefact-")
	if err != nil {
		return BuildResult{}, err
	}
	// Read by the program, 65534 inside the container.
	if err := os.Chmod(dir, 0o755); err != nil {
		return BuildResult{}, err
	}
	res := BuildResult{Dir: dir}
	if len(l.Compile) == 0 {
		res.OK = true
		return res, writeFiles(dir, files)
	}
	out := &headBuffer{keep: buildOutputKeep}
	req := runner.RunRequest{
		Image:    l.BuildImage,
		Command:  append(append([]string{}, mergeStderr...), l.Compile...),
		Env:      l.Env,
		Output:   out,
		Writable: true,
		WorkDir:  lang.BuildDir,
	}
	buildLimits(l).Set(&req)
	ran, err := run(ctx, req, Files{In: files, Out: l.Artefacts, OutDir: dir, TmpDir: tmpDir})
	if err != nil {
		return res, fmt.Errorf("build: %w", err)
	}
	res.Output, res.Time, res.Peak = out.String(), ran.Measure.Time, ran.Measure.Peak
	res.Note, res.Missing = buildNote(ran, l, dir)
	res.OK = res.Note == ""
	return res, nil
}

// buildNote says why a build failed, "" when it did not: stopped, out of
// memory, the compiler failed, or an artefact missing from dir (then
// missing names it).
func buildNote(run runner.RunResult, l lang.Language, dir string) (note, missing string) {
	switch {
	case run.Killed != runner.NotKilled:
		return "compilation stopped: " + run.Killed.String() + " (" + run.KilledNote + ")", ""
	case run.Measure.MemoryExceeded:
		return "compilation hit its memory limit", ""
	case run.Signal != "":
		return "the compiler was killed by " + run.Signal, ""
	case run.ExitCode != 0:
		return fmt.Sprintf("the compiler exited with code %d", run.ExitCode), ""
	}
	for _, a := range l.Artefacts {
		if _, err := os.Lstat(filepath.Join(dir, a)); err != nil {
			note := "the build made no " + a
			if l.ArtefactHint != "" {
				note += ": " + l.ArtefactHint
			}
			return note, a
		}
	}
	return "", ""
}

// Files is what a run puts into its working directory before the program
// starts and takes out of it once the program ended: a build's sources
// and artefacts.
type Files struct {
	// In are written into the run's WorkDir, each under its name (a plain
	// file name), just before the program starts, its stdin then empty:
	// by the shim, which lets a Warm arm the run before they are known, or
	// without the shim copied in through Podman. Zero value: none.
	In map[string][]byte
	// Out names files of WorkDir copied, once the program ended, into
	// OutDir, a host directory, mode 0755; one the program did not make is
	// left out. Zero value: none.
	Out    []string
	OutDir string
	// TmpDir holds the packed In during the run; the Podman service must
	// be able to read it. Zero value: os.TempDir().
	TmpDir string
}

// RunFiles runs req with f's files put into its WorkDir and taken out of
// it, through the Runner's Warm when it has one (NewWarm).
func (r *Runner) RunFiles(ctx context.Context, req runner.RunRequest, f Files) (runner.RunResult, error) {
	if (len(f.In) > 0 || len(f.Out) > 0) && !path.IsAbs(req.WorkDir) {
		return runner.RunResult{Image: req.Image}, &runner.RequestError{Field: "files", Err: errors.New("files to put in or take out need an absolute working directory")}
	}
	for _, name := range append(slices.Collect(maps.Keys(f.In)), f.Out...) {
		if err := shim.CheckFileName(name); err != nil {
			return runner.RunResult{Image: req.Image}, &runner.RequestError{Field: "files", Err: err}
		}
	}
	if len(f.Out) > 0 {
		req.Copy.Out, req.Copy.OutDir = f.Out, f.OutDir
	}
	switch {
	case len(f.In) == 0:
	case r.Shim == "":
		req.Copy.In = f.In
		return r.Run(ctx, req)
	default:
		if req.InputFile != "" || req.StdinStream != nil {
			return runner.RunResult{Image: req.Image}, &runner.RequestError{Field: "input", Err: errors.New("files to put in and an input are exclusive (the program's stdin is empty)")}
		}
		packed, err := os.CreateTemp(f.TmpDir, "podjail-sources-")
		if err != nil {
			return runner.RunResult{}, err
		}
		defer os.Remove(packed.Name())
		_, err = packed.Write(shim.Pack(f.In))
		// Bind-mounted: the Podman service reads it.
		if err = errors.Join(err, packed.Chmod(0o644), packed.Close()); err != nil {
			return runner.RunResult{}, err
		}
		req.InputFile, req.Copy.Unpack = packed.Name(), true
	}
	if r.builds != nil {
		return r.builds.Run(ctx, req)
	}
	return r.Run(ctx, req)
}

// checkBuildFiles refuses an empty set of files and any name that is not
// a plain file name.
func checkBuildFiles(files map[string][]byte) error {
	if len(files) == 0 {
		return &runner.RequestError{Field: "source", Err: errors.New("no source file given")}
	}
	for name := range files {
		if err := shim.CheckFileName(name); err != nil {
			return &runner.RequestError{Field: "source", Err: err}
		}
	}
	return nil
}

// writeFiles writes each file into dir, mode 0644.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// headBuffer keeps the first keep bytes written to it and discards the
// rest, never failing a write.
type headBuffer struct {
	keep int
	buf  bytes.Buffer
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.keep - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (h *headBuffer) String() string { return h.buf.String() }
