package manager

import (
	"errors"
	"testing"

	"github.com/podjail/podjail/cgroupdrv"
)

func TestNewPicksTheDriverPodmanUses(t *testing.T) {
	for _, c := range []struct {
		manager  string
		rootless bool
		want     string
	}{{"systemd", false, "systemd"}, {"systemd", true, "systemd"}, {"cgroupfs", false, "cgroupfs"}} {
		d, err := New(c.manager, c.rootless)
		if err != nil || d.Name() != c.want {
			t.Errorf("New(%q, %t) = %v, %v; want %s", c.manager, c.rootless, d, err, c.want)
		}
	}
	for _, c := range []struct {
		manager  string
		rootless bool
	}{{"cgroupfs", true}, {"", false}, {"other", false}} {
		if _, err := New(c.manager, c.rootless); !errors.Is(err, cgroupdrv.ErrUnsupported) {
			t.Errorf("New(%q, %t): err %v, want ErrUnsupported", c.manager, c.rootless, err)
		}
	}
}
