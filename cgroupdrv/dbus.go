package cgroupdrv

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// SystemdVersion asks the systemd manager for its version over D-Bus: the
// system instance for root, the caller's user instance otherwise. It proves
// the bus podjail uses to start and stop slices is there.
func SystemdVersion(rootless bool) (string, error) {
	var (
		conn *dbus.Conn
		err  error
		bus  = "system bus"
	)
	if rootless {
		bus = "user bus"
		conn, err = dbus.ConnectSessionBus()
	} else {
		conn, err = dbus.ConnectSystemBus()
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrBusUnreachable, bus, err)
	}
	defer conn.Close()
	v, err := conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").
		GetProperty("org.freedesktop.systemd1.Manager.Version")
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrBusUnreachable, bus, err)
	}
	s, _ := v.Value().(string)
	return s, nil
}
