package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"

	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// The service (podjail serve) speaks the plugin's protocol on a Unix
// socket. Who may call is the socket's business: its mode lets in its
// owner and, with a group, that group's members; every connection's peer
// credentials (SO_PEERCRED) are checked again at accept, since a socket
// handed over by systemd may carry any mode. Nothing a caller says widens
// it.

// DefaultSocket is where the service listens and clients look when no
// path is given: /run/podjail/podjail.sock for root, else
// $XDG_RUNTIME_DIR/podjail/podjail.sock, or /run/user/UID/podjail/podjail.sock
// when that is unset (omegaUp's Runner clears the environment of the
// omegajail it runs; systemd's user sockets are there).
func DefaultSocket() string {
	uid := os.Geteuid()
	if uid == 0 {
		return "/run/podjail/podjail.sock"
	}
	d := os.Getenv("XDG_RUNTIME_DIR")
	if d == "" {
		d = fmt.Sprintf("/run/user/%d", uid)
	}
	return filepath.Join(d, "podjail", "podjail.sock")
}

// Listen makes the service's socket at path, mode 0600, or 0660 owned by
// group gid when gid >= 0. A socket file left by a service that is gone is
// replaced; one a live service answers on is an error.
func Listen(path string, gid int) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if conn, err := net.Dial("unix", path); err == nil {
		_ = conn.Close()
		return nil, fmt.Errorf("%w: a service already listens on %s", ErrFailedPrecondition, path)
	}
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	mode := os.FileMode(0o600)
	if gid >= 0 {
		mode = 0o660
		if err := os.Chown(path, -1, gid); err != nil {
			_ = l.Close()
			return nil, fmt.Errorf("give the socket %s to group %d: %w", path, gid, err)
		}
	}
	if err := os.Chmod(path, mode); err != nil {
		_ = l.Close()
		return nil, err
	}
	return l, nil
}

// Peer is who is at the other end of a connection (SO_PEERCRED).
type Peer struct {
	PID      int32
	UID, GID uint32
}

// PeerAllowed says whether a peer may call a service running as uid:
// root, the service's own user, and, when gid >= 0, the processes whose
// group is gid. Everyone else is refused, whatever the socket's mode.
func PeerAllowed(p Peer, uid, gid int) bool {
	return p.UID == 0 || int(p.UID) == uid || (gid >= 0 && int(p.GID) == gid)
}

// peerListener closes, at accept, the connections of peers PeerAllowed
// refuses, and logs them.
type peerListener struct {
	net.Listener
	uid, gid int
	log      hclog.Logger
}

// AllowPeers wraps a Unix socket listener so that only the peers
// PeerAllowed lets in (for this process's user and group gid; -1: none)
// get a connection.
func AllowPeers(l net.Listener, gid int, log hclog.Logger) net.Listener {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &peerListener{Listener: l, uid: os.Geteuid(), gid: gid, log: log}
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		peer, err := peerOf(conn)
		if err == nil && PeerAllowed(peer, l.uid, l.gid) {
			return peerConn{conn, peer}, nil
		}
		l.log.Warn("refused a connection", "peer_pid", peer.PID, "peer_uid", peer.UID, "peer_gid", peer.GID, "error", err)
		_ = conn.Close()
	}
}

// peerConn is an accepted connection that knows its peer: its
// RemoteAddr, which gRPC gives each call (peer.FromContext), is a PeerAddr.
type peerConn struct {
	net.Conn
	peer Peer
}

func (c peerConn) RemoteAddr() net.Addr { return PeerAddr{Addr: c.Conn.RemoteAddr(), Peer: c.peer} }

// PeerAddr is the address of a call that came through AllowPeers: who
// called.
type PeerAddr struct {
	net.Addr
	Peer Peer
}

// mayNameHostPaths says whether the caller of ctx may have the server use
// host paths with its own rights (an input file, bind mounts): a caller
// of the service's own user or root. A call that did not come through
// AllowPeers (the judge that started its plugin) may.
func mayNameHostPaths(ctx context.Context) (Peer, bool) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return Peer{}, true
	}
	a, ok := p.Addr.(PeerAddr)
	if !ok {
		return Peer{}, true
	}
	return a.Peer, a.Peer.UID == 0 || int(a.Peer.UID) == os.Geteuid()
}

func peerOf(conn net.Conn) (Peer, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return Peer{}, errors.New("not a Unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Peer{}, err
	}
	if credErr != nil {
		return Peer{}, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}, nil
}

// NewServiceServer is the gRPC server of the service: s's protocol, with
// the plugin's message sizes, and gRPC's standard health service (SERVING
// while the server serves: a caller, or the service's own watchdog, sees
// its loop answer without asking Podman anything).
func NewServiceServer(s *Server) *grpc.Server {
	g := grpc.NewServer(grpc.MaxRecvMsgSize(MaxMessage), grpc.MaxSendMsgSize(MaxMessage))
	pb.RegisterSandboxServer(g, s)
	healthpb.RegisterHealthServer(g, health.NewServer())
	return g
}

// dialWait bounds Dial's wait for the connection when ctx has no
// deadline: a socket-activated service starts within it.
const dialWait = 30 * time.Second

// Dial reaches the service on the Unix socket at path and waits until the
// connection is up (the service accepted this caller), so a missing, dead
// or refusing service is an error now, ErrUnavailable, not at the first
// call. It asks the service nothing: Capabilities asks Podman, which costs
// as much as a runner's setup. close ends the connection.
func Dial(ctx context.Context, path string) (c *Client, close func() error, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("%w: no podjail service at %s (start one with podjail serve): %v", ErrUnavailable, path, err)
	}
	// gRPC gives up a connection whose handshake takes longer than its
	// MinConnectTimeout (20 s by default); a socket-activated service
	// answers once set up, which in a container under emulation took
	// longer (TestQuadletServiceJudges): wait as long as Dial does.
	params := grpc.ConnectParams{Backoff: backoff.DefaultConfig, MinConnectTimeout: dialWait}
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()), callOptions(), grpc.WithConnectParams(params))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, path, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, dialWait)
		defer cancel()
	}
	conn.Connect()
	for {
		s := conn.GetState()
		if s == connectivity.Ready {
			return NewClient(conn), conn.Close, nil
		}
		if s == connectivity.TransientFailure || s == connectivity.Shutdown {
			_ = conn.Close()
			return nil, nil, fmt.Errorf("%w: the podjail service at %s does not accept this caller's connection (not running, or the caller is not let in)", ErrUnavailable, path)
		}
		if !conn.WaitForStateChange(ctx, s) {
			_ = conn.Close()
			return nil, nil, fmt.Errorf("%w: the podjail service at %s: %v", ErrUnavailable, path, ctx.Err())
		}
	}
}

// DialService finds the service a caller goes through: path, else
// $PODJAIL_SERVICE (either must answer), else DefaultSocket when a service
// answers there. "none" means none. nil, nil, nil: no service; the caller
// works in its own process.
func DialService(ctx context.Context, path string, log hclog.Logger) (*Client, func() error, error) {
	if path == "" {
		path = os.Getenv("PODJAIL_SERVICE")
	}
	switch path {
	case "none":
		return nil, nil, nil
	case "":
		def := DefaultSocket()
		if def == "" {
			return nil, nil, nil
		}
		if _, err := os.Stat(def); err != nil {
			return nil, nil, nil
		}
		c, closeFn, err := Dial(ctx, def)
		if err != nil {
			if log != nil {
				log.Warn("the default podjail service does not answer; working in this process", "socket", def, "error", err)
			}
			return nil, nil, nil
		}
		return c, closeFn, nil
	}
	return Dial(ctx, path)
}
