package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/plugin/sandbox"
)

// capsEngine is a service's engine that only answers Capabilities: what
// health asks.
type capsEngine struct {
	caps sandbox.Capabilities
	err  error
}

var errOnlyCaps = errors.New("capsEngine answers Capabilities only")

func (e capsEngine) Capabilities(context.Context) (sandbox.Capabilities, error) { return e.caps, e.err }
func (capsEngine) Build(context.Context, string, []byte, string) (sandbox.Build, string, error) {
	return sandbox.Build{}, "", errOnlyCaps
}
func (capsEngine) Run(context.Context, sandbox.Execution) (sandbox.RunResult, error) {
	return sandbox.RunResult{}, errOnlyCaps
}
func (capsEngine) Judge(context.Context, sandbox.JudgeRequest, func(sandbox.TestResult)) (sandbox.JudgeResult, error) {
	return sandbox.JudgeResult{}, errOnlyCaps
}
func (capsEngine) Exec(context.Context, sandbox.ExecRequest, io.Writer) (sandbox.ExecResult, error) {
	return sandbox.ExecResult{}, errOnlyCaps
}

// serveCaps serves e on a socket of the test's, as podjail serve does.
func serveCaps(t *testing.T, e capsEngine) string {
	t.Helper()
	srv, err := sandbox.NewServer(e, sandbox.ServerOptions{TmpDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "podjail.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	g := sandbox.NewServiceServer(srv)
	go func() { _ = g.Serve(sandbox.AllowPeers(lis, -1, nil)) }()
	t.Cleanup(func() {
		g.Stop()
		_ = srv.Close(context.Background())
	})
	return sock
}

func healthJSON(t *testing.T, args ...string) (healthReport, cmdResult) {
	t.Helper()
	r := podjailHere(append([]string{"health", "--json", "--timeout", "10s"}, args...)...)
	var rep healthReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("podjail health --json %v: not JSON (exit %d): %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
	}
	return rep, r
}

// checkNames are the names of a report's checks and whether each passed.
func checkNames(r healthReport) string {
	var s []string
	for _, c := range r.Checks {
		s = append(s, c.Name+map[bool]string{true: "+", false: "-"}[c.OK])
	}
	return strings.Join(s, " ")
}

// TestHealthJSON: --json reports each check health made, up to the first
// that failed, with the exit codes of the line it replaces.
func TestHealthJSON(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.sock")
	rep, r := healthJSON(t, "--service", missing)
	if r.code != exitFailure || rep.Healthy || rep.Service != missing || checkNames(rep) != "service-" ||
		!strings.Contains(rep.Checks[0].Detail, "does not answer") || rep.Checks[0].Fix == "" {
		t.Errorf("no service: exit %d, %+v; want %d and a failed service check with its fix", r.code, rep, exitFailure)
	}

	caps := sandbox.Capabilities{Version: "1.2.3", Host: sandbox.Host{PodmanVersion: "5.4.0", CgroupManager: "cgroupfs"}}
	sock := serveCaps(t, capsEngine{caps: caps})
	rep, r = healthJSON(t, "--service", sock)
	if r.code != exitOK || !rep.Healthy || rep.Version != "1.2.3" || checkNames(rep) != "service+ podman+" || rep.Checks[1].Detail != "Podman 5.4.0" {
		t.Errorf("healthy service: exit %d, %+v; want 0, the service and its Podman", r.code, rep)
	}
	line := podjailHere("health", "--service", sock)
	if want := "healthy: podjail 1.2.3 at " + sock + ", Podman 5.4.0\n"; line.code != exitOK || line.stdout != want {
		t.Errorf("podjail health: exit %d, %q; want 0, %q", line.code, line.stdout, want)
	}

	down := serveCaps(t, capsEngine{err: sandbox.Mark(errors.New("podman.sock: connection refused"), sandbox.ErrUnavailable)})
	rep, r = healthJSON(t, "--service", down)
	if r.code != exitFailure || rep.Healthy || checkNames(rep) != "service+ podman-" || !strings.Contains(rep.Checks[1].Detail, "Podman does not answer") {
		t.Errorf("Podman down: exit %d, %+v; want %d and a failed podman check", r.code, rep, exitFailure)
	}
}

// TestHealthSystemd: under the systemd cgroup manager, health asks the bus
// too, and says when it does not answer.
func TestHealthSystemd(t *testing.T) {
	caps := sandbox.Capabilities{Version: "1.2.3", Host: sandbox.Host{PodmanVersion: "5.4.0", CgroupManager: "systemd", Rootless: true}}
	sock := serveCaps(t, capsEngine{caps: caps})
	var asked []bool
	rep := health(context.Background(), sock, func(rootless bool) (string, error) { asked = append(asked, rootless); return "257", nil })
	if want := "healthy: podjail 1.2.3 at " + sock + ", Podman 5.4.0, systemd 257"; !rep.Healthy || rep.line() != want || len(asked) != 1 || !asked[0] {
		t.Errorf("health: %q (asked the user bus: %v); want %q", rep.line(), asked, want)
	}
	rep = health(context.Background(), sock, func(bool) (string, error) { return "", errors.New("no bus") })
	if rep.Healthy || checkNames(rep) != "service+ podman+ systemd-" || !strings.HasPrefix(rep.line(), "unhealthy: the systemd bus the runs' slices need does not answer") {
		t.Errorf("health without a bus: %q, %s", rep.line(), checkNames(rep))
	}
}
