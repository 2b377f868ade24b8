package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// Open starts the podjail-plugin binary at pluginPath and returns its
// Sandbox and a function that stops it. A plugin that cannot be started
// (missing, not executable, a handshake that does not match) is
// ErrFailedPrecondition. kill stops it (go-plugin's Kill: graceful, then
// SIGKILL after 2 s); call it once every call has returned. Calls still
// under way are cancelled: the plugin removes their containers if it can
// within those 2 s, and the next podjail to start on the host removes what
// is left.
//
// The plugin inherits this process's environment: CONTAINER_HOST picks
// the Podman socket, PODJAIL_SHIM the shim (default: podjail-shim beside
// the plugin), PODJAIL_LOG_LEVEL its log level. Its log comes through
// logger (nil: go-plugin's default, stderr). ctx bounds the start only.
func Open(ctx context.Context, pluginPath string, logger hclog.Logger) (Sandbox, func(), error) {
	return OpenCommand(ctx, exec.Command(pluginPath), logger)
}

// OpenCommand is Open with a command of the caller's, for flags (see
// podjail-plugin -h) or an environment of its own. cmd must not have been
// started.
func OpenCommand(ctx context.Context, cmd *exec.Cmd, logger hclog.Logger) (Sandbox, func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	cfg := &goplugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          PluginMap,
		Cmd:              cmd,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		Logger:           logger,
		GRPCDialOptions:  []grpc.DialOption{callOptions()},
	}
	if deadline, ok := ctx.Deadline(); ok {
		cfg.StartTimeout = time.Until(deadline)
	}
	client := goplugin.NewClient(cfg)
	sb, err := dispense(client)
	if err != nil {
		client.Kill()
		return nil, nil, fmt.Errorf("%w: start the podjail plugin %s: %v", ErrFailedPrecondition, cmd.Path, err)
	}
	return sb, client.Kill, nil
}

func dispense(client *goplugin.Client) (Sandbox, error) {
	rpc, err := client.Client()
	if err != nil {
		return nil, err
	}
	raw, err := rpc.Dispense(PluginName)
	if err != nil {
		return nil, err
	}
	sb, ok := raw.(Sandbox)
	if !ok {
		return nil, fmt.Errorf("the plugin dispensed a %T, not a Sandbox", raw)
	}
	return sb, nil
}

// Client is the Sandbox over a gRPC connection to the service.
type Client struct {
	rpc pb.SandboxClient
}

// NewClient returns the Sandbox served on conn (go-plugin's, or any
// connection to the service).
func NewClient(conn grpc.ClientConnInterface) *Client {
	return &Client{rpc: pb.NewSandboxClient(conn)}
}

var _ Sandbox = (*Client)(nil)

func (c *Client) Capabilities(ctx context.Context) (Capabilities, error) {
	resp, err := c.rpc.Capabilities(ctx, &pb.CapabilitiesRequest{})
	if err != nil {
		return Capabilities{}, fromStatus(err)
	}
	return capabilitiesGo(resp), nil
}

func (c *Client) Compile(ctx context.Context, language string, source []byte) (Compiled, error) {
	if len(source) > MaxMessage-(1<<20) {
		return Compiled{}, clientInvalid(fmt.Sprintf("compile: the source is %d bytes, over the %d the plugin accepts", len(source), MaxMessage-(1<<20)))
	}
	resp, err := c.rpc.Compile(ctx, &pb.CompileRequest{LanguageId: language, Source: source})
	if err != nil {
		return Compiled{}, fromStatus(err)
	}
	return Compiled{Build: buildGo(resp.GetBuild()), Handle: resp.GetHandle()}, nil
}

func (c *Client) Run(ctx context.Context, req RunRequest) (RunResult, error) {
	msg := &pb.RunRequest{Handle: req.Handle, Limits: limitsPB(req.Limits)}
	switch {
	case req.Input != nil && req.InputPath != "":
		return RunResult{}, clientInvalid("run: Input and InputPath are exclusive")
	case len(req.Input) > MaxMessage-(1<<20):
		return RunResult{}, clientInvalid(fmt.Sprintf("run: the input is %d bytes, over the %d the plugin accepts; pass InputPath instead", len(req.Input), MaxMessage-(1<<20)))
	case req.Input != nil:
		msg.Input = &pb.RunRequest_InputData{InputData: req.Input}
	case req.InputPath != "":
		msg.Input = &pb.RunRequest_InputPath{InputPath: req.InputPath}
	}
	resp, err := c.rpc.Run(ctx, msg)
	if err != nil {
		return RunResult{}, fromStatus(err)
	}
	return runResultGo(resp), nil
}

func (c *Client) Release(ctx context.Context, handle string) error {
	_, err := c.rpc.Release(ctx, &pb.ReleaseRequest{Handle: handle})
	return fromStatus(err)
}

func (c *Client) Judge(ctx context.Context, req JudgeRequest, progress func(TestResult)) (JudgeResult, error) {
	if len(req.Source) > MaxMessage-(1<<20) {
		return JudgeResult{}, clientInvalid(fmt.Sprintf("judge: the source is %d bytes, over the %d the plugin accepts", len(req.Source), MaxMessage-(1<<20)))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream if we return early
	stream, err := c.rpc.Judge(ctx, &pb.JudgeRequest{
		ProblemDir:         req.ProblemDir,
		LanguageId:         req.Language,
		Source:             req.Source,
		StopOnFirstFailure: req.StopOnFirstFailure,
		Parallel:           int32(req.Parallel),
		RetryIe:            req.RetryIE,
	})
	if err != nil {
		return JudgeResult{}, fromStatus(err)
	}
	var tests []TestResult
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return JudgeResult{}, &Error{Code: codes.Internal, Kind: ErrInternal, Message: fmt.Sprintf("judge: the stream ended after %d tests without a result", len(tests))}
		}
		if err != nil {
			return JudgeResult{}, fromStatus(err)
		}
		switch e := ev.GetEvent().(type) {
		case *pb.JudgeEvent_Test:
			t := testGo(e.Test)
			tests = append(tests, t)
			if progress != nil {
				progress(t)
			}
		case *pb.JudgeEvent_Result:
			return judgeResultGo(e.Result, tests), nil
		}
	}
}

func (c *Client) Exec(ctx context.Context, req ExecRequest, stdout io.Writer) (ExecResult, error) {
	preq, err := execRequestPB(req)
	if err != nil {
		return ExecResult{}, clientInvalid(err.Error())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream if we return early
	stream, err := c.rpc.Exec(ctx)
	if err != nil {
		return ExecResult{}, fromStatus(err)
	}
	if err := stream.Send(&pb.ExecInput{Input: &pb.ExecInput_Request{Request: preq}}); err != nil {
		return ExecResult{}, fromStatus(recvError(stream, err))
	}
	if req.Stdin != nil {
		go sendStdin(stream, req.Stdin)
	} else if err := stream.CloseSend(); err != nil {
		return ExecResult{}, fromStatus(err)
	}
	var files map[string][]byte
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return ExecResult{}, &Error{Code: codes.Internal, Kind: ErrInternal, Message: "exec: the stream ended without a result"}
		}
		if err != nil {
			return ExecResult{}, fromStatus(err)
		}
		switch e := ev.GetEvent().(type) {
		case *pb.ExecEvent_Stdout:
			if stdout != nil {
				if _, err := stdout.Write(e.Stdout); err != nil {
					return ExecResult{}, fmt.Errorf("exec: writing the program's stdout: %w", err)
				}
			}
		case *pb.ExecEvent_Stderr:
			if req.Stderr != nil {
				if _, err := req.Stderr.Write(e.Stderr); err != nil {
					return ExecResult{}, fmt.Errorf("exec: writing the program's stderr: %w", err)
				}
			}
		case *pb.ExecEvent_File:
			if files == nil {
				files = map[string][]byte{}
			}
			name := e.File.GetName()
			files[name] = append(files[name], e.File.GetData()...)
		case *pb.ExecEvent_Result:
			res := execResultGo(e.Result)
			res.Files = files
			return res, nil
		}
	}
}

// sendStdin sends r in pieces, then closes the caller's side. A read that
// fails ends stdin there; a send that fails means the call is over.
func sendStdin(stream pb.Sandbox_ExecClient, r io.Reader) {
	buf := make([]byte, execChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if stream.Send(&pb.ExecInput{Input: &pb.ExecInput_Stdin{Stdin: buf[:n]}}) != nil {
				return
			}
		}
		if err != nil {
			_ = stream.CloseSend()
			return
		}
	}
}

// recvError is the status behind a failed send: gRPC reports it on the
// receiving side.
func recvError(stream pb.Sandbox_ExecClient, err error) error {
	if errors.Is(err, io.EOF) {
		if _, rerr := stream.Recv(); rerr != nil {
			return rerr
		}
	}
	return err
}

func clientInvalid(msg string) error {
	return &Error{Code: codes.InvalidArgument, Kind: ErrInvalidArgument, Message: msg}
}
