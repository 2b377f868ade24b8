package bindings

import (
	"errors"
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
	if !errors.Is(rootful, cause) {
		t.Error("UnreachableError does not wrap its cause")
	}
}
