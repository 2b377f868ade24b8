package shim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ArmedPrefix starts the line an armed shim writes on stderr once all of its
// setup is done: "podjail-armed <nonce>\n". Nothing of the program exists yet.
const ArmedPrefix = "podjail-armed"

// GoByte, read from the shim's stdin, starts the program of an armed shim.
const GoByte = 'g'

// ArmedLine is the line an armed shim writes, nonce included.
func ArmedLine(nonce string) string { return ArmedPrefix + " " + nonce + "\n" }

// AwaitGo tells the runner the shim is armed, then reads exactly one byte
// of in: GoByte starts the program; anything else, or EOF, ends the run
// before the program exists. One byte with one read, so the rest of an
// interactive stdin stays for the program.
func AwaitGo(out io.Writer, in *os.File, nonce string) error {
	if _, err := io.WriteString(out, ArmedLine(nonce)); err != nil {
		return &SetupError{StepGo, fmt.Errorf("write the armed line: %w", err)}
	}
	var b [1]byte
	for {
		n, err := syscall.Read(int(in.Fd()), b[:])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return &SetupError{StepGo, fmt.Errorf("read the go: %w", err)}
		case n == 0:
			return stepErr(StepGo, "no go: stdin closed before the program was started")
		case b[0] != GoByte:
			return stepErr(StepGo, "no go: read %q where %q was expected", b[0], GoByte)
		}
		return nil
	}
}
