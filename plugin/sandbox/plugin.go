package sandbox

import (
	"context"
	"errors"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// PluginName is the name the plugin is dispensed under.
const PluginName = "sandbox"

// Handshake is shared by the podjail-plugin binary and its hosts. The
// magic cookie is not a secret: it only keeps the binary from being run
// by hand by mistake.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "PODJAIL_PLUGIN",
	MagicCookieValue: "5a9861046a14520efdd995db4a13773c16349a00a6ff596f14aa59a82989e540",
}

// PluginMap is what a host dispenses from; the plugin binary serves its
// own map whose GRPCPlugin has Impl set.
var PluginMap = map[string]goplugin.Plugin{
	PluginName: &GRPCPlugin{},
}

// GRPCPlugin is the go-plugin glue: GRPCServer registers Impl in the
// plugin process, GRPCClient makes the Sandbox a host uses.
type GRPCPlugin struct {
	// net/rpc is not served.
	goplugin.NetRPCUnsupportedPlugin
	// Impl is the service: a *Server, or a *Forward to a podjail service;
	// set in the plugin process only.
	Impl pb.SandboxServer
}

var _ goplugin.GRPCPlugin = (*GRPCPlugin)(nil)

func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("sandbox: GRPCPlugin.Impl is not set")
	}
	pb.RegisterSandboxServer(s, p.Impl)
	return nil
}

func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewClient(c), nil
}

// NewGRPCServer is goplugin.DefaultGRPCServer accepting messages up to
// MaxMessage (sources and inputs) instead of gRPC's default 4 MiB; the
// plugin binary serves with it.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	return goplugin.DefaultGRPCServer(append(opts, grpc.MaxRecvMsgSize(MaxMessage), grpc.MaxSendMsgSize(MaxMessage)))
}

// callOptions are the client's message size limits, matching NewGRPCServer.
func callOptions() grpc.DialOption {
	return grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessage), grpc.MaxCallSendMsgSize(MaxMessage))
}
