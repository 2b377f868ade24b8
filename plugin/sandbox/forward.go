package sandbox

import (
	"context"
	"errors"
	"io"
	"sync"

	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// Forward serves the protocol by passing every call on to a podjail
// service (podjail serve): podjail-plugin does this when a service answers,
// so that a judge's plugin shares the host's one runner. Status errors come
// back as the service sent them. The handles the service makes for this
// plugin are released at Close, as a plugin's own are when it exits.
type Forward struct {
	pb.UnimplementedSandboxServer
	rpc pb.SandboxClient

	mu      sync.Mutex
	handles map[string]bool
}

// NewForward passes calls on to the service behind c.
func NewForward(c *Client) *Forward {
	return &Forward{rpc: c.rpc, handles: map[string]bool{}}
}

func (f *Forward) Capabilities(ctx context.Context, req *pb.CapabilitiesRequest) (*pb.CapabilitiesResponse, error) {
	return f.rpc.Capabilities(ctx, req)
}

func (f *Forward) Compile(ctx context.Context, req *pb.CompileRequest) (*pb.CompileResponse, error) {
	resp, err := f.rpc.Compile(ctx, req)
	if err == nil && resp.GetHandle() != "" {
		f.mu.Lock()
		f.handles[resp.GetHandle()] = true
		f.mu.Unlock()
	}
	return resp, err
}

func (f *Forward) Run(ctx context.Context, req *pb.RunRequest) (*pb.RunResponse, error) {
	return f.rpc.Run(ctx, req)
}

func (f *Forward) Release(ctx context.Context, req *pb.ReleaseRequest) (*pb.ReleaseResponse, error) {
	f.mu.Lock()
	delete(f.handles, req.GetHandle())
	f.mu.Unlock()
	return f.rpc.Release(ctx, req)
}

func (f *Forward) Judge(req *pb.JudgeRequest, stream pb.Sandbox_JudgeServer) error {
	in, err := f.rpc.Judge(stream.Context(), req)
	if err != nil {
		return err
	}
	return relay(in.Recv, stream.Send)
}

func (f *Forward) Exec(stream pb.Sandbox_ExecServer) error {
	out, err := f.rpc.Exec(stream.Context())
	if err != nil {
		return err
	}
	go func() {
		// The caller's request and stdin, on to the service.
		if relay(stream.Recv, out.Send) == nil {
			_ = out.CloseSend()
		}
	}()
	return relay(out.Recv, stream.Send)
}

// relay copies a server stream's events from the service to the caller
// until the service ends it.
func relay[T any](recv func() (*T, error), send func(*T) error) error {
	for {
		ev, err := recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := send(ev); err != nil {
			return err
		}
	}
}

// Close releases the handles this plugin still holds in the service.
func (f *Forward) Close(ctx context.Context) error {
	f.mu.Lock()
	held := f.handles
	f.handles = map[string]bool{}
	f.mu.Unlock()
	var errs []error
	for h := range held {
		if _, err := f.rpc.Release(ctx, &pb.ReleaseRequest{Handle: h}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var _ pb.SandboxServer = (*Forward)(nil)
