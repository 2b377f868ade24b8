package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/sandbox"
)

// TestPluginJudgesEndToEnd loads the real podjail-plugin binary the way a
// Go judge does, compiles and runs once, execs a command of the test image,
// then judges a plain two-test A+B problem (no checker: the example's
// checker build is TestJudgeExampleAPlusB's) with the results of each test
// streamed as it finishes: with its own runner, and passing every call on
// to a podjail service ($PODJAIL_SERVICE), with the same results.
func TestPluginJudgesEndToEnd(t *testing.T) {
	env := hosttest.Podman(t)
	t.Run("own runner", func(t *testing.T) {
		t.Setenv("PODJAIL_SERVICE", "none")
		if log := pluginEndToEnd(t, env); strings.Contains(log, forwarding) {
			t.Errorf("the plugin passed its calls on to a service, want its own runner:\n%s", log)
		}
		assertNothingLeft(t, env, "")
	})
	t.Run("through the service", func(t *testing.T) {
		sock, stop := startService(t, env)
		t.Setenv("PODJAIL_SERVICE", sock)
		if log := pluginEndToEnd(t, env); !strings.Contains(log, forwarding) {
			t.Errorf("the plugin did not say it passes its calls on to the service:\n%s", log)
		}
		// The service keeps a run armed ahead for the shapes it saw until
		// it stops.
		if code, log := stop(); code != 0 {
			t.Errorf("the service exited %d\n%s", code, log)
		}
		assertNothingLeft(t, env, "")
	})
}

// forwarding is what podjail-plugin logs when it uses a service.
const forwarding = "passing every call on to the podjail service"

// pluginEndToEnd is one judge's session with podjail-plugin; it returns
// what the plugin logged.
func pluginEndToEnd(t *testing.T, env hosttest.Env) string {
	problems, _ := judgeFiles(t, env)
	bin := filepath.Join(filepath.Dir(env.Podjail), "podjail-plugin")
	var pluginLog strings.Builder
	logger := hclog.New(&hclog.LoggerOptions{Name: "judge", Level: hclog.Info, Output: io.MultiWriter(testWriter{t}, &pluginLog)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sb, kill, err := sandbox.Open(ctx, bin, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer kill()
	caps, err := sb.Capabilities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("capabilities: %+v", caps)

	src, err := os.ReadFile(filepath.Join(problems, "aplusb", "solutions", "accepted.c"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sb.Compile(ctx, "c11", src)
	if err != nil || !c.OK {
		t.Fatalf("compile: %+v, %v", c, err)
	}
	r, err := sb.Run(ctx, sandbox.RunRequest{Handle: c.Handle, Input: []byte("1 2\n"),
		Limits: sandbox.Limits{Time: 2 * time.Second, Memory: 64 << 20, Output: 1 << 20}})
	if err != nil || string(r.Output) != "3\n" || r.ExitCode != 0 {
		t.Fatalf("run: %+v, %v; want output \"3\\n\"", r, err)
	}
	if err := sb.Release(ctx, c.Handle); err != nil {
		t.Fatal(err)
	}
	x, err := sb.Exec(ctx, sandbox.ExecRequest{Image: env.Image, Command: []string{testProgram, "exit", "3"}}, nil)
	if err != nil || x.Run.ExitCode != 3 || x.Container == "" {
		t.Fatalf("exec: %+v, %v; want exit code 3 and the container's name", x, err)
	}

	dir := writeProblemFiles(t, map[string]string{
		"problem.yaml": "name: A plus B\ntime_limit: " + untimed + "\nmemory_limit: 64M\n",
		"tests/1.in":   "19 23\n",
		"tests/1.ans":  "42\n",
		"tests/2.in":   "-1000000007 999999999\n",
		"tests/2.ans":  "-8\n",
	})
	var streamed []string
	res, err := sb.Judge(ctx, sandbox.JudgeRequest{ProblemDir: dir, Language: "c11", Source: src}, func(tr sandbox.TestResult) {
		t.Logf("streamed [%d/%d] %s %s %.3f s", tr.Index, tr.Total, tr.Name, tr.Verdict, tr.Time.Seconds())
		streamed = append(streamed, tr.Name)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != sandbox.Verdict("AC") || len(streamed) != 2 {
		t.Fatalf("verdict %s (%s), %d tests streamed; want AC and 2", res.Verdict, res.Note, len(streamed))
	}
	kill()
	return pluginLog.String()
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}
