package isolate

import "time"

// Mode is isolate's command: what one invocation does.
type Mode int

// Modes. The zero value is no command; ParseArgs never returns it.
const (
	ModeNone        Mode = iota
	ModeInit             // --init: (re)create the box, print its directory
	ModeRun              // --run: run Program in the box
	ModeCleanup          // --cleanup: remove the box
	ModeVersion          // --version: print the version, exit 0
	ModePrintCgRoot      // --print-cg-root: print the cgroup root
	ModeCheckConfig      // --check-config: check the configuration, exit 0
)

var modeNames = []string{"none", "init", "run", "cleanup", "version", "print-cg-root", "check-config"}

// String returns the command's name without dashes ("init").
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return "none"
	}
	return modeNames[m]
}

// Quota is -q/--quota BLOCKS,INODES.
type Quota struct {
	Blocks int // disk blocks
	Inodes int // inodes
}

// Command is one isolate invocation, every option as isolate parsed it.
// Fields hold isolate's own defaults after ParseArgs; the zero values
// documented are what a field means when left zero by hand.
type Command struct {
	// Mode is the command (--init, --run, ...).
	Mode Mode
	// BoxID is -b/--box-id (default 0).
	BoxID int
	// Program is the command and its arguments for ModeRun: the words
	// after "--" and any operands before it. Nil for other modes.
	Program []string

	// CG is --cg: control group mode (whole-box memory limit and
	// processor time).
	CG bool
	// CGMemKiB is --cg-mem in KiB, the whole box's memory limit. 0: none.
	CGMemKiB int

	// Meta is -M/--meta, the meta file ("-": stdout). Empty: none.
	Meta string
	// Stdin, Stdout, Stderr are -i, -o, -r: paths inside the sandbox,
	// opened as the program's user before Chdir applies (relative ones
	// from /box). Empty: inherited from the caller.
	Stdin, Stdout, Stderr string
	// StderrToStdout is --stderr-to-stdout; the later of it and -r wins.
	StderrToStdout bool
	// Chdir is -c/--chdir, the program's working directory inside the
	// sandbox. Empty: /box.
	Chdir string

	// Time is -t/--time, the processor time limit, in whole milliseconds
	// as isolate keeps it. 0: none. A negative one ("-t -1") is kept, as
	// isolate keeps it, and times out at once.
	Time time.Duration
	// WallTime is -w/--wall-time. 0: none.
	WallTime time.Duration
	// ExtraTime is -x/--extra-time: past Time, the program is killed only
	// once its processor time also exceeds ExtraTime. 0: killed at Time.
	ExtraTime time.Duration
	// MemKiB is -m/--mem, the address space limit per process in KiB.
	// 0: none.
	MemKiB int
	// StackKiB is -k/--stack in KiB. 0: unlimited (within MemKiB).
	StackKiB int
	// FsizeKiB is -f/--fsize, the largest file the program may write, in
	// KiB. 0: none.
	FsizeKiB int
	// CoreKiB is --core in KiB. 0: no core files.
	CoreKiB int
	// OpenFiles is -n/--open-files (default 1024). 0: unlimited.
	OpenFiles int
	// Processes is -p/--processes: the most processes and threads
	// (default 1). 0: unlimited ("-p" without a number).
	Processes int
	// Quota is -q/--quota, only meaningful with --init. Nil: none.
	Quota *Quota

	// Env are the -E/--env rules in order. isolate starts the list with
	// LIBC_FATAL_STDERR_=1, which is not repeated here.
	Env []EnvRule
	// FullEnv is -e/--full-env: inherit the whole environment first.
	FullEnv bool
	// Dirs are the -d/--dir rules in order, a later rule for the same
	// Inside replacing an earlier one in place. isolate's default rules
	// (box, bin, dev, dev/shm, lib, lib64, proc, tmp, usr) are not listed:
	// they come first unless NoDefaultDirs, and a rule here for one of
	// their Insides replaces that default.
	Dirs []DirRule
	// NoDefaultDirs is -D/--no-default-dirs.
	NoDefaultDirs bool

	// Silent counts -s/--silent; Verbose counts -v/--verbose.
	Silent, Verbose int
	// Wait is --wait: wait for a busy box instead of refusing.
	Wait bool
	// ShareNet is --share-net: the program keeps the caller's network.
	ShareNet bool
	// InheritFDs is --inherit-fds.
	InheritFDs bool
	// TTYHack is --tty-hack.
	TTYHack bool
	// SpecialFiles is --special-files: keep non-regular files the
	// program made.
	SpecialFiles bool
	// AsUID and AsGID are --as-uid and --as-gid (default -1: the caller).
	AsUID, AsGID int
	// SyscallFlags is --syscalls (default -1: the configuration's).
	SyscallFlags int

	// Ignored lists the options given that only older isolates know and
	// that change nothing here (--cg-timing, --no-cg-timing), as given.
	Ignored []string
}
