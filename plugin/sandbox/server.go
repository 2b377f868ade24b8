package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/podjail/podjail/internal/capped"
	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// Engine is what the plugin serves: podjail's Runner and language table in
// the podjail-plugin binary (package plugin/sandbox/engine), a fake in
// tests. The server keeps the artefact handles and the protocol; the
// engine does the work. Its methods may be called concurrently.
//
// Errors: what happens to a submission is a value; an infrastructure
// failure is an error marked with one of the Err* kinds (Mark), or
// matching lang.ErrUnknownLanguage or problem.ErrInvalid, which the client
// gets back as that kind; any other error reaches it as ErrInternal.
type Engine interface {
	Capabilities(ctx context.Context) (Capabilities, error)
	// Build compiles source for language in a new directory under dir
	// and returns the build and that directory, also when the build
	// failed ("" if none was made); the caller removes it.
	Build(ctx context.Context, language string, source []byte, dir string) (Build, string, error)
	// Run runs artefacts once. Output and OutputTruncated of the result
	// are the server's business: the engine writes stdout to x.Output.
	Run(ctx context.Context, x Execution) (RunResult, error)
	// Judge judges a submission, calling progress (never nil) after each
	// test, one call at a time, in order.
	Judge(ctx context.Context, req JudgeRequest, progress func(TestResult)) (JudgeResult, error)
	// Exec runs a command of an image once, writing stdout to stdout.
	Exec(ctx context.Context, req ExecRequest, stdout io.Writer) (ExecResult, error)
}

// Artefacts are what Build left: the language they were built for and
// the directory holding them.
type Artefacts struct {
	Language string
	Dir      string
}

// Execution is one run of built artefacts.
type Execution struct {
	Artefacts Artefacts
	// InputPath is the program's stdin, a file on this host; "" for none.
	InputPath string
	Limits    Limits
	// Output receives stdout.
	Output io.Writer
}

// ServerOptions configure a Server.
type ServerOptions struct {
	// TmpDir holds the artefacts and inputs; it must be readable by the
	// Podman service. Zero value: os.TempDir().
	TmpDir string
	// Log receives the server's log. Zero value: nothing is logged.
	Log hclog.Logger
	// MaxUpload bounds an input kept in TmpDir for its run: an Exec's sent
	// whole, a Run's input_data, and a Run's input_path read for a caller
	// of another user.
	// Zero value: DefaultMaxUpload.
	MaxUpload int64
	// MaxProblemBytes bounds the files of a Judge's problem_dir copied for
	// a caller of another user (callerpaths.go). Zero value:
	// DefaultMaxProblemBytes.
	MaxProblemBytes int64
	// Bounds are what one request and one caller may take (bounds.go).
	// Zero value: each bound's default.
	Bounds Bounds
	// Images are the images an Exec may run (images.go): podjail serve
	// gives its language table's and its --image ones. Zero value (none):
	// any image, for the plugin a judge starts as its own user.
	Images []string
}

// DefaultMaxUpload is ServerOptions.MaxUpload's default: 1 GiB.
const DefaultMaxUpload = 1 << 30

// Server serves the Sandbox service over an Engine. It keeps each
// successful build's artefacts in its own directory until Release or
// Close. Make one with NewServer.
type Server struct {
	pb.UnimplementedSandboxServer

	engine     Engine
	log        hclog.Logger
	dir        string
	maxUpload  int64
	maxProblem int64
	guard      *guard

	stop   context.Context // cancelled by Close: ends every call
	cancel context.CancelFunc
	jobs   sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	handles map[string]*handle
}

type handle struct {
	Artefacts
	runs     int  // Runs using it now
	released bool // remove when runs drops to 0
}

// NewServer makes a server over e with its own temporary directory.
func NewServer(e Engine, opts ServerOptions) (*Server, error) {
	dir, err := os.MkdirTemp(opts.TmpDir, "podjail-plugin-")
	if err != nil {
		return nil, err
	}
	// Its own, whatever the umask: the Podman service mounts what it holds
	// by path (as root, or as this user rootless), so no one else needs in.
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	log := opts.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	stop, cancel := context.WithCancel(context.Background())
	return &Server{engine: e, log: log, dir: dir, maxUpload: cmp.Or(opts.MaxUpload, DefaultMaxUpload),
		maxProblem: cmp.Or(opts.MaxProblemBytes, DefaultMaxProblemBytes), guard: newGuard(opts),
		stop: stop, cancel: cancel, handles: map[string]*handle{}}, nil
}

// Close ends the calls under way (their contexts are cancelled), waits for
// them until ctx ends, and removes every artefact. Calls after Close fail
// with ErrUnavailable.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	done := make(chan struct{})
	go func() { s.jobs.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("calls still under way: %w", ctx.Err())
	}
	s.mu.Lock()
	s.handles = map[string]*handle{}
	s.mu.Unlock()
	if rerr := os.RemoveAll(s.dir); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// Handles is how many handles are held (for tests and logs).
func (s *Server) Handles() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.handles)
}

// begin registers a call; the returned context also ends at Close.
func (s *Server) begin(ctx context.Context) (context.Context, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, status.Error(codes.Unavailable, "the podjail plugin is shutting down")
	}
	s.jobs.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(s.stop, cancel)
	return ctx, func() { unhook(); cancel(); s.jobs.Done() }, nil
}

// fail logs an engine's error and turns it into a status error.
func (s *Server) fail(call string, err error) error {
	st := toStatus(err)
	switch c := status.Code(st); c {
	case codes.PermissionDenied, codes.ResourceExhausted:
		// The operator's bounds at work: worth seeing, not an error.
		s.log.Info(call+" refused", "code", c.String(), "error", err)
	case codes.InvalidArgument, codes.Canceled:
		s.log.Debug(call+" refused", "code", c.String(), "error", err)
	default:
		s.log.Error(call+" failed", "code", c.String(), "error", err)
	}
	return st
}

func (s *Server) Capabilities(ctx context.Context, _ *pb.CapabilitiesRequest) (*pb.CapabilitiesResponse, error) {
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	c, err := s.engine.Capabilities(ctx)
	if err != nil {
		return nil, s.fail("capabilities", err)
	}
	if c.ProtocolVersion == 0 {
		c.ProtocolVersion = int(Handshake.ProtocolVersion)
	}
	return capabilitiesPB(c), nil
}

func (s *Server) Compile(ctx context.Context, req *pb.CompileRequest) (*pb.CompileResponse, error) {
	ctx, done, err := s.beginCall(ctx, "compile")
	if err != nil {
		return nil, err
	}
	defer done()
	if len(req.GetSource()) == 0 {
		return nil, s.fail("compile", invalid("compile: the source is empty"))
	}
	slot, err := s.guard.reserveHandle(ctx)
	if err != nil {
		return nil, s.fail("compile", err)
	}
	defer slot.drop() // unless kept
	b, dir, err := s.engine.Build(ctx, req.GetLanguageId(), req.GetSource(), s.dir)
	if err != nil || !b.OK {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
		if err != nil {
			return nil, s.fail("compile", err)
		}
		return &pb.CompileResponse{Build: buildPB(b)}, nil
	}
	id := "h-" + randomHex(12)
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.handles[id] = &handle{Artefacts: Artefacts{Language: req.GetLanguageId(), Dir: dir}}
		slot.keep(id)
	}
	s.mu.Unlock()
	if closed {
		_ = os.RemoveAll(dir)
		return nil, status.Error(codes.Unavailable, "the podjail plugin is shutting down")
	}
	s.log.Debug("artefacts kept", "handle", id, "language", req.GetLanguageId())
	return &pb.CompileResponse{Build: buildPB(b), Handle: id}, nil
}

func (s *Server) Run(ctx context.Context, req *pb.RunRequest) (*pb.RunResponse, error) {
	ctx, done, err := s.beginCall(ctx, "run")
	if err != nil {
		return nil, err
	}
	defer done()
	limits, err := s.guard.bounds.runLimits(limitsGo(req.GetLimits()))
	if err != nil {
		return nil, s.fail("run", err)
	}
	h, err := s.acquire(req.GetHandle())
	if err != nil {
		return nil, s.fail("run", err)
	}
	defer s.unacquire(req.GetHandle(), h)

	x := Execution{Artefacts: h.Artefacts, Limits: limits}
	switch in := req.GetInput().(type) {
	case *pb.RunRequest_InputPath:
		if in.InputPath == "" {
			return nil, s.fail("run", invalid("run: input_path is empty"))
		}
		path, remove, err := s.runInput(ctx, in.InputPath)
		if err != nil {
			return nil, s.fail("run", err)
		}
		defer remove()
		x.InputPath = path
	case *pb.RunRequest_InputData:
		path, err := s.inputFrom(bytes.NewReader(in.InputData), "run: input_data")
		if err != nil {
			return nil, s.fail("run", err)
		}
		defer os.Remove(path)
		x.InputPath = path
	}
	var kept bytes.Buffer
	out := &capped.Writer{Dst: &kept, Limit: MaxOutput}
	x.Output = out
	res, err := s.engine.Run(ctx, x)
	if err != nil {
		return nil, s.fail("run", err)
	}
	res.Output = kept.Bytes()
	res.OutputTruncated = out.Over() || res.OutputBytes > int64(kept.Len())
	return runResultPB(res), nil
}

func (s *Server) Release(ctx context.Context, req *pb.ReleaseRequest) (*pb.ReleaseResponse, error) {
	_, done, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	id := req.GetHandle()
	s.mu.Lock()
	h, ok := s.handles[id]
	idle := false
	if ok {
		delete(s.handles, id)
		h.released = true
		idle = h.runs == 0
	}
	s.mu.Unlock()
	if !ok {
		return nil, s.fail("release", unknownHandle(id))
	}
	s.guard.released(id)
	if idle {
		_ = os.RemoveAll(h.Dir)
	}
	s.log.Debug("artefacts released", "handle", id)
	return &pb.ReleaseResponse{}, nil
}

func (s *Server) Judge(req *pb.JudgeRequest, stream pb.Sandbox_JudgeServer) error {
	ctx, done, err := s.beginCall(stream.Context(), "judge")
	if err != nil {
		return err
	}
	defer done()
	switch {
	case req.GetProblemDir() == "":
		return s.fail("judge", invalid("judge: problem_dir is empty"))
	case len(req.GetSource()) == 0:
		return s.fail("judge", invalid("judge: the source is empty"))
	}
	dir, remove, err := s.problemDir(ctx, req.GetProblemDir())
	if err != nil {
		return s.fail("judge", err)
	}
	defer remove()
	var sent int32
	var sendErr error
	progress := func(t TestResult) {
		if sendErr != nil {
			return
		}
		if sendErr = stream.Send(&pb.JudgeEvent{Event: &pb.JudgeEvent_Test{Test: testPB(t)}}); sendErr == nil {
			sent++
		}
	}
	res, err := s.engine.Judge(ctx, JudgeRequest{
		ProblemDir:         dir,
		Language:           req.GetLanguageId(),
		Source:             req.GetSource(),
		StopOnFirstFailure: req.GetStopOnFirstFailure(),
		Parallel:           int(req.GetParallel()),
		RetryIE:            req.GetRetryIe(),
	}, progress)
	switch {
	case err != nil:
		return s.fail("judge", err)
	case sendErr != nil:
		return sendErr
	}
	final := judgeResultPB(res)
	final.Tests = sent
	return stream.Send(&pb.JudgeEvent{Event: &pb.JudgeEvent_Result{Result: final}})
}

func unknownHandle(id string) error {
	return invalid(fmt.Sprintf("unknown handle %q (released, failed to build, or from another plugin process)", id))
}

// acquire finds a handle and keeps its artefacts until unacquire.
func (s *Server) acquire(id string) (*handle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.handles[id]
	if !ok {
		return nil, unknownHandle(id)
	}
	h.runs++
	return h, nil
}

func (s *Server) unacquire(id string, h *handle) {
	s.mu.Lock()
	h.runs--
	gone := h.released && h.runs == 0
	s.mu.Unlock()
	if gone {
		_ = os.RemoveAll(h.Dir)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var _ pb.SandboxServer = (*Server)(nil)
