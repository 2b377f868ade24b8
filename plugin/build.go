package plugin

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/shim"
)

// Build limits besides the language's own time and memory.
const (
	buildOutputKeep  = 64 << 10 // compiler output kept for a CE
	buildOutputLimit = 4 << 20  // past it the build is stopped
	buildPids        = 128      // gcc runs cc1, as, collect2, ld
	maxArtefactBytes = 256 << 20
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
	Note string        `json:"note,omitempty"`
	Time time.Duration `json:"time_ns"`
	Peak int64         `json:"peak_bytes"`
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
	timeLimit, memory := l.BuildLimits()
	out := &headBuffer{keep: buildOutputKeep}
	missing := ""
	req := RunRequest{
		Image:       l.BuildImage,
		Command:     append(append([]string{}, mergeStderr...), l.Compile...),
		Env:         l.Env,
		Output:      out,
		OutputLimit: buildOutputLimit,
		MemoryBytes: memory,
		Pids:        buildPids,
		CPULimit:    timeLimit,
		WallLimit:   3*timeLimit + 10*time.Second,
		Writable:    true,
		WorkDir:     lang.BuildDir,
		Collect: func(ctx context.Context, rt bindings.Runtime, id string) error {
			for _, a := range l.Artefacts {
				err := copyArtefact(ctx, rt, id, path.Join(lang.BuildDir, a), filepath.Join(dir, a))
				if errors.Is(err, bindings.ErrNotFound) {
					missing = a
					return nil
				}
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	run, err := r.runBuild(ctx, req, files, tmpDir)
	if err != nil {
		return res, fmt.Errorf("build: %w", err)
	}
	res.Output, res.Time, res.Peak = out.String(), run.Measure.Time, run.Measure.Peak
	switch {
	case run.Killed != "":
		res.Note = "compilation stopped: " + run.Killed + " (" + run.KilledNote + ")"
	case run.Measure.MemoryExceeded:
		res.Note = "compilation hit its memory limit"
	case run.Signal != "":
		res.Note = "the compiler was killed by " + run.Signal
	case run.ExitCode != 0:
		res.Note = fmt.Sprintf("the compiler exited with code %d", run.ExitCode)
	case missing != "":
		res.Note = "the build made no " + missing
		if l.ArtefactHint != "" {
			res.Note += ": " + l.ArtefactHint
		}
	default:
		res.OK = true
	}
	return res, nil
}

// runBuild puts the source files into req's container and runs it: as the
// shim's input to unpack, which lets a Warm arm the build ahead, or without
// the shim copied in through the API once the container is made.
func (r *Runner) runBuild(ctx context.Context, req RunRequest, files map[string][]byte, tmpDir string) (RunResult, error) {
	if r.Shim == "" {
		req.Prepare = func(ctx context.Context, rt bindings.Runtime, id string) error {
			return rt.CopyIn(ctx, id, "/", sourceTar(files))
		}
		return r.Run(ctx, req)
	}
	f, err := os.CreateTemp(tmpDir, "podjail-sources-")
	if err != nil {
		return RunResult{}, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(shim.Pack(files))
	// Bind-mounted: the Podman service reads it.
	if err = errors.Join(err, f.Chmod(0o644), f.Close()); err != nil {
		return RunResult{}, err
	}
	req.InputFile, req.UnpackInput = f.Name(), true
	if r.builds != nil {
		return r.builds.Run(ctx, req)
	}
	return r.Run(ctx, req)
}

// sourceTar is a tar stream of BuildDir holding the files, in name order.
// The directory is world-writable: Podman's copy makes the container's
// user (root, for the shim) its owner, and the compiler runs as 65534.
func sourceTar(files map[string][]byte) io.Reader {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	dir := path.Base(lang.BuildDir) + "/"
	now := time.Now()
	_ = tw.WriteHeader(&tar.Header{Name: dir, Typeflag: tar.TypeDir, Mode: 0o777, Uid: 65534, Gid: 65534, ModTime: now})
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		_ = tw.WriteHeader(&tar.Header{Name: dir + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), Uid: 65534, Gid: 65534, ModTime: now})
		_, _ = tw.Write(data)
	}
	_ = tw.Close()
	return &b
}

// checkBuildFiles refuses an empty set of files and any name that is not
// a plain file name.
func checkBuildFiles(files map[string][]byte) error {
	if len(files) == 0 {
		return &RequestError{"source", errors.New("no source file given")}
	}
	for name := range files {
		if err := shim.CheckFileName(name); err != nil {
			return &RequestError{"source", err}
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

// copyArtefact copies one regular file out of a stopped container.
func copyArtefact(ctx context.Context, rt bindings.Runtime, id, src, dst string) error {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := rt.CopyOut(ctx, id, src, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	err := extractOne(pr, dst)
	// Read the stream to its end so the copy finishes rather than fails.
	_, _ = io.Copy(io.Discard, pr)
	if cerr := <-done; cerr != nil && err == nil {
		return cerr
	}
	return err
}

func extractOne(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("%w: %s is not in the copy", bindings.ErrNotFound, filepath.Base(dst))
		}
		if err != nil {
			return fmt.Errorf("read artefact archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > maxArtefactBytes {
			return fmt.Errorf("artefact %s is %d bytes, over %d", h.Name, h.Size, maxArtefactBytes)
		}
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
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
