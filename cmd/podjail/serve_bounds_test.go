package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/sandbox"
)

func init() {
	// hold says so on stdout, then sleeps until it is stopped: a call
	// that stays under way for as long as its test needs.
	helpers["hold"] = func([]string) int {
		fmt.Println("held")
		time.Sleep(time.Hour)
		return 0
	}
	// spin-held says so, then keeps one processor busy until stopped.
	helpers["spin-held"] = func([]string) int {
		fmt.Println("held")
		for {
		}
	}
	// bounds-client SOCKET REQUEST [stream] is a caller of the service at
	// SOCKET (started as another user by TestServeBoundsAmongCallers): one
	// Exec of REQUEST (a sandbox.ExecRequest in JSON), the program's
	// stdout on its stdout, and its outcome as a boundsOutcome, the last
	// line of its stderr. With "stream" its stdin is streamed to the
	// program, and so its stdout comes back as it comes (without, in
	// pieces of 64 KiB).
	helpers["bounds-client"] = boundsClient
}

// boundsOutcome is how a bounds-client call ended.
type boundsOutcome struct {
	Kind    string // the sandbox error kind it matches ("" for none)
	Error   string
	Exit    int32
	Verdict sandbox.Verdict
}

func boundsClient(args []string) int {
	var req sandbox.ExecRequest
	if len(args) < 2 || json.Unmarshal([]byte(args[1]), &req) != nil {
		fmt.Fprintln(os.Stderr, "usage: bounds-client SOCKET REQUEST-JSON [stream]")
		return 2
	}
	if len(args) > 2 && args[2] == "stream" {
		req.Stdin = os.Stdin
	}
	var out boundsOutcome
	c, closeFn, err := sandbox.Dial(context.Background(), args[0])
	if err == nil {
		defer closeFn()
		var res sandbox.ExecResult
		res, err = c.Exec(context.Background(), req, os.Stdout)
		out.Exit, out.Verdict = res.Run.ExitCode, res.Verdict
	}
	if err != nil {
		out.Error, out.Kind = err.Error(), errorKind(err)
	}
	line, _ := json.Marshal(out)
	fmt.Fprintf(os.Stderr, "%s\n", line)
	return 0
}

// errorKind names the sandbox kind err matches.
func errorKind(err error) string {
	for name, kind := range map[string]error{"invalid": sandbox.ErrInvalidArgument, "denied": sandbox.ErrPermissionDenied,
		"exhausted": sandbox.ErrResourceExhausted, "unavailable": sandbox.ErrUnavailable, "internal": sandbox.ErrInternal} {
		if errors.Is(err, kind) {
			return name
		}
	}
	return "other"
}

// boundsCaller runs bounds-client as uid (group 65534, the service's
// --group) from the test binary's copy at bin.
type boundsCaller struct {
	bin, sock string
	uid       uint32
}

func (c boundsCaller) command(t *testing.T, req sandbox.ExecRequest, extra ...string) *exec.Cmd {
	t.Helper()
	js, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(c.bin, append([]string{"bounds-client", c.sock, string(js)}, extra...)...)
	if c.uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: c.uid, Gid: 65534}}
	}
	return cmd
}

// call makes one call and returns how it ended; a client that could not
// say is an Error of kind "client". Safe in any goroutine.
func (c boundsCaller) call(t *testing.T, req sandbox.ExecRequest) boundsOutcome {
	t.Helper()
	cmd := c.command(t, req)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var out boundsOutcome
	if err == nil {
		err = json.Unmarshal([]byte(lines[len(lines)-1]), &out)
	}
	if err != nil {
		return boundsOutcome{Kind: "client", Error: fmt.Sprintf("bounds-client as uid %d: %v\n%s", c.uid, err, stderr.String())}
	}
	return out
}

// held is a call under way until release, which ends it (its client is
// killed: the service stops its run).
type held struct {
	cmd    *exec.Cmd
	stdin  io.Closer // kept open: the program's stdin stays open
	stderr strings.Builder
}

// hold starts a call of req, whose program says "held" once it runs, and
// returns once it has.
func (c boundsCaller) hold(t *testing.T, req sandbox.ExecRequest) *held {
	t.Helper()
	h := &held{cmd: c.command(t, req, "stream")}
	h.cmd.Stderr = &h.stderr
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.release)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "held\n" {
		h.release()
		t.Fatalf("a call as uid %d never held: %q, %v\n%s", c.uid, line, err, h.stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return h
}

func (h *held) release() {
	if h.cmd.ProcessState == nil {
		_ = h.cmd.Process.Kill()
		_ = h.cmd.Wait()
		_ = h.stdin.Close()
	}
}

// TestServeBoundsAmongCallers (issue 40, items 3 and 4): a rootful service
// with --group 65534 and small shares. Callers of that group (nobody, and
// uids of their own in the group) asking for memory or pids over the
// service's bounds, or for an image in its storage that it does not
// allow, are refused with an error naming the flag; the same callers'
// legitimate calls run; a caller past its share of concurrent calls is
// refused as busy at once while another is not; and with one caller
// taking all it may (the largest limits, its every call, spinning) three
// others get their verdicts right. Rootful only: the callers are other
// users, which only root can start.
func TestServeBoundsAmongCallers(t *testing.T) {
	env := hosttest.Podman(t)
	if env.Rootless {
		t.Skip("starts callers as other users, which needs root: the rootful pass runs this test")
	}
	dir := openDir(t, "podjail-bounds-", 0o777)
	// The callers run a copy of this binary that every user may execute.
	bin := filepath.Join(dir, "client")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	// An image the storage holds but no language and no --image names.
	secret := "localhost/podjail-bounds-secret:latest"
	if out, err := exec.Command("podman", "tag", env.Image, secret).CombinedOutput(); err != nil {
		t.Fatalf("podman tag: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("podman", "untag", secret, secret).Run() })

	sock := filepath.Join(dir, "podjail.sock")
	stop := startServiceAt(t, env, sock, syscall.SIGTERM, "--group", "65534", "--drain", "2s",
		"--max-memory", "1G", "--max-pids", "256", "--max-calls-per-caller", "2", "--max-calls", "8")
	nobody := boundsCaller{bin: bin, sock: sock, uid: 65534}
	run := func(argv ...string) sandbox.ExecRequest {
		return sandbox.ExecRequest{Image: env.Image, Command: append([]string{testProgram}, argv...), Limits: sandbox.Limits{Time: 5 * time.Second}}
	}

	t.Run("refused", func(t *testing.T) {
		huge := run("exit", "0")
		huge.Limits.Memory = 1 << 40
		many := run("exit", "0")
		many.Pids = 1 << 20
		other := run("exit", "0")
		other.Image = secret
		for _, c := range []struct {
			name string
			req  sandbox.ExecRequest
			kind string
			says string
		}{
			{"huge memory", huge, "invalid", "start the service with a larger --max-memory"},
			{"huge pids", many, "invalid", "start the service with a larger --max-pids"},
			{"an image outside the list", other, "denied", "start the service with --image " + secret},
		} {
			out := nobody.call(t, c.req)
			if out.Kind != c.kind || !strings.Contains(out.Error, c.says) {
				t.Errorf("%s: %+v, want a %s error saying %q", c.name, out, c.kind, c.says)
			}
		}
		out := nobody.call(t, run("exit", "3"))
		if out.Error != "" || out.Exit != 3 || out.Verdict != sandbox.RTE {
			t.Errorf("nobody's legitimate call: %+v, want exit 3, RTE", out)
		}
	})

	t.Run("busy", func(t *testing.T) {
		hold := run("hold")
		hold.Limits = sandbox.Limits{Wall: 2 * time.Minute}
		a, b := nobody.hold(t, hold), nobody.hold(t, hold)
		out := nobody.call(t, run("exit", "0"))
		if out.Kind != "exhausted" || !strings.Contains(out.Error, "busy: 2 calls of yours are under way; the limit is 2 (--max-calls-per-caller)") {
			t.Errorf("nobody's third call at once: %+v, want busy", out)
		}
		other := boundsCaller{bin: bin, sock: sock, uid: 60001}
		if out := other.call(t, run("exit", "0")); out.Error != "" || out.Verdict != sandbox.AC {
			t.Errorf("another caller meanwhile: %+v, want AC", out)
		}
		a.release()
		b.release()
	})

	t.Run("one caller takes all it may", func(t *testing.T) {
		greedy := run("spin-held")
		greedy.Limits = sandbox.Limits{Time: 50 * time.Second, Memory: 1 << 30, Wall: 2 * time.Minute}
		greedy.Pids, greedy.CPUs = 256, sandbox.DefaultMaxCPUs
		// Another caller than busy's: nobody's calls may still be ending.
		hog := boundsCaller{bin: bin, sock: sock, uid: 60009}
		a, b := hog.hold(t, greedy), hog.hold(t, greedy)
		defer a.release()
		defer b.release()
		if out := hog.call(t, run("exit", "0")); out.Kind != "exhausted" {
			t.Errorf("the greedy caller's third call: %+v, want busy", out)
		}
		var wg sync.WaitGroup
		for _, uid := range []uint32{60001, 60002, 60003} {
			c := boundsCaller{bin: bin, sock: sock, uid: uid}
			wg.Go(func() {
				for _, want := range []struct {
					argv    []string
					exit    int32
					verdict sandbox.Verdict
				}{{[]string{"exit", "0"}, 0, sandbox.AC}, {[]string{"exit", "3"}, 3, sandbox.RTE}} {
					if out := c.call(t, run(want.argv...)); out.Error != "" || out.Exit != want.exit || out.Verdict != want.verdict {
						t.Errorf("uid %d beside the greedy caller, %v: %+v, want exit %d, %s", uid, want.argv, out, want.exit, want.verdict)
					}
				}
			})
		}
		wg.Wait()
	})

	if code, log := stop(); code != 0 {
		t.Errorf("the service exited %d\n%s", code, log)
	} else if !strings.Contains(log, "refused") {
		t.Errorf("the service logged no refusal:\n%s", log)
	}
	assertNothingLeft(t, env, "")
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// TestServeLimitFlags: serve's limit flags read sizes with suffixes, keep
// the defaults of the rest, and refuse bounds below what a request asking
// for nothing gets.
func TestServeLimitFlags(t *testing.T) {
	parse := func(args ...string) (*serveLimits, error) {
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		l := limitFlags(fs)
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		return l, l.check()
	}
	l, err := parse("--max-memory", "2G", "--max-collect", "8M", "--image", "a", "--image", "b:1", "--max-calls", "10")
	if err != nil {
		t.Fatal(err)
	}
	b := l.bounds.WithDefaults()
	if b.MaxMemory != 2<<30 || b.MaxCollect != 8<<20 || b.MaxPids != sandbox.DefaultMaxPids || l.maxUpload != serviceMaxUpload ||
		b.MaxCalls != 10 || b.MaxCallsPerCaller != 5 || strings.Join(l.images, " ") != "a b:1" {
		t.Errorf("parsed %+v, upload %d, images %q", b, l.maxUpload, l.images)
	}
	for _, bad := range [][]string{{"--max-memory", "100M"}, {"--max-upload", "0"}, {"--image", ""}, {"--max-calls-per-caller", "100000"}, {"--default-wall", "1h"}} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
