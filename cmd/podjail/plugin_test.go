package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/sandbox"
)

// TestPluginJudgesEndToEnd loads the real podjail-plugin binary the way a
// Go judge does, compiles and runs once, then judges the A+B example with
// the results of each test streamed as it finishes.
func TestPluginJudgesEndToEnd(t *testing.T) {
	env := hosttest.Podman(t)
	problems, _ := judgeFiles(t, env)
	bin := filepath.Join(filepath.Dir(env.Podjail), "podjail-plugin")
	logger := hclog.New(&hclog.LoggerOptions{Name: "judge", Level: hclog.Info, Output: testWriter{t}})
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

	dir := filepath.Join(problems, "aplusb")
	src, err := os.ReadFile(filepath.Join(dir, "solutions", "accepted.c"))
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

	var streamed []string
	res, err := sb.Judge(ctx, sandbox.JudgeRequest{ProblemDir: dir, Language: "c11", Source: src}, func(tr sandbox.TestResult) {
		t.Logf("streamed [%d/%d] %s %s %.3f s", tr.Index, tr.Total, tr.Name, tr.Verdict, tr.Time.Seconds())
		streamed = append(streamed, tr.Name)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != sandbox.Verdict("AC") || len(streamed) != 4 {
		t.Fatalf("verdict %s (%s), %d tests streamed; want AC and 4", res.Verdict, res.Note, len(streamed))
	}
	assertNothingLeft(t, env, "")
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}
