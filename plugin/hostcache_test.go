package plugin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
)

func TestHostCache(t *testing.T) {
	now := time.Now()
	c := hostCache{dir: t.TempDir(), now: func() time.Time { return now }}
	calls := 0
	fetch := func(context.Context) (bindings.HostInfo, error) {
		calls++
		return bindings.HostInfo{CgroupManager: "systemd", Version: "5.4.2"}, nil
	}
	ctx := context.Background()
	for range 3 {
		if h, err := c.get(ctx, "unix:///run/podman/podman.sock", fetch); err != nil || h.CgroupManager != "systemd" {
			t.Fatalf("%+v %v", h, err)
		}
	}
	if calls != 1 {
		t.Errorf("asked the service %d times in the TTL, want once", calls)
	}
	if _, err := c.get(ctx, "unix:///run/other.sock", fetch); err != nil || calls != 2 {
		t.Errorf("another service's info came from the cache (%d calls, %v)", calls, err)
	}
	now = now.Add(hostInfoTTL + time.Second)
	if _, err := c.get(ctx, "unix:///run/podman/podman.sock", fetch); err != nil || calls != 3 {
		t.Errorf("stale info was used (%d calls, %v)", calls, err)
	}
	failing := func(context.Context) (bindings.HostInfo, error) { return bindings.HostInfo{}, errors.New("down") }
	now = now.Add(hostInfoTTL + time.Second)
	if _, err := c.get(ctx, "unix:///run/podman/podman.sock", failing); err == nil {
		t.Error("a stale cache hid the service's failure")
	}
}
