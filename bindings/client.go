package bindings

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/containers/podman/v5/libpod/define"
	"github.com/containers/podman/v5/pkg/bindings"
	"github.com/containers/podman/v5/pkg/bindings/containers"
	"github.com/containers/podman/v5/pkg/bindings/images"
	"github.com/containers/podman/v5/pkg/bindings/system"
	"github.com/containers/podman/v5/pkg/errorhandling"
)

// Runtime is what podjail needs from a container engine.
type Runtime interface {
	// ImageExists reports whether image is in the service's storage.
	ImageExists(ctx context.Context, image string) (bool, error)
	// Create makes a container from spec without starting it.
	Create(ctx context.Context, spec Spec) (id string, err error)
	// Attach connects stdin, stdout and stderr (each may be nil) and
	// closes ready once attached; it returns when the streams end.
	Attach(ctx context.Context, id string, stdin io.Reader, stdout, stderr io.Writer, ready chan<- struct{}) error
	Start(ctx context.Context, id string) error
	// Wait blocks until the container has stopped and returns its exit code.
	Wait(ctx context.Context, id string) (int32, error)
	Inspect(ctx context.Context, id string) (State, error)
	// Kill sends signal ("KILL", "TERM") to the container's first
	// process. A container that already stopped is not an error.
	Kill(ctx context.Context, id, signal string) error
	// Remove removes the container, killing it first if it runs. A
	// container already gone is not an error.
	Remove(ctx context.Context, id string) error
	// ListByLabel lists every container, running or not, that carries
	// the label key (with any value); key "" lists every container.
	ListByLabel(ctx context.Context, key string) ([]Container, error)
	// Host describes the service's host.
	Host(ctx context.Context) (HostInfo, error)
	// CopyIn extracts the tar stream into dir of a created container.
	CopyIn(ctx context.Context, id, dir string, tar io.Reader) error
	// CopyOut writes path of a container, as a tar stream, to w.
	CopyOut(ctx context.Context, id, path string, w io.Writer) error
}

// State is what inspect tells of a container.
type State struct {
	Status     string
	Running    bool
	ExitCode   int32
	OOMKilled  bool
	StartedAt  time.Time
	FinishedAt time.Time
	// CgroupPath is the container's cgroup as Podman reports it.
	CgroupPath string
	// ProcessLabel is the container's SELinux process label; empty on a
	// host without SELinux.
	ProcessLabel string
}

// Container is one entry of ListByLabel.
type Container struct {
	ID     string
	Name   string
	State  string
	Labels map[string]string
}

// HostInfo is what podjail checks of the service's host.
type HostInfo struct {
	Version       string
	APIVersion    string
	OCIRuntime    string
	CgroupManager string
	CgroupVersion string
	Rootless      bool
	SELinux       bool
}

var _ Runtime = (*Client)(nil)

// callContext carries the caller's deadline and cancellation and the
// connection's values, which the Podman bindings look up in the context.
type callContext struct {
	context.Context
	conn context.Context
}

func (c callContext) Value(key any) any {
	if v := c.conn.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

func (c *Client) call(ctx context.Context) context.Context {
	return callContext{Context: ctx, conn: c.conn}
}

// relabelHint says what to do when Podman could not relabel a file it
// mounts (the "z" of spec.go) on an SELinux host: rootless, it may relabel
// only the user's own files.
func relabelHint(msg string) string {
	if !strings.Contains(msg, "lsetxattr(label=") || !strings.Contains(msg, "operation not permitted") {
		return ""
	}
	return " (Podman relabels what a run mounts for SELinux, and a user's Podman may relabel only the user's own files: " +
		"give the user the files, or label them beforehand: chcon -R -t container_file_t -l s0 PATH)"
}

// typed maps the API's error answers onto this package's sentinels.
func typed(op, what string, err error) error {
	if err == nil {
		return nil
	}
	var model *errorhandling.ErrorModel
	if errors.As(err, &model) {
		switch model.ResponseCode {
		case 404:
			return &podmanError{fmt.Errorf("%s %s: %w: %s", op, what, ErrNotFound, model.Error())}
		case 409:
			return &podmanError{fmt.Errorf("%s %s: %w: %s", op, what, ErrConflict, model.Error())}
		}
		return &podmanError{fmt.Errorf("%s %s: Podman answered: %w%s", op, what, err, relabelHint(model.Error()))}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: %w", op, what, err)
	}
	// Not an answer of the API: the connection failed (the service
	// stopped, restarted or crashed). Say so: it is never the program's.
	return &podmanError{fmt.Errorf("%s %s: the Podman service failed to answer: %w", op, what, err)}
}

func (c *Client) ImageExists(ctx context.Context, image string) (bool, error) {
	ok, err := images.Exists(c.call(ctx), image, nil)
	return ok, typed("look up image", image, err)
}

func (c *Client) Create(ctx context.Context, spec Spec) (string, error) {
	sg, err := spec.generator()
	if err != nil {
		return "", err
	}
	resp, err := containers.CreateWithSpec(c.call(ctx), sg, nil)
	var model *errorhandling.ErrorModel
	if errors.As(err, &model) && model.ResponseCode == 404 && strings.Contains(model.Error(), "no such image") {
		return "", &ImageMissingError{Image: spec.Image}
	}
	if err != nil {
		return "", typed("create container from", spec.Image, err)
	}
	return resp.ID, nil
}

func (c *Client) Attach(ctx context.Context, id string, stdin io.Reader, stdout, stderr io.Writer, ready chan<- struct{}) error {
	// Attach replaces the transport of the connection it is given, so it
	// gets one of its own.
	conn, err := dial(ctx, c.url, c.rootless)
	if err != nil {
		return err
	}
	// The dial's ping leaves a connection idle in the transport Attach
	// replaces, and nothing would close it: a long-lived service would keep
	// one open file per run. Both transports are emptied once it ends.
	defer closeIdle(conn)()
	bridge := make(chan bool, 1)
	go func() {
		if <-bridge {
			close(ready)
		}
	}()
	defer close(bridge)
	err = containers.Attach(callContext{Context: ctx, conn: conn}, id, boxReader(stdin), boxWriter(stdout), boxWriter(stderr), bridge, nil)
	return typed("attach to", id, err)
}

// Podman's Attach tells an absent stream by reflect.Value.IsNil, which
// panics on one that is not a pointer (io.Discard): each stream given goes
// to it behind a pointer.
type (
	boxedReader struct{ io.Reader }
	boxedWriter struct{ io.Writer }
)

func boxReader(r io.Reader) io.Reader {
	if r == nil {
		return nil
	}
	return &boxedReader{r}
}

func boxWriter(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &boxedWriter{w}
}

// closeIdle returns a function that closes the idle connections of conn's
// transport as it is now and as it is then.
func closeIdle(conn context.Context) func() {
	pc, err := bindings.GetClient(conn)
	if err != nil {
		return func() {}
	}
	before := pc.Client.Transport
	return func() {
		for _, t := range []http.RoundTripper{before, pc.Client.Transport} {
			if t, ok := t.(*http.Transport); ok {
				t.CloseIdleConnections()
			}
		}
	}
}

func (c *Client) Start(ctx context.Context, id string) error {
	return typed("start", id, containers.Start(c.call(ctx), id, nil))
}

func (c *Client) Wait(ctx context.Context, id string) (int32, error) {
	code, err := containers.Wait(c.call(ctx), id, new(containers.WaitOptions).WithCondition([]define.ContainerStatus{define.ContainerStateStopped, define.ContainerStateExited}))
	return code, typed("wait for", id, err)
}

func (c *Client) Inspect(ctx context.Context, id string) (State, error) {
	data, err := containers.Inspect(c.call(ctx), id, new(containers.InspectOptions).WithSize(false))
	if err != nil {
		return State{}, typed("inspect", id, err)
	}
	var st State
	if s := data.State; s != nil {
		st.Status = s.Status
		st.Running = s.Running
		st.ExitCode = s.ExitCode
		st.OOMKilled = s.OOMKilled
		st.StartedAt = s.StartedAt
		st.FinishedAt = s.FinishedAt
		st.CgroupPath = s.CgroupPath
	}
	st.ProcessLabel = data.ProcessLabel
	return st, nil
}

func (c *Client) Kill(ctx context.Context, id, signal string) error {
	err := containers.Kill(c.call(ctx), id, new(containers.KillOptions).WithSignal(signal))
	if errors.Is(typed("", "", err), ErrConflict) {
		return nil // already stopped
	}
	return typed("kill", id, err)
}

func (c *Client) Remove(ctx context.Context, id string) error {
	_, err := containers.Remove(c.call(ctx), id, new(containers.RemoveOptions).WithForce(true).WithTimeout(0).WithVolumes(true))
	err = typed("remove", id, err)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

func (c *Client) ListByLabel(ctx context.Context, key string) ([]Container, error) {
	opts := new(containers.ListOptions).WithAll(true)
	if key != "" {
		opts = opts.WithFilters(map[string][]string{"label": {key}})
	}
	list, err := containers.List(c.call(ctx), opts)
	if err != nil {
		return nil, typed("list containers labelled", key, err)
	}
	out := make([]Container, 0, len(list))
	for _, l := range list {
		name := ""
		if len(l.Names) > 0 {
			name = l.Names[0]
		}
		out = append(out, Container{ID: l.ID, Name: name, State: l.State, Labels: l.Labels})
	}
	return out, nil
}

func (c *Client) Host(ctx context.Context) (HostInfo, error) {
	info, err := system.Info(c.call(ctx), nil)
	if err != nil {
		return HostInfo{}, typed("ask", "host info", err)
	}
	h := info.Host
	runtime := ""
	if h.OCIRuntime != nil {
		runtime = h.OCIRuntime.Name
	}
	return HostInfo{
		Version:       info.Version.Version,
		APIVersion:    info.Version.APIVersion,
		OCIRuntime:    runtime,
		CgroupManager: h.CgroupManager,
		CgroupVersion: h.CgroupsVersion,
		Rootless:      h.Security.Rootless,
		SELinux:       h.Security.SELinuxEnabled,
	}, nil
}

func (c *Client) CopyIn(ctx context.Context, id, dir string, tar io.Reader) error {
	copyFn, err := containers.CopyFromArchive(c.call(ctx), id, dir, tar)
	if err != nil {
		return typed("copy into", id, err)
	}
	return typed("copy into", id, copyFn())
}

func (c *Client) CopyOut(ctx context.Context, id, path string, w io.Writer) error {
	copyFn, err := containers.CopyToArchive(c.call(ctx), id, path, w)
	if err != nil {
		return typed("copy out of", id, err)
	}
	return typed("copy out of", id, copyFn())
}
