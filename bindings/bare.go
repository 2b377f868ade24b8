package bindings

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/containers/podman/v5/pkg/bindings"
	"github.com/containers/podman/v5/pkg/bindings/containers"
	"github.com/containers/podman/v5/pkg/specgen"
)

// BareLabel marks the containers of BareLifecycle, so that one left by a
// bench killed mid-way can be found (podman ps --filter label=...).
const BareLabel = "podjail.bench.bare"

// BareLifecycle is Podman's own work for one container and nothing of
// podjail's: the image's command created with no network, started,
// waited for and removed; no attach, no limits, no mounts, no shim.
// podjail bench times it as the floor under every run. It gives the
// command's exit code.
func (c *Client) BareLifecycle(ctx context.Context, image string, command []string) (int32, error) {
	return c.bare(ctx, image, command, nil)
}

// BareAttachedLifecycle is BareLifecycle with the container's stdout
// attached before the start and copied to out, as podjail attaches to
// every run: podjail bench's measure of what the attach alone costs.
func (c *Client) BareAttachedLifecycle(ctx context.Context, image string, command []string, out io.Writer) (int32, error) {
	return c.bare(ctx, image, command, out)
}

// BareIdle creates and starts a bare container of the image's command,
// labelled as BareLifecycle's, and leaves it running: podjail bench keeps
// such containers alive beside its bare lifecycles, as many as a judge
// keeps armed ahead, to see what Podman's work per container owes to the
// containers alive. The caller removes it (Remove).
func (c *Client) BareIdle(ctx context.Context, image string, command []string) (string, error) {
	resp, err := containers.CreateWithSpec(c.call(ctx), bareSpec(image, command), nil)
	if err != nil {
		return "", typed("create a bare container from", image, err)
	}
	if err := c.Start(ctx, resp.ID); err != nil {
		_ = c.Remove(context.WithoutCancel(ctx), resp.ID)
		return "", fmt.Errorf("start a bare container: %w", err)
	}
	return resp.ID, nil
}

// bareSpec is a bare container: the image's command, no network, labelled.
func bareSpec(image string, command []string) *specgen.SpecGenerator {
	g := specgen.NewSpecGenerator(image, false)
	g.Command = command
	g.Labels = map[string]string{BareLabel: "1"}
	g.NetNS = specgen.Namespace{NSMode: specgen.NoNetwork}
	return g
}

func (c *Client) bare(ctx context.Context, image string, command []string, out io.Writer) (int32, error) {
	resp, err := containers.CreateWithSpec(c.call(ctx), bareSpec(image, command), nil)
	if err != nil {
		return 0, typed("create a bare container from", image, err)
	}
	var attached chan error
	if out != nil {
		attached = make(chan error, 1)
		ready := make(chan struct{})
		go func() { attached <- c.Attach(ctx, resp.ID, nil, out, nil, ready) }()
		select {
		case <-ready:
		case err = <-attached:
			err = fmt.Errorf("attach to a bare container: %w", err)
		}
	}
	var exit int32
	if err == nil {
		exit, err = c.startAndWait(ctx, resp.ID)
		if attached != nil && err == nil {
			if aerr := <-attached; aerr != nil {
				err = fmt.Errorf("attach to a bare container: %w", aerr)
			}
		}
	}
	if rerr := c.Remove(context.WithoutCancel(ctx), resp.ID); err == nil && rerr != nil {
		err = fmt.Errorf("remove a bare container: %w", rerr)
	}
	return exit, err
}

func (c *Client) startAndWait(ctx context.Context, id string) (int32, error) {
	if err := c.Start(ctx, id); err != nil {
		return 0, fmt.Errorf("start a bare container: %w", err)
	}
	return c.Wait(ctx, id)
}

// Ping asks the service its cheapest question (the libpod API's _ping):
// it answers while Podman serves, without the host inspection that Host
// costs. A watchdog asks it often.
func (c *Client) Ping(ctx context.Context) error {
	conn, err := bindings.GetClient(c.call(ctx))
	if err != nil {
		return err
	}
	resp, err := conn.DoRequest(c.call(ctx), nil, http.MethodGet, "/_ping", nil, nil)
	if err != nil {
		return typed("ping", "Podman", err)
	}
	defer resp.Body.Close()
	return typed("ping", "Podman", resp.Process(nil))
}
