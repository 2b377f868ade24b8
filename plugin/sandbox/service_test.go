package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestPeerAllowed(t *testing.T) {
	const uid, gid = 1000, 2000
	for _, c := range []struct {
		peer  Peer
		group int
		want  bool
	}{
		{Peer{UID: 0, GID: 0}, -1, true},         // root
		{Peer{UID: uid, GID: 5}, -1, true},       // the service's own user
		{Peer{UID: 1001, GID: gid}, -1, false},   // no group given: others are out
		{Peer{UID: 1001, GID: gid}, gid, true},   // the group given
		{Peer{UID: 1001, GID: 2001}, gid, false}, // another group
	} {
		if got := PeerAllowed(c.peer, uid, c.group); got != c.want {
			t.Errorf("PeerAllowed(%+v, %d, %d) = %t, want %t", c.peer, uid, c.group, got, c.want)
		}
	}
}

// The service's socket: mode 0600, our own connection let in, the whole
// protocol over it (a judge's parallel reaches the engine), a second
// service on the same path refused, and Dial to nothing is ErrUnavailable.
func TestServiceOverUnixSocket(t *testing.T) {
	eng := &fakeEngine{caps: Capabilities{Version: "test"}, judge: JudgeResult{Verdict: AC},
		tests: []TestResult{{Index: 1, Total: 1, Name: "1", Verdict: AC}}}
	srv, err := NewServer(eng, ServerOptions{TmpDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run", "podjail.sock")
	lis, err := Listen(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v, want mode 0600", fi, err)
	}
	g := NewServiceServer(srv)
	go func() { _ = g.Serve(AllowPeers(lis, -1, hclog.NewNullLogger())) }()
	t.Cleanup(func() { g.Stop(); _ = srv.Close(context.Background()) })

	ctx := context.Background()
	c, closeFn, err := Dial(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	var seen []string
	res, err := c.Judge(ctx, JudgeRequest{ProblemDir: "/p", Language: "c11", Source: []byte("x"), Parallel: 2, RetryIE: true},
		func(t TestResult) { seen = append(seen, t.Name) })
	if err != nil || res.Verdict != AC || len(seen) != 1 {
		t.Fatalf("judge through the socket: %+v %v, progress %v", res, err, seen)
	}
	if eng.lastJudge.Parallel != 2 || !eng.lastJudge.RetryIE || eng.lastJudge.ProblemDir != "/p" {
		t.Errorf("the engine got %+v, want parallel 2, retry_ie and the problem /p", eng.lastJudge)
	}
	if _, err := Listen(path, -1); !errors.Is(err, ErrFailedPrecondition) {
		t.Errorf("a second service on a live socket: %v, want ErrFailedPrecondition", err)
	}
	if _, _, err := Dial(ctx, filepath.Join(t.TempDir(), "none.sock")); !errors.Is(err, ErrUnavailable) {
		t.Errorf("dial to no service: %v, want ErrUnavailable", err)
	}
}
