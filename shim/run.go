package shim

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapDeadline bounds the wait for killed processes to go.
const reapDeadline = 5 * time.Second

// Main is the whole shim: it returns the exit code and has written the report.
func Main(args []string) int {
	if len(args) == 2 && args[1] == ProbeArg {
		return ProbeMain()
	}
	// Noticed from the start, acted on once the program runs: a stop request
	// kills the program, and the report is still written.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	rep := Report{ExitCode: -1}
	nonce, err := TakeNonce()
	env, eerr := TakeEnv() // erased whatever else went wrong
	code := ExitFailure
	if err == nil {
		err = eerr
	}
	if err == nil {
		code, err = run(args[1:], nonce, env, &rep, stop)
	}
	if err != nil {
		rep.Error, rep.Step, code = err.Error(), stepOf(err), ExitFailure
	}
	if nonce == "" {
		nonce = "-"
	}
	_, _ = os.Stderr.Write(FormatReport(nonce, rep))
	return code
}

func run(args []string, nonce string, env []string, rep *Report, stop <-chan os.Signal) (int, error) {
	cfg, err := ParseArgsEnv(env, args)
	if err != nil {
		return 0, &SetupError{StepArgs, err}
	}
	// First, so that whatever goes wrong from here is reported where the
	// runner reads.
	if err := takePipe(cfg.Status, os.O_WRONLY, 2); err != nil {
		return 0, &SetupError{StepStatus, err}
	}
	if err := takePipe(cfg.Control, os.O_RDONLY, 0); err != nil {
		return 0, &SetupError{StepStdin, err}
	}
	if err := takePipe(cfg.Stdout, os.O_WRONLY, 1); err != nil {
		return 0, &SetupError{StepStdout, err}
	}
	if err := closeInherited(); err != nil {
		return 0, err
	}
	stdin := os.Stdin // StdinInherit: an interactive run's pipe
	if cfg.Stdin != StdinInherit {
		in := cfg.Stdin
		if in == "" {
			in = os.DevNull
		}
		// Opened by the shim, as root: the file need not be readable by 65534.
		if stdin, err = os.Open(in); err != nil {
			return 0, &SetupError{StepStdin, err}
		}
		defer stdin.Close()
	}
	errOut, err := openStderr(cfg)
	if err != nil {
		return 0, err
	}
	defer errOut.Close()

	cg, err := SetupCgroups(CgroupRoot, cfg.MemoryBytes, cfg.Pids)
	if err != nil {
		return 0, err
	}
	if err := RunProbe("/proc/self/exe"); err != nil {
		return 0, err
	}
	dir, err := os.OpenFile(cg.Program, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return 0, &SetupError{StepStart, err}
	}
	defer dir.Close()
	if cfg.Armed {
		if err := AwaitGo(os.Stderr, os.Stdin, nonce); err != nil {
			cg.Remove()
			return 0, err
		}
	}
	if cfg.Unpack {
		if stdin, err = unpackInput(stdin); err != nil {
			cg.Remove()
			return 0, err
		}
		defer stdin.Close()
	}
	pid, err := startProgram(cfg, int(dir.Fd()), stdin, errOut)
	if err != nil {
		return 0, err
	}
	go func() {
		for range stop {
			_ = cg.Kill()
		}
	}()

	ws, ru, orphans, err := waitProgram(pid)
	if err != nil {
		return 0, err
	}
	code := statusOf(ws, ru, rep)
	kerr := killOthers(cg)
	n, rerr := reapAll(reapDeadline)
	rep.Reaped = orphans + n
	merr := cg.Measure(rep)
	cg.Remove()
	handBack(cfg.HandBack)
	for _, e := range []error{kerr, rerr, merr} {
		if e != nil {
			return code, e
		}
	}
	return code, nil
}

// unpackInput writes the input's files into the working directory and
// gives what the program gets as stdin instead: /dev/null.
func unpackInput(in *os.File) (*os.File, error) {
	if err := unpack(in); err != nil {
		return nil, &SetupError{StepUnpack, err}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, &SetupError{StepUnpack, err}
	}
	return null, nil
}

// openStderr is what the program gets as stderr: /dev/null, the shim's
// stdout (--stderr-to-stdout), or the file --stderr names. That file is the
// caller's, bind-mounted by the runner: it is opened for writing, never
// created, and not through a symbolic link.
func openStderr(cfg Config) (*os.File, error) {
	switch {
	case cfg.StderrToStdout:
		fd, err := syscall.Dup(1)
		if err != nil {
			return nil, &SetupError{StepStderr, err}
		}
		syscall.CloseOnExec(fd)
		return os.NewFile(uintptr(fd), "stdout"), nil
	case cfg.Stderr != "":
		f, err := os.OpenFile(cfg.Stderr, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return nil, &SetupError{StepStderr, err}
		}
		return f, nil
	}
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, &SetupError{StepStderr, err}
	}
	return f, nil
}

// takePipe makes the runner's pipe at path the shim's fd: its control pipe
// as fd 0 (os.Stdin: the go, then an interactive program's input), its
// stdout pipe as fd 1 (the program's stdout), its status pipe as fd 2 (the
// shim's own stderr: the armed line, the report). The runner holds the other
// end open from before the container starts, so the open does not wait.
// "" leaves fd as it is.
func takePipe(path string, flag, fd int) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	// Fd puts the pipe in blocking mode: the fd is used with plain read(2)
	// and write(2), by the shim and the program alike.
	return unix.Dup3(int(f.Fd()), fd, 0)
}
