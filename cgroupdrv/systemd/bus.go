package systemd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"

	"github.com/podjail/podjail/cgroupdrv"
)

// Bus is one shared connection to a systemd manager that reconnects when
// the bus closed it (systemd or dbus-broker restarted). Safe for
// concurrent use.
type Bus struct {
	// User selects the caller's user manager (rootless) instead of the
	// system one. Zero value: the system manager.
	User bool

	mu   sync.Mutex
	conn *sd.Conn
}

func (b *Bus) name() string {
	if b.User {
		return "user manager bus"
	}
	return "system bus"
}

func (b *Bus) get(ctx context.Context) (*sd.Conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != nil {
		return b.conn, nil
	}
	var (
		c   *sd.Conn
		err error
	)
	// godbus closes a connection when the context it was made with ends:
	// the shared one must not end with the call that happened to make it
	// (a request in flight on it would lose its answer, and be retried).
	ctx = context.WithoutCancel(ctx)
	if b.User {
		c, err = sd.NewUserConnectionContext(ctx)
	} else {
		c, err = sd.NewSystemConnectionContext(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", cgroupdrv.ErrBusUnreachable, b.name(), err)
	}
	b.conn = c
	return c, nil
}

// drop forgets c if it is still the shared connection.
func (b *Bus) drop(c *sd.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == c {
		b.conn.Close()
		b.conn = nil
	}
}

// Do calls f with the shared connection, once more on a new connection if
// the first one turned out to be closed.
func (b *Bus) Do(ctx context.Context, f func(*sd.Conn) error) error {
	for attempt := 0; ; attempt++ {
		c, err := b.get(ctx)
		if err != nil {
			return err
		}
		err = f(c)
		if attempt == 0 && (errors.Is(err, dbus.ErrClosed) || !c.Connected()) {
			b.drop(c)
			continue
		}
		return err
	}
}

// Close closes the shared connection; a later call reconnects.
func (b *Bus) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != nil {
		b.conn.Close()
		b.conn = nil
	}
}

// Version is the manager's version: it proves the bus works.
func (b *Bus) Version(ctx context.Context) (string, error) {
	var v string
	err := b.Do(ctx, func(c *sd.Conn) error {
		p, err := c.GetManagerProperty("Version")
		v = strings.Trim(p, `"`)
		return err
	})
	if err != nil && !errors.Is(err, cgroupdrv.ErrBusUnreachable) {
		err = fmt.Errorf("%w: %s: %v", cgroupdrv.ErrBusUnreachable, b.name(), err)
	}
	return v, err
}
