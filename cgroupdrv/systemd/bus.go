package systemd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

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

	// open opens one connection to the bus, not yet authenticated (tests
	// give a fake bus's). Zero value: the bus User selects, at its
	// address from the environment or the default one.
	open func(opts ...dbus.ConnOption) (*dbus.Conn, error)

	mu   sync.Mutex
	conn *sd.Conn
	// gone is closed once either of conn's two connections (calls, and
	// the signals that carry the jobs' results) has closed.
	gone <-chan struct{}
	// made says a connection was made before; reconnects counts those
	// made after it.
	made       bool
	reconnects atomic.Uint64
}

// Reconnects is how many connections were made after the first (the bus
// closed one, or a call found it broken).
func (b *Bus) Reconnects() uint64 { return b.reconnects.Load() }

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
	// godbus closes a connection when the context it was made with ends:
	// the shared one must not end with the call that happened to make it
	// (a request in flight on it would lose its answer, and be retried).
	ctx = context.WithoutCancel(ctx)
	var raw []*dbus.Conn
	c, err := sd.NewConnection(func() (*dbus.Conn, error) {
		conn, err := b.dial(ctx)
		if err == nil {
			raw = append(raw, conn)
		}
		return conn, err
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", cgroupdrv.ErrBusUnreachable, b.name(), err)
	}
	gone := make(chan struct{})
	var once sync.Once
	for _, r := range raw {
		context.AfterFunc(r.Context(), func() { once.Do(func() { close(gone) }) })
	}
	b.conn, b.gone = c, gone
	if b.made {
		b.reconnects.Add(1)
	}
	b.made = true
	return c, nil
}

// dial makes one authenticated connection, as go-systemd's
// NewSystemConnectionContext and NewUserConnectionContext do (EXTERNAL
// with the uid: no user name to look up), keeping the *dbus.Conn, whose
// context says when it closed.
func (b *Bus) dial(ctx context.Context) (*dbus.Conn, error) {
	open := b.open
	switch {
	case open != nil:
	case b.User:
		open = dbus.SessionBusPrivate
	default:
		open = dbus.SystemBusPrivate
	}
	conn, err := open(dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	if err := conn.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// lost returns a channel closed once c has closed: the bus hung up, or
// c was dropped after a call found it broken.
func (b *Bus) lost(c *sd.Conn) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == c {
		return b.gone
	}
	closed := make(chan struct{})
	close(closed)
	return closed
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

// broken says err is the connection failing, not an answer: the bus hung
// up (read EOF or reset, godbus then closes the connection), or a write
// found it gone before godbus noticed.
func broken(err error) bool {
	for _, e := range []error{dbus.ErrClosed, io.EOF, io.ErrUnexpectedEOF, net.ErrClosed, syscall.EPIPE, syscall.ECONNRESET} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Do calls f with the shared connection, once more on a new connection if
// the first one turned out to be broken or closed.
func (b *Bus) Do(ctx context.Context, f func(*sd.Conn) error) error {
	for attempt := 0; ; attempt++ {
		c, err := b.get(ctx)
		if err != nil {
			return err
		}
		err = f(c)
		if attempt == 0 && (broken(err) || !c.Connected()) {
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
