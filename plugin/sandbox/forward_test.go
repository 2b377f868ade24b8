package sandbox

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"

	goplugin "github.com/hashicorp/go-plugin"
)

// TestForwardPassesEveryCallOn puts a Forward (what podjail-plugin serves
// when a service answers) between a judge and a server: every call gets
// the server's answer, streams arrive whole and in order, errors keep
// their kind, and the handles the plugin still holds are released in the
// service at Close.
func TestForwardPassesEveryCallOn(t *testing.T) {
	eng := okEngine()
	eng.tests = []TestResult{{Index: 1, Total: 2, Name: "1", Verdict: AC}, {Index: 2, Total: 2, Name: "2", Verdict: WA}}
	eng.judge = JudgeResult{Verdict: WA, Tests: eng.tests}
	service, srv := connect(t, eng)
	fwd := NewForward(service.(*Client))
	pluginConn, _ := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{PluginName: &GRPCPlugin{Impl: fwd}})
	t.Cleanup(func() { _ = pluginConn.Close() })
	raw, err := pluginConn.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	sb := raw.(Sandbox)
	ctx := context.Background()

	c, err := sb.Compile(ctx, "c11", []byte("int main(){}"))
	if err != nil || !c.OK || c.Handle == "" {
		t.Fatalf("Compile through the forward = %+v, %v", c, err)
	}
	c2, err := sb.Compile(ctx, "c11", []byte("int main(){}"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := sb.Run(ctx, RunRequest{Handle: c.Handle, Input: []byte("1 2\n")})
	if err != nil || r.ExitCode != eng.run.ExitCode || !bytes.Equal(r.Output, eng.output) {
		t.Errorf("Run through the forward = %+v, %v; want the engine's", r, err)
	}
	if err := sb.Release(ctx, c2.Handle); err != nil {
		t.Fatal(err)
	}
	var seen []TestResult
	j, err := sb.Judge(ctx, JudgeRequest{ProblemDir: "/p", Language: "c11", Source: []byte("x")}, func(t TestResult) { seen = append(seen, t) })
	if err != nil || j.Verdict != WA || !reflect.DeepEqual(seen, eng.tests) {
		t.Errorf("Judge through the forward = %+v, %v, progress %+v; want WA and the tests in order", j, err, seen)
	}
	var out bytes.Buffer
	x, err := sb.Exec(ctx, ExecRequest{Image: "i", Command: []string{"/p"}}, &out)
	if err != nil || x.Container != "podjail-fake" || !bytes.Equal(out.Bytes(), eng.output) {
		t.Errorf("Exec through the forward = %+v, %v, %q", x, err, out.Bytes())
	}
	if _, err := sb.Run(ctx, RunRequest{Handle: "h-nope"}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Run of an unknown handle through the forward = %v, want ErrInvalidArgument", err)
	}

	if srv.Handles() != 1 {
		t.Fatalf("the service holds %d handles, want 1 (one released)", srv.Handles())
	}
	if err := fwd.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if srv.Handles() != 0 {
		t.Errorf("the service holds %d handles after the forward closed, want 0", srv.Handles())
	}
}
