package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox/engine"
)

// omegajailFront answers -h/--help and -V/--version as clap does for
// omegajail, on stdout with exit 0; any other command line goes to
// omegajailCommand, which parses it again (the same pure ParseArgs).
func omegajailFront(ctx context.Context, args []string, stdout, stderr io.Writer, log hclog.Logger) int {
	_, err := omegajail.ParseArgs(args)
	switch {
	case errors.Is(err, omegajail.ErrHelp):
		fmt.Fprint(stdout, omegajail.Usage())
		return exitOK
	case errors.Is(err, omegajail.ErrVersion):
		fmt.Fprintf(stdout, "omegajail (podjail %s)\n", engine.BuildVersion())
		return exitOK
	}
	return omegajailCommand(ctx, args, stderr, log)
}

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
	// The compile's sources, target and flags, or the run's target: what
	// podjail cannot do is refused before a container starts.
	var runArgv []string
	if req.Mode == omegajail.ModeCompile {
		l, err = omegajail.CompileLanguage(l, req)
	} else {
		runArgv, err = omegajail.RunCommand(l, req)
	}
	if err != nil {
		return fail(omegajail.UsageExitCode, err)
	}
	var meta omegajail.Meta
	if req.Mode == omegajail.ModeCompile {
		meta, err = omegajailCompile(ctx, req, l, log)
	} else {
		meta, err = omegajailRun(ctx, req, l, runArgv, log)
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

// omegajailCompile builds the sources of the home directory with l (its
// compile command, artefacts and hint made for the request by
// omegajail.CompileLanguage) and puts the artefacts beside them; the
// compiler's messages go where the Runner reads them (writeCompileMessages).
// The build goes through the service when one answers (frontRun): the
// sources go in and the artefacts come back on the call.
func omegajailCompile(ctx context.Context, req omegajail.Request, l lang.Language, log hclog.Logger) (omegajail.Meta, error) {
	files, err := readSources(req.Homedir, req.CompileSources)
	if err != nil {
		return omegajail.Meta{}, err
	}
	l = plugin.OmegajailBuildLanguage(req, l)
	build := func(ctx context.Context, run runner.RunRequest, f plugin.Files) (runner.RunResult, error) {
		res, err := frontRun(ctx, run, f, log)
		return res.RunResult, err
	}
	start := time.Now()
	b, err := plugin.BuildWith(ctx, build, l, files, "")
	if b.Dir != "" {
		defer os.RemoveAll(b.Dir)
	}
	if err != nil {
		return omegajail.Meta{}, err
	}
	status := compileStatus(b)
	if err := writeCompileMessages(req, compileMessages(b, status)); err != nil {
		return omegajail.Meta{}, err
	}
	if status == 0 {
		if err := copyArtefacts(b.Dir, req.Homedir, l.Artefacts); err != nil {
			return omegajail.Meta{}, err
		}
	}
	return omegajail.Meta{TimeUs: b.Time.Microseconds(), WallTimeUs: time.Since(start).Microseconds(),
		MemBytes: max(b.Peak, 0), ExitStatus: &status}, nil
}

// writeCompileMessages puts a compile's messages in the file the Runner
// reads a compile error from: -1 (compile.out) for Pascal and C#, whose
// compilers print errors on stdout, -2 for the rest. The other is made
// empty.
func writeCompileMessages(req omegajail.Request, messages string) error {
	out, errOut := "", messages
	if omegajail.CompileMessagesOnStdout(req.Language) {
		out, errOut = messages, ""
	}
	if err := writeIfNamed(req.Stdout, []byte(out)); err != nil {
		return err
	}
	return writeIfNamed(req.Stderr, []byte(errOut))
}

// readSources reads each --compile-source from the home directory.
func readSources(homedir string, names []string) (map[string][]byte, error) {
	files := make(map[string][]byte, len(names))
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(homedir, name))
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	return files, nil
}

// compileStatus is the compile's status in the .meta, omegajail's: the
// compiler's. 0 when the build succeeded, and also when the compiler did
// but an artefact is missing (a Java class not named as the target:
// omegajail's javac succeeds, and the Runner itself finds no Main.class
// and writes its own "Class `Main` not found" to compile.err); 1 for a
// compiler that failed or a build stopped at its limits.
func compileStatus(b plugin.BuildResult) int {
	if b.OK || b.Missing != "" {
		return 0
	}
	return 1
}

// compileMessages is what -2 gets for a compile of that status: the
// compiler's output, or, when a failed build printed nothing (a build
// stopped at its limit), the build's note, so the contestant reads why.
func compileMessages(b plugin.BuildResult, status int) string {
	if status == 0 || b.Output != "" || b.Note == "" {
		return b.Output
	}
	return b.Note + "\n"
}

// copyArtefacts copies the named artefacts from dir into the home
// directory, mode 0755. One the build did not make is left out: the
// Runner looks for what it needs (Main.class) itself.
func copyArtefacts(dir, homedir string, names []string) error {
	for _, a := range names {
		data, err := os.ReadFile(filepath.Join(dir, a))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(homedir, a), data, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// omegajailRun runs argv (the run target, from omegajail.RunCommand) in
// the home directory (mounted read-only) on -0, stdout to -1, stderr to -2,
// through the service when one answers (frontRun).
func omegajailRun(ctx context.Context, req omegajail.Request, l lang.Language, argv []string, log hclog.Logger) (omegajail.Meta, error) {
	homedir, err := filepath.Abs(req.Homedir)
	if err != nil {
		return omegajail.Meta{}, err
	}
	run := omegajailRunRequest(req, l, homedir, argv)
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
	res, err := frontRun(ctx, run, plugin.Files{}, log)
	if err != nil {
		return omegajail.Meta{}, err
	}
	if res.Verdict == plugin.IE {
		// No .meta: the Runner must not read a verdict into our failure.
		return omegajail.Meta{}, fmt.Errorf("the run never started: %s", res.VerdictNote)
	}
	return omegajailMeta(res, req.Language, memoryLimit(req), req.CPUTimeLimit()), nil
}

// memoryLimit is -m in bytes, 0 when not given.
func memoryLimit(req omegajail.Request) int64 {
	if req.MemoryLimit == nil {
		return 0
	}
	return int64(*req.MemoryLimit)
}

// omegajailRunRequest is the run of argv, l's run command for the run
// target with the extra arguments (omegajail.RunCommand). As in
// omegajail, the home directory is the working directory, /home, with
// HOME=/home: omegaUp's validators open data.in, data.out and meta.in
// relative to it. The languages' commands find the artefacts at
// lang.ArtefactDir, the same directory mounted there too.
func omegajailRunRequest(req omegajail.Request, l lang.Language, homedir string, argv []string) runner.RunRequest {
	run := runner.RunRequest{
		Image:   l.RunImage,
		Command: slices.Clone(argv),
		Binds: []bindings.Bind{
			{Source: homedir, Destination: lang.ArtefactDir},
			{Source: homedir, Destination: omegajailHome},
		},
		WorkDir:        omegajailHome,
		Env:            append(slices.Clone(l.Env), "HOME="+omegajailHome),
		MemoryExitCode: l.MemoryExitCode,
		// The processes omegajail's policy for the language refuses.
		Tasks: omegajail.RunTasks(req.Language),
	}
	plugin.OmegajailLimits(req).Set(&run)
	if m := memoryLimit(req); m > 0 {
		// omegajail's headroom for the language above -m.
		run.Limits.Memory = omegajail.RunMemoryLimit(req.Language, m)
	}
	run.Limits.Stack = plugin.RunStack(l, run.Limits.Memory)
	if req.Stdin != "" && req.Stdin != "-" {
		run.InputFile = req.Stdin
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

// omegajailMeta says in omegajail's terms how a run of omegaName under -m
// memoryLimit ended: the Runner turns SIGXCPU into TLE, SIGXFSZ into OLE,
// memory above the limit into MLE and SIGSYS into RFE. The memory is the
// peak less the runtime's baseline, as omegajail reports it. cpuLimit is
// where omegajail's RLIMIT_CPU would have stopped the program
// (omegajail.Request.CPUTimeLimit; 0: none): a run charged that much, or
// stopped at a deadline, got SIGXCPU whatever it did after; one over -t
// but short of it ended as it did, as under omegajail.
func omegajailMeta(res plugin.JudgedRun, omegaName string, memoryLimit int64, cpuLimit time.Duration) omegajail.Meta {
	m := omegajail.Meta{TimeUs: res.Measure.Time.Microseconds(), WallTimeUs: res.Wall.Microseconds(),
		MemBytes: omegajail.ReportedMemory(omegaName, max(res.Measure.Peak, 0))}
	// "time" is user time, "time-sys" system time: split as the charged
	// figure's reading splits them.
	if rep := res.Report; rep != nil {
		switch res.Measure.Time {
		case res.Measure.ShimTime:
			m.TimeUs, m.SysTimeUs = rep.UserUs, rep.SysUs
		case res.Measure.ProgramCPU:
			m.TimeUs, m.SysTimeUs = rep.CgroupUserUs, rep.CgroupSysUs
		}
	}
	verdict := res.Verdict
	if verdict == plugin.TLE && !res.Killed.Deadline() && cpuLimit > 0 && res.Measure.Time < cpuLimit {
		verdict = plugin.AC // below the rlimit: how it ended decides
		if res.Measure.MemoryExceeded {
			verdict = plugin.MLE
		}
	}
	switch verdict {
	case plugin.TLE:
		m.Signal = "SIGXCPU"
	case plugin.OLE:
		m.Signal = "SIGXFSZ"
	case plugin.MLE:
		m.Signal = "SIGKILL"
		m.MemBytes = max(m.MemBytes, memoryLimit+1, omegajail.ReportedMemory(omegaName, res.Measure.ContainerPeak))
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
