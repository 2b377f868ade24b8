package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/sandbox"
)

// environ, a helper of the test image, prints its environment, one quoted
// entry a line, then waits for the end of its stdin.
func init() { helpers["environ"] = environ }

func environ([]string) int {
	for _, kv := range os.Environ() {
		fmt.Println(strconv.Quote(kv))
	}
	_, err := io.Copy(io.Discard, os.Stdin)
	return boolExit(err == nil)
}

// TestRunEnvironmentNotInArgv: a run's environment reaches the program
// without passing through any process's argv, which every local user
// reads in /proc/PID/cmdline. While a program that printed its
// environment waits for the end of its stdin, no command line on the host
// holds the value; the program saw it whole ('=', a newline, unicode).
func TestRunEnvironmentNotInArgv(t *testing.T) {
	env := hosttest.Podman(t)
	sock, stop := startService(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sb, closeSb, err := sandbox.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSb()

	secret := "podjail-envargv-" + randomToken(t)
	entry := "PODJAIL_TEST_SECRET=" + secret + " a=b\nü"
	want := strconv.Quote(entry) + "\n"
	out := &awaitOutput{want: want, seen: make(chan struct{})}
	stdin, feed := io.Pipe()
	type outcome struct {
		res sandbox.ExecResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Image: env.Image, Command: []string{testProgram, "environ"},
			Env: []string{entry}, Stdin: stdin}, out)
		done <- outcome{res, err}
	}()
	select {
	case <-out.seen:
	case o := <-done:
		t.Fatalf("the run ended before it printed %q: %+v, %v\nstdout: %q", entry, o.res.Run, o.err, out.String())
	}
	for pid, cmdline := range cmdlinesHolding(secret) {
		t.Errorf("pid %s has the run's environment in its argv: %q", pid, cmdline)
	}
	feed.Close()
	o := <-done
	if o.err != nil || o.res.Run.ExitCode != 0 {
		t.Errorf("exec: %+v, %v; want exit code 0", o.res.Run, o.err)
	}
	if code, log := stop(); code != 0 {
		t.Errorf("the service exited %d\n%s", code, log)
	}
	assertNothingLeft(t, env, "")
}

// cmdlinesHolding returns, by pid, the command lines on the host that
// hold s, as any local user reads them.
func cmdlinesHolding(s string) map[string]string {
	found := map[string]string{}
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(s)) {
			found[filepath.Base(filepath.Dir(p))] = strings.ReplaceAll(string(b), "\x00", " ")
		}
	}
	return found
}

func randomToken(t *testing.T) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// awaitOutput keeps a program's stdout and closes seen once it holds want.
type awaitOutput struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	seen chan struct{}
	once sync.Once
}

func (a *awaitOutput) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if strings.Contains(a.buf.String(), a.want) {
		a.once.Do(func() { close(a.seen) })
	}
	return len(p), nil
}

func (a *awaitOutput) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}
