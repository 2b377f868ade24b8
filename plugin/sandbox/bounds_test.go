package sandbox

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// TestBoundsRefuseWhatIsOverThem: each limit a Run or Exec may ask for is
// refused past its bound, as ErrInvalidArgument naming the flag that
// raises it; at the bound it passes, and zero (the default) always does.
func TestBoundsRefuseWhatIsOverThem(t *testing.T) {
	b := Bounds{}.WithDefaults()
	exec := ExecRequest{Image: "i", Command: []string{"/p"}}
	for _, c := range []struct {
		name string
		set  func(x *ExecRequest, over bool)
		flag string
	}{
		{"memory", func(x *ExecRequest, o bool) { x.Limits.Memory = b.MaxMemory + btoi64(o) }, "--max-memory"},
		{"stack", func(x *ExecRequest, o bool) { x.Stack = b.MaxMemory + btoi64(o) }, "--max-memory"},
		{"pids", func(x *ExecRequest, o bool) { x.Pids = b.MaxPids + btoi64(o) }, "--max-pids"},
		{"CPUs", func(x *ExecRequest, o bool) { x.CPUs = b.MaxCPUs + float64(btoi64(o))/2 }, "--max-cpus"},
		{"time", func(x *ExecRequest, o bool) { x.Limits.Time = b.MaxTime + time.Duration(btoi64(o)) }, "--max-time"},
		{"processor time limit", func(x *ExecRequest, o bool) { x.CPULimit = b.MaxTime + time.Duration(btoi64(o)) }, "--max-time"},
		{"wall", func(x *ExecRequest, o bool) { x.Limits.Wall = b.MaxWall + time.Duration(btoi64(o)) }, "--max-wall"},
		{"file size", func(x *ExecRequest, o bool) { x.FileSize = b.MaxFileSize + btoi64(o) }, "--max-file-size"},
	} {
		for _, over := range []bool{false, true} {
			x := exec
			c.set(&x, over)
			_, err := b.execLimits(x)
			if (err != nil) != over {
				t.Errorf("exec %s (over %t): %v", c.name, over, err)
			}
			if over && (!errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), c.flag) || !strings.Contains(err.Error(), c.name)) {
				t.Errorf("exec %s over its bound: %v, want ErrInvalidArgument naming %s and %s", c.name, err, c.name, c.flag)
			}
		}
	}
	for _, l := range []Limits{{Memory: b.MaxMemory + 1}, {Time: b.MaxTime + 1}, {Wall: b.MaxWall + 1}, {Memory: -1}} {
		if _, err := b.runLimits(l); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("run %+v: %v, want ErrInvalidArgument", l, err)
		}
	}
}

func btoi64(b bool) int64 { return int64(btoi(b)) }

// TestEveryRunHasAWall: a run that asks for neither a wall nor a time
// limit to derive one from gets the default wall; one that asks keeps
// what it asked.
func TestEveryRunHasAWall(t *testing.T) {
	b := Bounds{DefaultWall: 7 * time.Second}.WithDefaults()
	for _, c := range []struct {
		limits   Limits
		cpuLimit time.Duration
		want     time.Duration
	}{
		{Limits{}, 0, 7 * time.Second},
		{Limits{}, time.Second, 7 * time.Second}, // a processor limit stops no sleeper
		{Limits{Wall: time.Second}, 0, time.Second},
		{Limits{Time: time.Second}, 0, 0}, // the judge's deadlines from L
	} {
		x, err := b.execLimits(ExecRequest{Image: "i", Command: []string{"/p"}, Limits: c.limits, CPULimit: c.cpuLimit})
		if err != nil || x.Limits.Wall != c.want {
			t.Errorf("exec %+v, processor limit %v: wall %v (%v), want %v", c.limits, c.cpuLimit, x.Limits.Wall, err, c.want)
		}
	}
	// A Run's time is a processor ceiling: no wall follows from it.
	for _, l := range []Limits{{}, {Time: time.Second}} {
		got, err := b.runLimits(l)
		if err != nil || got.Wall != 7*time.Second {
			t.Errorf("run %+v: wall %v (%v), want the default 7s", l, got.Wall, err)
		}
	}
}

func TestBoundsCheck(t *testing.T) {
	if err := (Bounds{}).Check(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	for _, b := range []Bounds{
		{MaxMemory: 128 << 20},
		{MaxPids: 10},
		{MaxCPUs: 0.5},
		{DefaultWall: time.Hour},
		{MaxCalls: 2, MaxCallsPerCaller: 3},
		{MaxHandles: -1},
		{MaxTime: -time.Second},
	} {
		if err := b.Check(); err == nil {
			t.Errorf("%+v passed Check", b)
		}
	}
}

func TestImageKey(t *testing.T) {
	for name, want := range map[string]string{
		"localhost/podjail-gcc":                     "localhost/podjail-gcc:latest",
		"localhost/podjail-gcc:latest":              "localhost/podjail-gcc:latest",
		"localhost:5000/x":                          "localhost:5000/x:latest",
		"localhost:5000/x:1":                        "localhost:5000/x:1",
		"quay.io/a/b@sha256:0123":                   "quay.io/a/b@sha256:0123",
		"alpine":                                    "alpine:latest",
		"docker.io/library/alpine:3.20":             "docker.io/library/alpine:3.20",
		"registry.example:443/team/judge:2026-12.1": "registry.example:443/team/judge:2026-12.1",
	} {
		if got := imageKey(name); got != want {
			t.Errorf("imageKey(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestExecRunsOnlyAllowedImages: with ServerOptions.Images, an Exec of
// another image is refused (ErrPermissionDenied, saying how to allow it)
// before the engine sees it; without, any image runs.
func TestExecRunsOnlyAllowedImages(t *testing.T) {
	eng := okEngine()
	srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir(), Images: []string{"localhost/podjail-gcc:latest", "localhost/extra"}})
	if err != nil {
		t.Fatal(err)
	}
	sb := connectServer(t, srv)
	for _, image := range []string{"localhost/podjail-gcc", "localhost/extra:latest"} {
		if _, err := sb.Exec(context.Background(), ExecRequest{Image: image, Command: []string{"/p"}}, nil); err != nil {
			t.Errorf("allowed image %s: %v", image, err)
		}
	}
	_, err = sb.Exec(context.Background(), ExecRequest{Image: "localhost/secrets:1", Command: []string{"/p"}}, nil)
	if !errors.Is(err, ErrPermissionDenied) || !strings.Contains(err.Error(), "--image localhost/secrets:1") {
		t.Errorf("an image outside the list: %v, want ErrPermissionDenied saying --image localhost/secrets:1", err)
	}
	if eng.execs != 2 {
		t.Errorf("the engine ran %d Execs, want the 2 allowed", eng.execs)
	}
	any, _ := connect(t, okEngine())
	if _, err := any.Exec(context.Background(), ExecRequest{Image: "localhost/secrets:1", Command: []string{"/p"}}, nil); err != nil {
		t.Errorf("a server with no list: %v, want any image", err)
	}
}

// TestExecOverBoundsNeverReachesTheEngine: through the wire, the refusal
// is InvalidArgument with the flag in it, and the default wall reaches the
// engine.
func TestExecOverBoundsNeverReachesTheEngine(t *testing.T) {
	eng := okEngine()
	srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir(), Bounds: Bounds{MaxMemory: 1 << 30, DefaultWall: 9 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	sb := connectServer(t, srv)
	_, err = sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}, Limits: Limits{Memory: 2 << 30}}, nil)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "--max-memory") || !strings.Contains(err.Error(), "2 GiB") {
		t.Errorf("2 GiB over a 1 GiB bound: %v", err)
	}
	if eng.execs != 0 {
		t.Errorf("the engine ran a refused Exec")
	}
	if _, err := sb.Exec(context.Background(), ExecRequest{Image: "i", Command: []string{"/p"}}, nil); err != nil {
		t.Fatal(err)
	}
	if w := eng.lastExec.Limits.Wall; w != 9*time.Second {
		t.Errorf("the engine got wall %v, want the default 9s", w)
	}
}

// gateEngine holds each Run until its test lets it go, and says when one
// has come.
type gateEngine struct {
	*fakeEngine
	came chan struct{}
	go_  chan struct{}
}

func (g gateEngine) Run(ctx context.Context, x Execution) (RunResult, error) {
	g.came <- struct{}{}
	select {
	case <-g.go_:
	case <-ctx.Done():
		return RunResult{}, ctx.Err()
	}
	return g.fakeEngine.Run(ctx, x)
}

// asPeer is ctx as a call from uid through AllowPeers.
func asPeer(ctx context.Context, uid uint32) context.Context {
	return peer.NewContext(ctx, &peer.Peer{Addr: PeerAddr{Addr: &net.UnixAddr{Name: "@", Net: "unix"}, Peer: Peer{UID: uid, GID: uid}}})
}

// TestCallsPastTheirShareAreBusy: a caller with MaxCallsPerCaller calls
// under way is refused the next at once (ResourceExhausted, saying how
// many and which flag), while another caller is not; past MaxCalls every
// caller is; once a call ends, the next is taken. The judge that started
// its plugin counts as one caller.
func TestCallsPastTheirShareAreBusy(t *testing.T) {
	g := gateEngine{fakeEngine: okEngine(), came: make(chan struct{}), go_: make(chan struct{})}
	srv, err := NewServer(g, ServerOptions{TmpDir: t.TempDir(), Bounds: Bounds{MaxCallsPerCaller: 2, MaxCalls: 3}})
	if err != nil {
		t.Fatal(err)
	}
	sb := connectServer(t, srv)
	c, err := sb.Compile(context.Background(), "c11", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	req := &pb.RunRequest{Handle: c.Handle}
	ended := make(chan error, 8)
	start := func(ctx context.Context) {
		go func() { _, err := srv.Run(ctx, req); ended <- err }()
		<-g.came
	}
	alice, bob, carol := asPeer(context.Background(), 1001), asPeer(context.Background(), 1002), asPeer(context.Background(), 1003)
	start(alice)
	start(alice)
	_, err = srv.Run(alice, req)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "2 calls of yours are under way; the limit is 2 (--max-calls-per-caller)") {
		t.Errorf("alice's third call: %v, want busy naming --max-calls-per-caller", err)
	}
	start(bob)
	_, err = srv.Run(carol, req)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "(--max-calls)") {
		t.Errorf("carol's call with 3 under way: %v, want busy naming --max-calls", err)
	}
	// Through the plugin's own connection: the same kind, client side.
	if _, err := sb.Run(context.Background(), RunRequest{Handle: c.Handle}); !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "busy") {
		t.Errorf("the judge's own call with 3 under way: %v, want ErrResourceExhausted", err)
	}
	g.go_ <- struct{}{}
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	start(carol) // a call ended: there is room again
	close(g.go_)
	for range 3 {
		if err := <-ended; err != nil {
			t.Error(err)
		}
	}
}

// TestHandlesPerCaller: a caller keeping MaxHandles handles is refused a
// new Compile (ResourceExhausted, saying to release some) before anything
// is built; another caller is not; a Release, or a failed build, frees
// the slot.
func TestHandlesPerCaller(t *testing.T) {
	eng := okEngine()
	srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir(), Bounds: Bounds{MaxHandles: 2}})
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := asPeer(context.Background(), 1001), asPeer(context.Background(), 1002)
	compile := func(ctx context.Context) (*pb.CompileResponse, error) {
		return srv.Compile(ctx, &pb.CompileRequest{LanguageId: "c11", Source: []byte("x")})
	}
	eng.errs = map[string]error{"build": errors.New("podman failed")}
	if _, err := compile(alice); err == nil {
		t.Fatal("a failing build did not fail")
	}
	eng.errs = nil
	var kept []string
	for range 2 {
		r, err := compile(alice)
		if err != nil {
			t.Fatalf("alice's compile (a failed build holds no handle): %v", err)
		}
		kept = append(kept, r.GetHandle())
	}
	builds := len(eng.buildDirs)
	_, err = compile(alice)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "release some handles") || !strings.Contains(err.Error(), "--max-handles") {
		t.Errorf("alice's third handle: %v, want ResourceExhausted saying to release some", err)
	}
	if len(eng.buildDirs) != builds {
		t.Error("the refused compile was built")
	}
	if _, err := compile(bob); err != nil {
		t.Errorf("bob's first handle: %v", err)
	}
	// Anyone holding the handle may release it; the slot is its owner's.
	if _, err := srv.Release(bob, &pb.ReleaseRequest{Handle: kept[0]}); err != nil {
		t.Fatal(err)
	}
	if _, err := compile(alice); err != nil {
		t.Errorf("alice's compile after a release: %v", err)
	}
}

// TestResourceExhaustedRoundTrips: the new kind crosses the wire as
// codes.ResourceExhausted and matches ErrResourceExhausted alone.
func TestResourceExhaustedRoundTrips(t *testing.T) {
	err := busy("busy: test")
	if Code(err) != codes.ResourceExhausted {
		t.Errorf("Code = %s", Code(err))
	}
	back := fromStatus(toStatus(err))
	for _, k := range append(kinds, ErrPermissionDenied) {
		if errors.Is(back, k) {
			t.Errorf("%v matches %v", back, k)
		}
	}
	if !errors.Is(back, ErrResourceExhausted) || !strings.Contains(back.Error(), "busy: test") {
		t.Errorf("round trip: %v", back)
	}
}
