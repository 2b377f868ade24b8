package bindings

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiscoveryURL(t *testing.T) {
	cases := []struct {
		name string
		d    Discovery
		want string
	}{
		{"flag wins", Discovery{Flag: "unix:///a.sock", ContainerHost: "unix:///b.sock", UID: 1000}, "unix:///a.sock"},
		{"CONTAINER_HOST next", Discovery{ContainerHost: "tcp://127.0.0.1:8080", UID: 1000}, "tcp://127.0.0.1:8080"},
		{"rootless socket", Discovery{XDGRuntimeDir: "/run/user/1000", UID: 1000}, "unix:///run/user/1000/podman/podman.sock"},
		{"rootless without XDG_RUNTIME_DIR", Discovery{UID: 1001}, "unix:///run/user/1001/podman/podman.sock"},
		{"root", Discovery{XDGRuntimeDir: "/run/user/0"}, "unix:///run/podman/podman.sock"},
	}
	for _, c := range cases {
		if got := c.d.URL(); got != c.want {
			t.Errorf("%s: URL() = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestUnreachableErrorAdvice(t *testing.T) {
	cause := errors.New("connection refused")
	rootless := &UnreachableError{Socket: "unix:///run/user/1000/podman/podman.sock", Rootless: true, Err: cause}
	if !strings.Contains(rootless.Error(), "systemctl --user enable --now podman.socket") || !strings.Contains(rootless.Error(), rootless.Socket) {
		t.Errorf("rootless advice missing: %s", rootless)
	}
	rootful := &UnreachableError{Socket: RootfulSocket, Err: cause}
	if !strings.Contains(rootful.Error(), "sudo systemctl enable --now podman.socket") {
		t.Errorf("rootful advice missing: %s", rootful)
	}
	if strings.Contains(rootful.Error(), "install Podman") || !strings.Contains(rootful.Error(), "podjail doctor") {
		t.Errorf("installed Podman: want no install advice and a pointer to podjail doctor: %s", rootful)
	}
	missing := &UnreachableError{Socket: RootfulSocket, NoPodman: true, Err: cause}
	if !strings.Contains(missing.Error(), "install Podman 5 (Fedora, RHEL: sudo dnf install podman") {
		t.Errorf("no podman command: want the install advice: %s", missing)
	}
	if !errors.Is(rootful, cause) {
		t.Error("UnreachableError does not wrap its cause")
	}
}

// pingServer answers only /_ping, with the given API version, on a unix
// socket: enough to exercise Connect's version gate.
func pingServer(t *testing.T, version string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "podman.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/_ping") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Libpod-API-Version", version)
		_, _ = w.Write([]byte("OK"))
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "unix://" + sock
}

func TestConnectRefusesPodmanOlderThan5(t *testing.T) {
	_, err := Connect(context.Background(), pingServer(t, "4.9.3"), false)
	if !errors.Is(err, ErrTooOld) || !strings.Contains(err.Error(), "Podman 5 or newer") {
		t.Fatalf("Podman 4 server: err = %v, want ErrTooOld with advice", err)
	}
	c, err := Connect(context.Background(), pingServer(t, "5.4.2"), false)
	if err != nil || c.APIVersion() != "5.4.2" {
		t.Fatalf("Podman 5 server: %v (version %v)", err, c)
	}
}

func TestConnectReportsTheSocketTried(t *testing.T) {
	url := "unix://" + filepath.Join(t.TempDir(), "absent.sock")
	_, err := Connect(context.Background(), url, true)
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) || unreachable.Socket != url {
		t.Fatalf("err = %v, want UnreachableError naming %s", err, url)
	}
}
