package omegajail

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Meta is what omegajail writes to its .meta file (-M) when the program
// is done.
type Meta struct {
	TimeUs     int64 // user processor time, µs ("time")
	SysTimeUs  int64 // system processor time, µs ("time-sys")
	WallTimeUs int64 // elapsed time, µs ("time-wall")
	MemBytes   int64 // peak memory, bytes ("mem")
	// ExitStatus is the program's exit status ("status"). Nil: it did
	// not exit (a signal ended it, or the key was absent).
	ExitStatus *int
	// Signal is the signal that ended the program, by name: "SIGSEGV",
	// "SIGXCPU" (processor or wall time limit), "SIGXFSZ" (output limit),
	// "SIGSYS" (a forbidden system call, with Syscall). Empty: none.
	Signal string
	// Syscall names the forbidden system call ("syscall"), or "#N" for a
	// number omegajail has no name for. Empty: none.
	Syscall string
}

// WriteMeta writes m the way omegajail does (src/jail/mod.rs):
// "time:N\ntime-sys:N\ntime-wall:N\nmem:N\n", then exactly one of
// "status:N\n", "signal:NAME\n", or "signal:SIGSYS\nsyscall:NAME\n" when
// Syscall is set. A Meta with none or more than one ending, a negative
// figure, or a name with a newline or colon is an error and nothing is
// written.
func WriteMeta(w io.Writer, m Meta) error {
	if m.TimeUs < 0 || m.SysTimeUs < 0 || m.WallTimeUs < 0 || m.MemBytes < 0 {
		return errors.New("omegajail meta: negative time or memory")
	}
	for _, name := range []string{m.Signal, m.Syscall} {
		if strings.ContainsAny(name, "\n\r:") {
			return fmt.Errorf("omegajail meta: bad name %q", name)
		}
	}
	var end string
	switch {
	case m.Syscall != "" && (m.Signal == "" || m.Signal == "SIGSYS") && m.ExitStatus == nil:
		end = "signal:SIGSYS\nsyscall:" + m.Syscall + "\n"
	case m.Syscall == "" && m.Signal != "" && m.ExitStatus == nil:
		end = "signal:" + m.Signal + "\n"
	case m.Syscall == "" && m.Signal == "" && m.ExitStatus != nil:
		end = "status:" + strconv.Itoa(*m.ExitStatus) + "\n"
	default:
		return errors.New("omegajail meta: want exactly one of an exit status, a signal or a syscall")
	}
	_, err := fmt.Fprintf(w, "time:%d\ntime-sys:%d\ntime-wall:%d\nmem:%d\n%s",
		m.TimeUs, m.SysTimeUs, m.WallTimeUs, m.MemBytes, end)
	return err
}

// ParseMeta reads a .meta file as the Runner's parseMetaFile does
// (quark runner/sandbox.go): one "key:value" per line, a later key
// overriding an earlier one, unknown keys ignored, a number that does
// not parse read as 0, times given in µs (fractions truncated);
// "signal_number:N" and "syscall_number:N" (the old minijail's keys)
// become "SIGNAL N" and "SYSCALL N". A line without a colon is an error.
func ParseMeta(r io.Reader) (Meta, error) {
	var m Meta
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			return m, fmt.Errorf("omegajail meta: malformed line %q", sc.Text())
		}
		switch key {
		case "status":
			n, _ := strconv.Atoi(value)
			m.ExitStatus = &n
		case "time":
			m.TimeUs = micros(value)
		case "time-sys":
			m.SysTimeUs = micros(value)
		case "time-wall":
			m.WallTimeUs = micros(value)
		case "mem":
			m.MemBytes, _ = strconv.ParseInt(value, 10, 64)
		case "signal":
			m.Signal = value
		case "signal_number":
			m.Signal = "SIGNAL " + value
		case "syscall":
			m.Syscall = value
		case "syscall_number":
			m.Syscall = "SYSCALL " + value
		}
	}
	return m, sc.Err()
}

// micros reads a time the way the Runner does (ParseFloat, 0 on error).
func micros(value string) int64 {
	f, _ := strconv.ParseFloat(value, 64)
	return int64(f)
}
