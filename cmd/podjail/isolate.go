package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/isolate"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox/engine"
	"github.com/podjail/podjail/shim"
)

// isolateDefaultImage holds the programs an isolate user runs by their
// host paths (/usr/bin/g++, /bin/bash): isolate runs them from the host's
// root, podjail from this image. PODJAIL_ISOLATE_IMAGE overrides it.
const isolateDefaultImage = "localhost/podjail-gcc:latest"

// isolateCommand does what CMS and Judge0 ask of isolate (see
// docs/isolate.md): --init makes the box directory, each --run runs in a
// fresh container with the box mounted read-write at /box, --cleanup
// removes it. Exit codes are isolate's: 0 ok, 1 the program failed, 2 a
// sandbox error.
func isolateCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, log hclog.Logger) int {
	cmd, err := isolate.ParseArgs(args)
	if err != nil {
		return isolateRejects(err, stdout, stderr)
	}
	root := isolateRoot()
	switch cmd.Mode {
	case isolate.ModeInit:
		handBackBox(ctx, root, cmd.BoxID, log)
		dir, err := isolate.InitBox(root, cmd.BoxID)
		if err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			return isolate.ExitSandbox
		}
		// The program runs as 65534 and must write its box; the box's
		// directory, 0700, keeps every other local user out of it.
		if err := os.Chmod(filepath.Join(dir, isolate.BoxSubdir), 0o777); err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			return isolate.ExitSandbox
		}
		fmt.Fprintln(stdout, dir)
		return isolate.ExitOK
	case isolate.ModeVersion:
		// Judge0 shows this text (GET /isolate); it says what answers.
		fmt.Fprintf(stdout, "The process isolator: podjail's isolate front (isolate 2.x command line)\npodjail %s\nSandbox directory: %s\nEach --run is a fresh Podman container; see podjail's docs/isolate.md\n", engine.BuildVersion(), root)
		return isolate.ExitOK
	case isolate.ModeCleanup:
		handBackBox(ctx, root, cmd.BoxID, log)
		if err := isolate.CleanupBox(root, cmd.BoxID); err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			return isolate.ExitSandbox
		}
		return isolate.ExitOK
	case isolate.ModeRun:
		meta, err := isolateRun(ctx, cmd, root, stdin, stdout, stderr, log)
		if err != nil {
			meta = isolate.Failed(err.Error())
			fmt.Fprintf(stderr, "%v\n", err)
		}
		if cmd.Meta != "" {
			if werr := writeIsolateMeta(cmd.Meta, stdout, meta); werr != nil {
				fmt.Fprintf(stderr, "%v\n", werr)
				return isolate.ExitSandbox
			}
		}
		if cmd.Silent == 0 && meta.Status != "" {
			fmt.Fprintln(stderr, meta.Message)
		} else if cmd.Silent == 0 {
			fmt.Fprintln(stderr, "OK")
		}
		return isolate.ExitCode(meta)
	}
	fmt.Fprintf(stderr, "podjail isolate: %s is not supported\n", cmd.Mode)
	return isolate.ExitSandbox
}

// isolateRejects answers a command line isolate rejects as isolate does
// (isolate.c, usage()): its message on stderr, getopt's or isolate's own
// with its "Try ... --help" line; after an error of getopt's, --help
// among them (isolate has no such option), its usage on stdout; exit 2
// either way. Judges read the status and stderr; the usage is for people.
func isolateRejects(err error, stdout, stderr io.Writer) int {
	var ue *isolate.UsageError
	if !errors.As(err, &ue) {
		fmt.Fprintln(stderr, err)
		return isolate.ExitSandbox
	}
	fmt.Fprint(stderr, ue.Message)
	if ue.Help {
		fmt.Fprint(stdout, isolate.Usage+isolate.FrontNotes)
	}
	return isolate.ExitSandbox
}

// isolateRoot is where boxes live: $PODJAIL_ISOLATE_ROOT, isolate's own
// root for root, a directory of the user's otherwise.
func isolateRoot() string {
	if r := os.Getenv("PODJAIL_ISOLATE_ROOT"); r != "" {
		return r
	}
	if os.Geteuid() == 0 {
		return isolate.DefaultBoxRoot
	}
	return fmt.Sprintf("/var/tmp/podjail-isolate-%d", os.Geteuid())
}

// sandboxFS maps paths inside the sandbox to host paths through the box
// and the --dir rules, longest prefix first.
type sandboxFS struct {
	mounts []bindings.Bind
}

// host maps inside to a host path that podjail then opens itself, so it
// must not let the program (which can write the box) steer it elsewhere:
// the path's directories may not leave the mount through a symlink, and
// the file itself may not be one. forWriting needs a read-write mount.
func (s sandboxFS) host(inside, cwd string, forWriting bool) (string, error) {
	if !path.IsAbs(inside) {
		inside = path.Join(cwd, inside)
	}
	for _, m := range s.mounts {
		rel, ok := strings.CutPrefix(inside, m.Destination)
		if !ok || (rel != "" && rel[0] != '/') {
			continue
		}
		if forWriting && !m.Writable {
			return "", fmt.Errorf("%s is on a read-only directory of the sandbox", inside)
		}
		p := filepath.Join(m.Source, rel)
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return "", err
		}
		src, err := filepath.EvalSymlinks(m.Source)
		if err != nil {
			return "", err
		}
		if dir != src && !strings.HasPrefix(dir, src+string(filepath.Separator)) {
			return "", fmt.Errorf("%s leaves its directory through a symbolic link", inside)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link", inside)
		}
		return filepath.Join(dir, filepath.Base(p)), nil
	}
	return "", fmt.Errorf("%s is not in the box or a --dir of the sandbox", inside)
}

// create makes (or truncates) a file podjail writes for the program,
// refusing to follow a symlink planted in its place.
func create(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|unix.O_NOFOLLOW, 0o666)
}

// isDevNull says r is /dev/null (a caller that gives no stdin): the
// program's stdin is then empty, and a service can have its run armed.
func isDevNull(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

func isFIFO(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

// openFIFO opens a named pipe, which blocks until its other end is
// opened (CMS's manager opens its ends in the order isolate opens the
// program's: stdin, then stdout), for at most bound.
func openFIFO(p string, flag int, bound time.Duration) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(p, flag|unix.O_NOFOLLOW, 0)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-time.After(bound):
		return nil, fmt.Errorf("the pipe %s: its other end was not opened within %v (the program on the other side, a Communication task's manager, must open it: did it fail or never start?)", p, bound)
	}
}

// fifoPartnerWait is how long a pipe's open may wait beyond -w for its
// other end. That end is another sandbox's program (CMS's manager), which
// opens it only once its own container has started: under load that takes
// seconds, where isolate's takes milliseconds. armTimeout's two minutes
// are podjail's bound for a container that does not start at all.
const fifoPartnerWait = 2 * time.Minute

// fifoBound is how long a run waits for the other end of a pipe. The wait
// comes before the program exists, so it is never charged to the program's
// -w, which counts from the go; it is bounded only so that a partner that
// died before opening its end (a manager that failed) cannot hold a run
// for ever: its -w, as isolate's open would, plus the partner's start.
func fifoBound(cmd isolate.Command) time.Duration {
	return cmd.WallTime + fifoPartnerWait
}

// stderrFile makes (empty) the file a run's stderr goes to, writable by
// the container's root: the shim opens it there, and rootful that root
// holds no CAP_DAC_OVERRIDE over the caller's file.
func stderrFile(p string) error {
	f, err := create(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(0o666)
}

// stderrTemp makes an empty file for a program's stderr, writable by the
// container's root (see stderrFile), in a directory of its own (0700) so
// that no other local user reads or writes it; remove removes both.
func stderrTemp() (f *os.File, remove func(), err error) {
	dir, err := os.MkdirTemp("", "podjail-stderr-")
	if err != nil {
		return nil, nil, fmt.Errorf("a file for the program's stderr: %w", err)
	}
	remove = func() { _ = os.RemoveAll(dir) }
	if f, err = os.Create(filepath.Join(dir, "stderr")); err == nil {
		if err = f.Chmod(0o666); err != nil {
			f.Close()
		}
	}
	if err != nil {
		remove()
		return nil, nil, fmt.Errorf("a file for the program's stderr: %w", err)
	}
	return f, remove, nil
}

func isolateRun(ctx context.Context, cmd isolate.Command, root string, stdin io.Reader, stdout, stderr io.Writer, log hclog.Logger) (isolate.Meta, error) {
	box := filepath.Join(isolate.BoxDir(root, cmd.BoxID), isolate.BoxSubdir)
	if _, err := os.Stat(box); err != nil {
		return isolate.Meta{}, fmt.Errorf("box %d is not initialized (run --init): %v", cmd.BoxID, err)
	}
	fsys := sandboxFS{mounts: []bindings.Bind{{Source: box, Destination: "/box", Writable: true}}}
	for _, d := range cmd.Dirs {
		// Host system directories bound onto themselves (/etc, /usr) are
		// the image's in podjail; only directories of the judge's own
		// (CMS's home) are mounted.
		out := d.Outside
		if !filepath.IsAbs(out) {
			out = filepath.Join(isolate.BoxDir(root, cmd.BoxID), out)
		}
		out = filepath.Clean(out)
		if d.Remove || d.Flags.Has(isolate.DirTmp) || d.Flags.Has(isolate.DirFS) || out == "/"+d.Inside {
			continue
		}
		if _, err := os.Stat(out); err != nil && d.Flags.Has(isolate.DirMaybe) {
			continue
		}
		fsys.mounts = append(fsys.mounts, bindings.Bind{Source: out, Destination: "/" + d.Inside, Writable: d.Flags.Has(isolate.DirRW)})
	}
	sort.Slice(fsys.mounts, func(i, j int) bool { return len(fsys.mounts[i].Destination) > len(fsys.mounts[j].Destination) })
	cwd := cmd.Chdir
	if cwd == "" {
		cwd = "/box"
	}
	image := os.Getenv("PODJAIL_ISOLATE_IMAGE")
	if image == "" {
		image = isolateDefaultImage
	}
	prog := append([]string{}, cmd.Program...)
	if len(prog) == 0 {
		return isolate.Meta{}, fmt.Errorf("no program to run")
	}
	if !path.IsAbs(prog[0]) {
		// isolate execs the program as named, without a PATH search: a
		// bare name is a file of the working directory.
		prog[0] = path.Join(cwd, prog[0])
	}
	run := runner.RunRequest{
		Image:   image,
		Command: prog,
		Binds:   fsys.mounts,
		WorkDir: cwd,
		Output:  stdout,
	}
	plugin.IsolateLimits(cmd).Set(&run)
	run.Env = isolate.ProgramEnv(cmd.Env, cmd.FullEnv, os.Environ())
	switch {
	case cmd.Stdin != "":
		if cmd.Stdin != "/dev/null" {
			in, err := fsys.host(cmd.Stdin, "/box", false)
			if err != nil {
				return isolate.Meta{}, err
			}
			if isFIFO(in) {
				// A CMS communication pipe: opened now, before stdout, in
				// isolate's order, and streamed to the program.
				f, err := openFIFO(in, os.O_RDONLY, fifoBound(cmd))
				if err != nil {
					return isolate.Meta{}, err
				}
				defer f.Close()
				run.StdinStream = f
			} else {
				run.InputFile = in
			}
		}
	case stdin != nil && !isDevNull(stdin):
		run.StdinStream = stdin
	}
	if cmd.Stdout != "" {
		out, err := fsys.host(cmd.Stdout, "/box", true)
		if err != nil {
			return isolate.Meta{}, err
		}
		var f *os.File
		if isFIFO(out) {
			f, err = openFIFO(out, os.O_WRONLY, fifoBound(cmd))
		} else {
			f, err = create(out)
		}
		if err != nil {
			return isolate.Meta{}, err
		}
		defer f.Close()
		run.Output = f
	}
	switch {
	case cmd.StderrToStdout:
		run.StderrToStdout = true
	case cmd.Stderr != "":
		errPath, err := fsys.host(cmd.Stderr, "/box", true)
		if err != nil {
			return isolate.Meta{}, err
		}
		if err := stderrFile(errPath); err != nil {
			return isolate.Meta{}, err
		}
		run.StderrFile = errPath
	}
	if !run.StderrToStdout && run.StderrFile == "" {
		// isolate's program writes to isolate's own stderr (Judge0 shows
		// it): kept in a file meanwhile, passed on once it ended.
		f, remove, err := stderrTemp()
		if err != nil {
			return isolate.Meta{}, err
		}
		defer remove()
		defer f.Close()
		run.StderrFile = f.Name()
		defer io.Copy(stderr, f)
	}
	res, err := frontRun(ctx, run, plugin.Files{}, log)
	// As isolate does after every run: the caller gets back what the
	// program made (Judge0 chmods and removes it, CMS reads and deletes).
	var writable []string
	for _, m := range fsys.mounts {
		if m.Writable {
			writable = append(writable, m.Source)
		}
	}
	if herr := runner.HandBack(context.WithoutCancel(ctx), writable); herr != nil {
		log.Warn("could not give the sandbox's files back", "error", herr)
	}
	var shimErr *runner.ShimError
	if errors.As(err, &shimErr) && shimErr.Step == string(shim.StepStart) {
		log.Debug("the program could not be executed", "error", err)
		return isolate.NotExecutable(isolate.Stats{CG: cmd.CG}), nil
	}
	if err != nil {
		return isolate.Meta{}, err
	}
	if res.Status() == runner.StatusNeverStarted {
		return isolate.Meta{}, fmt.Errorf("the run never started: %s with no processor time recorded (%s); is the host overloaded, or did its container runtime fail?", res.Killed, res.KilledNote)
	}
	if cmd.WallTime == 0 && res.Killed == runner.KilledWallLimit {
		log.Warn("the program was stopped at the front's cap on a run without -w", "cap", isolate.WallCap)
	}
	return isolateMeta(cmd, res), nil
}

// isolateMeta says in isolate's terms how the run ended, in box_keeper's
// order: a time limit passed (processor, then wall clock) whatever the
// program did after, then a signal, then the exit status. The time is
// podjail's charge: every process of the program.
func isolateMeta(cmd isolate.Command, res plugin.JudgedRun) isolate.Meta {
	m := res.Measure
	s := isolate.Stats{Time: m.Time, WallTime: res.Wall, MaxRSSKiB: max(m.Peak, 0) >> 10, CG: cmd.CG,
		CgMemKiB: max(m.Peak, 0) >> 10, CgOOMKilled: m.MemoryExceeded}
	killed := res.Killed.Deadline()
	if over, wall := cmd.TimedOut(m.Time, res.Wall); over {
		return isolate.TimedOut(s, wall, killed)
	}
	switch {
	case killed:
		// Stopped at a deadline a hair before the figures show it passed
		// (the processor ceiling counts the container's cgroup), or at the
		// front's cap on a run without -w.
		return isolate.TimedOut(s, res.Killed == runner.KilledWallLimit, true)
	case res.Signal != "":
		return isolate.Signaled(s, shim.SignalNumber(res.Signal))
	}
	return isolate.Exited(s, int(res.ExitCode))
}

func writeIsolateMeta(file string, stdout io.Writer, m isolate.Meta) error {
	w := stdout
	if file != "-" {
		f, err := os.Create(file)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	return isolate.WriteMeta(w, m)
}

// handBackBox is handBack for a whole box before --init or --cleanup
// removes it; a box that is not there is nothing to do.
func handBackBox(ctx context.Context, root string, id int, log hclog.Logger) {
	dir := isolate.BoxDir(root, id)
	if _, err := os.Lstat(dir); err != nil {
		return
	}
	if err := runner.HandBack(ctx, []string{dir}); err != nil {
		log.Warn("could not take the box back before removing it", "box", dir, "error", err)
	}
}
