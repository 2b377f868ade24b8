package plugin

import (
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

// The judging layer's tests run on the same fakes as the mechanism's:
// plugin/runner/runnertest's Runtime and Cgroups.

var testSelf = runner.Instance{BootID: "boot-test", PID: 4242, Start: 987654, Host: "judge-test"}

func fakeRunner(t *testing.T, prog func(bindings.Spec) runnertest.Program) (*Runner, *runnertest.Runtime, *runnertest.Cgroups) {
	t.Helper()
	cg := runnertest.NewCgroups(t)
	rt := runnertest.NewRuntime(cg)
	rt.SetProgram(prog)
	return &Runner{Runner: runner.Runner{Runtime: rt, Self: testSelf, Cgroups: cg, Shim: "/usr/libexec/podjail/podjail-shim"}}, rt, cg
}

func one(p runnertest.Program) func(bindings.Spec) runnertest.Program {
	return func(bindings.Spec) runnertest.Program { return p }
}
