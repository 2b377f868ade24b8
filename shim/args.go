package shim

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// ProbeArg, as the only argument, makes the binary the identity probe (see probe.go).
const ProbeArg = "--podjail-probe"

// DefaultEnv is the program's whole environment unless EnvListEnv or
// --env adds to it.
var DefaultEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp"}

// Config is the parsed command line.
type Config struct {
	MemoryBytes int64  // memory.max of the program cgroup
	Pids        int64  // pids.max of the program cgroup
	Stdin       string // input file; "" means /dev/null, StdinInherit the shim's own stdin
	// Stderr is the file the program's stderr goes to, opened for writing
	// (not created) by the shim; "" means /dev/null.
	Stderr string
	// StderrToStdout gives the program its stdout as stderr too.
	StderrToStdout bool
	Env            []string // the program's environment: DefaultEnv, EnvListEnv's entries, each --env
	Argv           []string // program path (absolute) and its arguments
	Armed          bool     // wait for the runner's go before starting the program
	// Control is the runner's control pipe (a FIFO), which the shim opens
	// and makes its fd 0 before anything reads it: the go, then for
	// --stdin - the program's stdin. "": fd 0 stays the container's stdin.
	Control string
	// Stdout is the runner's stdout pipe (a FIFO), which the shim opens
	// and makes its fd 1, the program's stdout. "": fd 1 stays the
	// container's stdout.
	Stdout string
	// Status is the runner's status pipe (a FIFO), which the shim opens
	// first and makes its fd 2: its armed line, its report and any message
	// of its own go there, off Podman's attach. "": fd 2 stays the
	// container's stderr.
	Status string
	// Unpack: the input file is a Pack stream, written into the working
	// directory before the program starts (after the go), whose stdin is
	// then /dev/null.
	Unpack bool
	// HandBack are directories (absolute, the writable mounts) whose
	// contents the shim makes its own (the container's root: the caller
	// outside) once the program and all its processes are gone.
	HandBack []string
	// Tasks is which new tasks the program may make (--tasks): TasksAny,
	// TasksThreads or TasksNone. See the Tasks* constants.
	Tasks string
}

// The values of --tasks. Whatever they say, clone3 fails with ENOSYS
// (its flags sit behind a pointer a filter cannot read; libcs then fall
// back to clone, which the filter reads) and no namespace is made.
const (
	// TasksAny ("", the default): threads and processes alike.
	TasksAny = ""
	// TasksThreads: threads only. clone without CLONE_THREAD, fork and
	// vfork kill the whole program with SIGSYS (SECCOMP_RET_KILL_PROCESS).
	TasksThreads = "threads"
	// TasksNone: neither. clone (with any flags), fork and vfork kill the
	// program with SIGSYS.
	TasksNone = "none"
)

// CheckTasks refuses a --tasks value that is not one of the Tasks*
// constants.
func CheckTasks(tasks string) error {
	switch tasks {
	case TasksAny, TasksThreads, TasksNone:
		return nil
	}
	return fmt.Errorf("tasks %q: want %q (threads only), %q (neither threads nor processes) or empty (any)", tasks, TasksThreads, TasksNone)
}

// ParseArgs parses args (without argv[0]):
//
//	--memory BYTES --pids N [--armed] [--control PATH] [--stdout PATH] [--status PATH] [--stdin PATH [--unpack]] [--stderr PATH | --stderr-to-stdout]
//	[--env NAME=VALUE]... [--hand-back DIR]... [--tasks threads|none] -- PROGRAM [ARG...]
//
// Flags also take the --name=value form. The "--" is required, so a program
// argument can never be read as a flag.
func ParseArgs(args []string) (Config, error) {
	return ParseArgsEnv(nil, args)
}

// ParseArgsEnv is ParseArgs with env, TakeEnv's entries, added to the
// program's environment before the --env flags, as if each came first as
// one: DefaultEnv, then env, then --env, a later NAME replacing an
// earlier one in its place.
func ParseArgsEnv(env, args []string) (Config, error) {
	c := Config{Env: append([]string(nil), DefaultEnv...)}
	for _, kv := range env {
		if err := addEnv(&c.Env, kv); err != nil {
			return c, err
		}
	}
	var haveMem, havePids, dash bool
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			dash = true
			break
		}
		if a == "--armed" {
			c.Armed = true
			continue
		}
		if a == "--stderr-to-stdout" {
			c.StderrToStdout = true
			continue
		}
		if a == "--unpack" {
			c.Unpack = true
			continue
		}
		name, val, inline := strings.Cut(a, "=")
		switch name {
		case "--memory", "--pids", "--stdin", "--stderr", "--env", "--hand-back", "--tasks", "--control", "--stdout", "--status":
		default:
			return c, fmt.Errorf("unknown argument %q", a)
		}
		if !inline {
			if i+1 >= len(args) {
				return c, fmt.Errorf("%s needs a value", name)
			}
			i++
			val = args[i]
		}
		var err error
		switch name {
		case "--memory":
			c.MemoryBytes, err = positive(name, val)
			haveMem = true
		case "--pids":
			c.Pids, err = positive(name, val)
			havePids = true
		case "--stdin":
			if val != StdinInherit && !filepath.IsAbs(val) {
				err = fmt.Errorf("--stdin %q is not an absolute path", val)
			}
			c.Stdin = val
		case "--control":
			if !filepath.IsAbs(val) {
				err = fmt.Errorf("--control %q is not an absolute path", val)
			}
			c.Control = val
		case "--stdout":
			if !filepath.IsAbs(val) {
				err = fmt.Errorf("--stdout %q is not an absolute path", val)
			}
			c.Stdout = val
		case "--status":
			if !filepath.IsAbs(val) {
				err = fmt.Errorf("--status %q is not an absolute path", val)
			}
			c.Status = val
		case "--stderr":
			if !filepath.IsAbs(val) {
				err = fmt.Errorf("--stderr %q is not an absolute path", val)
			}
			c.Stderr = val
		case "--env":
			err = addEnv(&c.Env, val)
		case "--hand-back":
			if !filepath.IsAbs(val) {
				err = fmt.Errorf("--hand-back %q is not an absolute path", val)
			}
			c.HandBack = append(c.HandBack, val)
		case "--tasks":
			if val == TasksAny {
				err = fmt.Errorf("--tasks needs %q or %q (leave it out for any)", TasksThreads, TasksNone)
			} else {
				err = CheckTasks(val)
			}
			c.Tasks = val
		}
		if err != nil {
			return c, err
		}
	}
	if !dash {
		return c, fmt.Errorf("missing -- before the program")
	}
	if !haveMem || !havePids {
		return c, fmt.Errorf("--memory and --pids are required")
	}
	if c.Stderr != "" && c.StderrToStdout {
		return c, fmt.Errorf("--stderr and --stderr-to-stdout exclude each other")
	}
	if c.Unpack && (c.Stdin == "" || c.Stdin == StdinInherit) {
		return c, fmt.Errorf("--unpack needs --stdin with a file")
	}
	c.Argv = args[i:]
	if len(c.Argv) == 0 || !filepath.IsAbs(c.Argv[0]) {
		return c, fmt.Errorf("the program must be an absolute path after --")
	}
	return c, nil
}

func positive(name, val string) (int64, error) {
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q: want a positive integer", name, val)
	}
	return n, nil
}

// addEnv sets NAME=VALUE in env, replacing an earlier NAME.
func addEnv(env *[]string, kv string) error {
	if err := checkEnvEntry(kv); err != nil {
		return err
	}
	name, _, _ := strings.Cut(kv, "=")
	for j, e := range *env {
		if strings.HasPrefix(e, name+"=") {
			(*env)[j] = kv
			return nil
		}
	}
	*env = append(*env, kv)
	return nil
}

// StdinInherit as --stdin gives the program the shim's own stdin (the
// control pipe, or the container's stdin without one: interactive runs).
const StdinInherit = "-"
