package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// noPodman is a Runtime that records the container it is asked to create
// and creates none: the fuzzed requests go as far as Podman, no further.
type noPodman struct {
	bindings.Runtime // nil: any other call panics, and none must come before Create
	mu               sync.Mutex
	specs            []bindings.Spec
}

var errNoPodman = errors.New("no Podman in the fuzz test")

func (n *noPodman) Create(_ context.Context, s bindings.Spec) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.specs = append(n.specs, s)
	return "", errNoPodman
}
func (n *noPodman) Remove(context.Context, string) error       { return nil }
func (n *noPodman) Kill(context.Context, string, string) error { return nil }

// execStream is an Exec call: the request, then the end of stdin.
type execStream struct {
	pb.Sandbox_ExecServer
	req  *pb.ExecRequest
	sent bool
}

func (s *execStream) Context() context.Context { return context.Background() }
func (s *execStream) Send(*pb.ExecEvent) error { return nil }
func (s *execStream) Recv() (*pb.ExecInput, error) {
	if s.sent {
		return nil, io.EOF
	}
	s.sent = true
	return &pb.ExecInput{Input: &pb.ExecInput_Request{Request: s.req}}, nil
}

// recorded is an Engine that keeps the Exec requests the server gives it.
type recorded struct {
	*Engine
	mu    sync.Mutex
	execs []sandbox.ExecRequest
}

func (r *recorded) Exec(ctx context.Context, req sandbox.ExecRequest, stdout io.Writer) (sandbox.ExecResult, error) {
	r.mu.Lock()
	r.execs = append(r.execs, req)
	r.mu.Unlock()
	return r.Engine.Exec(ctx, req, stdout)
}

// fuzzBounds are the fuzzed server's: smaller than the defaults, so that
// the seeds fall on both sides of them.
var fuzzBounds = sandbox.Bounds{MaxMemory: 1 << 30, MaxPids: 512, MaxCPUs: 2, MaxTime: 10 * time.Second,
	MaxWall: time.Minute, DefaultWall: 30 * time.Second, MaxFileSize: 64 << 20}

// fuzzImages are the fuzzed server's allowed images, as they reach Podman.
var fuzzImages = []string{"i:latest", "localhost/podjail-gcc:latest"}

// withinBounds says what of x, as the engine got it, the server should
// have refused, "" if nothing: a limit over fuzzBounds, or no wall (none
// asked for and no time limit to derive one from).
func withinBounds(x sandbox.ExecRequest) string {
	b, l := fuzzBounds, x.Limits
	switch {
	case l.Memory > b.MaxMemory || x.Stack > b.MaxMemory || x.Pids > b.MaxPids || x.CPUs > b.MaxCPUs:
		return fmt.Sprintf("memory %d, stack %d, pids %d, cpus %v", l.Memory, x.Stack, x.Pids, x.CPUs)
	case l.Time > b.MaxTime || x.CPULimit > b.MaxTime || l.Wall > b.MaxWall || x.FileSize > b.MaxFileSize:
		return fmt.Sprintf("time %v, processor limit %v, wall %v, file size %d", l.Time, x.CPULimit, l.Wall, x.FileSize)
	case l.Wall <= 0 && l.Time <= 0:
		return "no wall"
	case !slices.Contains(fuzzImages, x.Image) && !slices.Contains(fuzzImages, x.Image+":latest"):
		return "image " + x.Image
	}
	return ""
}

// FuzzExecRequest holds that an Exec request off the wire (any protobuf
// bytes, capped at 16 KiB) never panics the service, which carries it as
// far as Podman (the real server, engine and Runner over a Runtime that
// creates nothing); that a request the service refuses is refused as the
// caller's (InvalidArgument, PermissionDenied or FailedPrecondition) with
// a message; that a request the server lets through is within its bounds
// (sandbox.Bounds, the allowed images) and has a wall; and that it reaches
// Podman as a container with positive memory, pids and processors, no
// more than the bounds and the shim's headroom, an allowed image and a
// program to run.
func FuzzExecRequest(f *testing.F) {
	for _, req := range []*pb.ExecRequest{
		{Image: "localhost/podjail-gcc:latest", Command: []string{"/bin/echo", "hi"}},
		{Image: "i", Command: []string{"/bin/sh", "-c", "cat"}, Stdin: pb.StdinFrom_STDIN_FROM_STREAM, Stderr: pb.StderrTo_STDERR_TO_CALLER,
			Limits: &pb.Limits{Time: durationpb.New(time.Second), MemoryBytes: 64 << 20, OutputBytes: 1 << 20, Wall: durationpb.New(5 * time.Second)}},
		{Image: "i", Command: []string{"/usr/bin/gcc", "main.c"}, WorkDir: "/box", Files: []*pb.File{{Name: "main.c", Data: []byte("int main(){}")}},
			Collect: []string{"a.out"}, Writable: true, Pids: 64, Cpus: 2, FileSizeBytes: 1 << 20, StackBytes: 8 << 20, MemoryExitCode: 3, Env: []string{"A=1"}},
		{Image: "i", Command: []string{"/x"}, Stdin: pb.StdinFrom_STDIN_FROM_UPLOAD, Stderr: pb.StderrTo_STDERR_TO_STDOUT,
			CpuLimit: durationpb.New(2 * time.Second), Limits: &pb.Limits{Time: durationpb.New(100 * 365 * 24 * time.Hour)}},
		{Image: "i", Command: []string{"/x"}, Limits: &pb.Limits{MemoryBytes: 1<<63 - 1}, Pids: 1<<63 - 1},
		{Image: "i", Command: []string{"x"}, Binds: []*pb.Bind{{Source: "/tmp", Destination: "/mnt", Writable: true}}},
	} {
		b, err := proto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		req := &pb.ExecRequest{}
		if len(wire) > 16<<10 || proto.Unmarshal(wire, req) != nil {
			return
		}
		rt := &noPodman{}
		e := &recorded{Engine: &Engine{runner: &plugin.Runner{Runner: runner.Runner{Runtime: rt, Shim: "/usr/libexec/podjail-shim"}}, langs: lang.Default(), tmpDir: t.TempDir(), bounds: fuzzBounds}}
		srv, err := sandbox.NewServer(e, sandbox.ServerOptions{TmpDir: t.TempDir(), Bounds: fuzzBounds, Images: []string{"i", fuzzImages[1]}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close(context.Background())
		err = srv.Exec(&execStream{req: req})
		for _, x := range e.execs {
			if why := withinBounds(x); why != "" {
				t.Fatalf("Exec(%v) reached the engine past the server's bounds: %s", req, why)
			}
		}
		if len(rt.specs) == 0 {
			switch st, _ := status.FromError(err); {
			case err == nil:
				t.Fatalf("Exec(%v) succeeded without Podman", req)
			case st.Message() == "":
				t.Fatalf("Exec(%v): %v, without a message", req, err)
			case st.Code() != codes.InvalidArgument && st.Code() != codes.PermissionDenied && st.Code() != codes.FailedPrecondition:
				t.Fatalf("Exec(%v) refused as %s, not as the caller's: %v", req, st.Code(), err)
			}
			return
		}
		// The shim's headroom is tens of MiB and tasks above the program's.
		const headroom = 64
		for _, s := range rt.specs {
			if s.MemoryBytes <= 0 || s.Pids <= 0 || s.CPUs <= 0 || len(s.Command) == 0 {
				t.Fatalf("Exec(%v) reached Podman as a container Podman cannot make: memory %d, pids %d, cpus %v, command %q",
					req, s.MemoryBytes, s.Pids, s.CPUs, s.Command)
			}
			if s.MemoryBytes > fuzzBounds.MaxMemory+headroom<<20 || s.Pids > fuzzBounds.MaxPids+headroom || s.CPUs > fuzzBounds.MaxCPUs ||
				!slices.Contains(fuzzImages, s.Image) && !slices.Contains(fuzzImages, s.Image+":latest") {
				t.Fatalf("Exec(%v) reached Podman past the bounds: image %s, memory %d, pids %d, cpus %v", req, s.Image, s.MemoryBytes, s.Pids, s.CPUs)
			}
		}
	})
}
