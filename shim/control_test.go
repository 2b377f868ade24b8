package shim

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// helperControl takes the control pipe named by $PODJAIL_CONTROL as its fd
// 0 and copies fd 0 to stdout until EOF.
func helperControl() int {
	if err := takePipe(os.Getenv("PODJAIL_CONTROL"), os.O_RDONLY, 0); err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	os.Stdout.WriteString("armed\n") // as the shim's armed line: the pipe is open
	if _, err := io.Copy(os.Stdout, os.NewFile(0, "stdin")); err != nil {
		return 1
	}
	return 0
}

// TestTakeControl: with --control, the shim's fd 0 is the runner's FIFO,
// held open read-write by the runner from before the start: the shim's
// open does not wait, every byte comes through as sent (ctrl-p and ctrl-q,
// which Podman's attach takes for its detach keys, among them), and EOF
// comes once the runner closes its end.
func TestTakeControl(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "control")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	runner, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{helperEnv + "=control", "PODJAIL_CONTROL=" + fifo, coverDir(t)}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The runner sends once the shim is armed: by then the shim holds the
	// pipe, and what is sent outlives the runner's end.
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); line != "armed\n" {
		t.Fatalf("helper: %q, %v\n%s", line, err, errOut.String())
	}
	sent := []byte{GoByte, 0x10, 0x11, 'x', 0x10, '\n', 0x11}
	if _, err := runner.Write(sent); err != nil {
		t.Fatal(err)
	}
	runner.Close()
	got, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v\n%s", err, errOut.String())
	}
	if !bytes.Equal(got, sent) {
		t.Errorf("read %q through the control pipe, want %q", got, sent)
	}
	if _, err := ParseArgs([]string{"--memory", "1", "--pids", "1", "--control", "rel", "--", "/p"}); err == nil {
		t.Error("a relative --control was accepted")
	}
	c, err := ParseArgs([]string{"--memory", "1", "--pids", "1", "--control=/run/podjail/control", "--", "/p"})
	if err != nil || c.Control != "/run/podjail/control" {
		t.Errorf("--control: %+v, %v", c, err)
	}
}

// helperStatus takes the status pipe named by $PODJAIL_STATUS as its fd 2
// and writes a line on stderr, as the shim its armed line.
func helperStatus() int {
	if err := takePipe(os.Getenv("PODJAIL_STATUS"), os.O_WRONLY, 2); err != nil {
		os.Stdout.WriteString(err.Error())
		return 1
	}
	os.Stderr.WriteString("podjail-armed n\n")
	return 0
}

// TestTakeStatus: with --status, the shim's own stderr is the runner's
// FIFO, and its end is the end of the shim.
func TestTakeStatus(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "status")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/proc/self/exe")
	// A binary built with -cover and no GOCOVERDIR warns on its fd 2 at
	// exit: here the status pipe itself.
	cmd.Env = []string{helperEnv + "=status", "PODJAIL_STATUS=" + fifo, coverDir(t)}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	runner, err := os.Open(fifo) // meets the helper's open
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	got, err := io.ReadAll(runner)
	if werr := cmd.Wait(); werr != nil || err != nil {
		t.Fatalf("helper: %v, read %v\n%s", werr, err, out.String())
	}
	if string(got) != "podjail-armed n\n" || errOut.Len() != 0 {
		t.Errorf("status pipe %q, the container's stderr %q", got, errOut.String())
	}
}

func TestStatusArg(t *testing.T) {
	if _, err := ParseArgs([]string{"--memory", "1", "--pids", "1", "--status", "rel", "--", "/p"}); err == nil {
		t.Error("a relative --status was accepted")
	}
	c, err := ParseArgs([]string{"--memory", "1", "--pids", "1", "--status=/run/podjail/status", "--", "/p"})
	if err != nil || c.Status != "/run/podjail/status" {
		t.Errorf("--status: %+v, %v", c, err)
	}
}
