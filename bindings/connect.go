package bindings

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/containers/podman/v5/pkg/bindings"
)

// RootfulSocket is where a rootful Podman service listens.
const RootfulSocket = "unix:///run/podman/podman.sock"

// Discovery holds what socket discovery looks at, so it can be tested
// without touching the process environment.
type Discovery struct {
	// Flag is the --url value. Zero value: not given.
	Flag string
	// ContainerHost is $CONTAINER_HOST. Zero value: unset.
	ContainerHost string
	// XDGRuntimeDir is $XDG_RUNTIME_DIR. Zero value: unset, and a
	// non-root caller gets /run/user/<uid>.
	XDGRuntimeDir string
	// UID is the caller's effective uid.
	UID int
}

// URL picks the Podman API URL: the flag, else CONTAINER_HOST, else the
// user's own socket when not root, else the rootful socket.
func (d Discovery) URL() string {
	switch {
	case d.Flag != "":
		return d.Flag
	case d.ContainerHost != "":
		return d.ContainerHost
	case d.UID != 0:
		dir := d.XDGRuntimeDir
		if dir == "" {
			dir = fmt.Sprintf("/run/user/%d", d.UID)
		}
		return "unix://" + filepath.Join(dir, "podman", "podman.sock")
	default:
		return RootfulSocket
	}
}

// Client talks to one Podman service. It is safe for concurrent use: calls
// share one connection, and Attach, which takes over a connection's
// transport, opens one of its own.
type Client struct {
	url      string
	rootless bool
	conn     context.Context
	version  string
}

// Connect reaches the Podman service at url and refuses one older than
// Podman 5. rootless only shapes the advice in an UnreachableError.
func Connect(ctx context.Context, url string, rootless bool) (*Client, error) {
	conn, err := dial(ctx, url, rootless)
	if err != nil {
		return nil, err
	}
	v := bindings.ServiceVersion(conn)
	if v.Major < 5 {
		return nil, fmt.Errorf("%w: the Podman service at %s speaks API %s; podjail needs Podman 5 or newer (upgrade podman)", ErrTooOld, url, v)
	}
	return &Client{url: url, rootless: rootless, conn: conn, version: v.String()}, nil
}

func dial(ctx context.Context, url string, rootless bool) (context.Context, error) {
	// WithoutCancel: the connection outlives the call that made it; each
	// request carries its own context through withCall.
	conn, err := bindings.NewConnection(context.WithoutCancel(ctx), url)
	if err != nil {
		_, lookErr := exec.LookPath("podman")
		return nil, &UnreachableError{Socket: url, Rootless: rootless, NoPodman: lookErr != nil, Err: err}
	}
	return conn, nil
}

// URL is the socket this client talks to.
func (c *Client) URL() string { return c.url }

// APIVersion is the server's API version.
func (c *Client) APIVersion() string { return c.version }
