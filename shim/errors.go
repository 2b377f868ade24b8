package shim

import (
	"errors"
	"fmt"
)

// Exit codes of the shim itself. Anything else is the program's: its exit code, or
// 128+signal when a signal ended it.
const (
	// ExitFailure: the shim could not do its job (bad arguments, cgroup setup, the
	// identity probe refused, the program could not be started, the aftermath could
	// not be measured). The report line, when one was written, says which step.
	ExitFailure = 125
	// exitProbeFailed is the probe child's own status when a check failed; it never
	// leaves the container (the shim turns it into ExitFailure).
	exitProbeFailed = 1
)

// Step names a stage of the shim's work; it is the report's "step" on failure.
type Step string

const (
	StepNonce    Step = "nonce"    // reading and erasing PODJAIL_NONCE
	StepArgs     Step = "args"     // parsing the command line
	StepFDs      Step = "fds"      // marking inherited descriptors close-on-exec
	StepStdin    Step = "stdin"    // opening the input file, or the runner's control pipe
	StepStdout   Step = "stdout"   // opening the runner's stdout pipe
	StepStatus   Step = "status"   // opening the runner's status pipe (the shim's stderr)
	StepStderr   Step = "stderr"   // opening the file the program's stderr goes to
	StepCgroup   Step = "cgroup"   // making the two cgroups and setting limits
	StepProbe    Step = "probe"    // proving 65534:65534 cannot regain root
	StepGo       Step = "go"       // armed: waiting for the runner's go
	StepUnpack   Step = "unpack"   // writing the input's files into the working directory
	StepNSFilter Step = "nsfilter" // the seccomp filter refusing the program new namespaces
	StepStart    Step = "start"    // clone into the program cgroup and exec
	StepWait     Step = "wait"     // wait4 on the program
	StepReap     Step = "reap"     // kill(-1) and reaping what is left
	StepMeasure  Step = "measure"  // reading memory.peak, memory.events, pids.peak
)

// SetupError is a failure of the shim at one step. Err keeps the errno (errors.Is
// against syscall.Errno works through it).
type SetupError struct {
	Step Step
	Err  error
}

func (e *SetupError) Error() string { return fmt.Sprintf("%s: %v", e.Step, e.Err) }
func (e *SetupError) Unwrap() error { return e.Err }

func stepErr(step Step, format string, args ...any) error {
	return &SetupError{Step: step, Err: fmt.Errorf(format, args...)}
}

// stepOf returns the step of a SetupError in err's chain, or "" if there is none.
func stepOf(err error) Step {
	var se *SetupError
	if errors.As(err, &se) {
		return se.Step
	}
	return ""
}
