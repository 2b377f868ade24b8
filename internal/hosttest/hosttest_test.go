package hosttest

import (
	"errors"
	"testing"
)

func TestManagerCacheAsksOncePerService(t *testing.T) {
	var m managerCache
	asked := 0
	fetch := func() (string, error) { asked++; return "systemd", nil }
	for i := 0; i < 3; i++ {
		if v, err := m.get("unix:///run/podman/podman.sock", false, fetch); err != nil || v != "systemd" {
			t.Fatalf("get = %q, %v; want systemd", v, err)
		}
	}
	if asked != 1 {
		t.Fatalf("asked %d times for one service; want 1", asked)
	}
	if _, err := m.get("unix:///run/user/1000/podman/podman.sock", true, fetch); err != nil || asked != 2 {
		t.Fatalf("another service: asked %d times, err %v; want 2, nil", asked, err)
	}
}

func TestManagerCacheKeepsNoFailure(t *testing.T) {
	var m managerCache
	down := errors.New("connection refused")
	if _, err := m.get("unix:///run/podman/podman.sock", false, func() (string, error) { return "", down }); !errors.Is(err, down) {
		t.Fatalf("err = %v; want the fetch's", err)
	}
	_, err := m.get("unix:///run/podman/podman.sock", false, func() (string, error) { return "", down })
	if !errors.Is(err, down) {
		t.Fatalf("after a failure, err = %v; want the service asked again and its failure", err)
	}
	v, err := m.get("unix:///run/podman/podman.sock", false, func() (string, error) { return "cgroupfs", nil })
	if err != nil || v != "cgroupfs" {
		t.Fatalf("get = %q, %v; want cgroupfs from a service that answers again", v, err)
	}
}
