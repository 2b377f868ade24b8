package plugin

import (
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner"
)

// The judging layer's tests run on the same fakes as the mechanism's
// (plugin/runner's fakeruntime_test.go, fakecgroup_test.go and
// fakestate_test.go, copied here: a test file is its package's own).

var testSelf = Instance{BootID: "boot-test", PID: 4242, Start: 987654, Host: "judge-test"}

func fakeRunner(t *testing.T, prog func(bindings.Spec) fakeProgram) (*Runner, *fakeRuntime, *fakeCgroups) {
	t.Helper()
	cg := newFakeCgroups(t)
	rt := newFakeRuntime(cg)
	rt.program = prog
	return &Runner{Runner: runner.Runner{Runtime: rt, Self: testSelf, Cgroups: cg, Shim: "/usr/libexec/podjail/podjail-shim"}}, rt, cg
}

func one(p fakeProgram) func(bindings.Spec) fakeProgram {
	return func(bindings.Spec) fakeProgram { return p }
}
