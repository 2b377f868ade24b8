package sandbox

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"
)

// answeringEngine's Exec is a program that answers each line of its stdin
// on stdout at once, as a Communication task's contestant does.
type answeringEngine struct{ *fakeEngine }

func (e answeringEngine) Exec(_ context.Context, req ExecRequest, stdout io.Writer) (ExecResult, error) {
	sc := bufio.NewScanner(req.Stdin)
	for sc.Scan() {
		if _, err := stdout.Write([]byte("correct " + sc.Text() + "\n")); err != nil {
			return ExecResult{}, err
		}
	}
	return ExecResult{Run: e.run}, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestExecAnswersAsTheyCome: a caller that streams stdin gets each piece of
// stdout as the program writes it, before it sends its next line; held back
// until the run ends (as bulk output is), a conversation through the
// service would wait for ever (issue 27: CMS's Communication tasks).
func TestExecAnswersAsTheyCome(t *testing.T) {
	sb, _ := connect(t, answeringEngine{okEngine()})
	in, send := io.Pipe()
	answers := make(chan string, 8)
	out := writerFunc(func(p []byte) (int, error) {
		answers <- string(p)
		return len(p), nil
	})
	done := make(chan error, 1)
	go func() {
		_, err := sb.Exec(context.Background(), ExecRequest{Image: "localhost/x", Command: []string{"/prog"}, Stdin: in}, out)
		done <- err
	}()
	for _, q := range []string{"8", "9", "10"} {
		if _, err := send.Write([]byte(q + "\n")); err != nil {
			t.Fatal(err)
		}
		select {
		case a := <-answers:
			if a != "correct "+q+"\n" {
				t.Errorf("answer to %s: %q", q, a)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer to %s before the next question: the service held the program's stdout back", q)
		}
	}
	_ = send.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
