package systemd

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/podjail/podjail/cgroupdrv"
)

// fakeBus is a D-Bus bus with systemd's manager on it, as much of both as
// Bus and Driver use: the handshake, Hello, AddMatch, the manager's
// Version, slices started and stopped with their JobRemoved signals, a
// slice's ControlGroup, ResetFailedUnit.
type fakeBus struct {
	sock string

	mu    sync.Mutex
	conns []net.Conn
	dials int
	units map[string]bool
	calls map[string]int // by member
	// hangUpAfter names a call after whose answer every connection is
	// hung up, before the job's result is sent (once).
	hangUpAfter string
	// cgroups, when set, is the cgroup v2 root a system manager's slices
	// are made and removed in, their ControlGroup "/" + the slice; unset,
	// every ControlGroup is "/fake.slice".
	cgroups     string
	lastStarted string
	write       sync.Mutex
}

func newFakeBus(t *testing.T) *fakeBus {
	f := &fakeBus{sock: filepath.Join(t.TempDir(), "bus"), units: map[string]bool{}, calls: map[string]int{}}
	l, err := net.Listen("unix", f.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); f.hangUp() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.dials++
			f.mu.Unlock()
			go f.serve(c)
		}
	}()
	return f
}

func (f *fakeBus) open(opts ...dbus.ConnOption) (*dbus.Conn, error) {
	return dbus.Dial("unix:path="+f.sock, opts...)
}

// hangUp closes every connection, as a bus that restarts does.
func (f *fakeBus) hangUp() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
	f.conns = nil
}

func (f *fakeBus) count(what string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if what == "dials" {
		return f.dials
	}
	return f.calls[what]
}

// serve takes any AUTH (no fd passing), then answers calls.
func (f *fakeBus) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := r.ReadByte(); err != nil { // the credentials byte
		return
	}
	for begun := false; !begun; {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		answer := ""
		switch line = strings.TrimSpace(line); {
		case line == "AUTH":
			answer = "REJECTED EXTERNAL"
		case strings.HasPrefix(line, "AUTH EXTERNAL"):
			answer = "OK 0123456789abcdef0123456789abcdef"
		case line == "NEGOTIATE_UNIX_FD":
			answer = "ERROR"
		case line == "BEGIN":
			begun = true
			continue
		default:
			return
		}
		if _, err := c.Write([]byte(answer + "\r\n")); err != nil {
			return
		}
	}
	for {
		msg, err := dbus.DecodeMessage(r)
		if err != nil {
			return
		}
		if msg.Type == dbus.TypeMethodCall {
			f.answer(c, msg)
		}
	}
}

func (f *fakeBus) answer(c net.Conn, call *dbus.Message) {
	member, _ := call.Headers[dbus.FieldMember].Value().(string)
	f.mu.Lock()
	f.calls[member]++
	f.mu.Unlock()
	arg := func(i int) string { s, _ := call.Body[i].(string); return s }
	switch member {
	case "Hello":
		f.reply(c, call, ":1.1")
	case "AddMatch", "ResetFailedUnit":
		f.reply(c, call)
	case "Get": // org.freedesktop.DBus.Properties
		f.mu.Lock()
		f.calls["Get "+arg(1)]++
		cgroups, last := f.cgroups, f.lastStarted
		f.mu.Unlock()
		switch arg(1) {
		case "Version":
			f.reply(c, call, dbus.MakeVariant("257"))
		case "ControlGroup":
			if cgroups != "" {
				f.reply(c, call, dbus.MakeVariant("/"+last))
				return
			}
			f.reply(c, call, dbus.MakeVariant("/fake.slice"))
		}
	case "StartTransientUnit", "StopUnit":
		unit := arg(0)
		f.mu.Lock()
		had := f.units[unit]
		f.units[unit] = member == "StartTransientUnit"
		if f.cgroups != "" && had != f.units[unit] {
			f.lastStarted = unit
			if had {
				_ = os.Remove(filepath.Join(f.cgroups, unit))
			} else {
				_ = os.Mkdir(filepath.Join(f.cgroups, unit), 0o755)
			}
		}
		hangUp := f.hangUpAfter == member
		if hangUp {
			f.hangUpAfter = ""
		}
		f.mu.Unlock()
		switch {
		case member == "StartTransientUnit" && had:
			f.fail(c, call, "org.freedesktop.systemd1.UnitExists", "Unit "+unit+" was already loaded or has a fragment file.")
			return
		case member == "StopUnit" && !had:
			f.fail(c, call, "org.freedesktop.systemd1.NoSuchUnit", "Unit "+unit+" not loaded.")
			return
		}
		job := dbus.ObjectPath(fmt.Sprintf("/org/freedesktop/systemd1/job/%d", f.count(member)))
		f.reply(c, call, job)
		if hangUp {
			f.hangUp()
			return
		}
		f.signal("JobRemoved", uint32(1), job, unit, "done")
	default:
		f.fail(c, call, "org.freedesktop.DBus.Error.UnknownMethod", member)
	}
}

func (f *fakeBus) send(c net.Conn, msg *dbus.Message, body ...any) {
	msg.Body = body
	if len(body) > 0 {
		msg.Headers[dbus.FieldSignature] = dbus.MakeVariant(dbus.SignatureOf(body...))
	}
	f.write.Lock()
	defer f.write.Unlock()
	_ = msg.EncodeTo(c, binary.LittleEndian)
}

func (f *fakeBus) reply(c net.Conn, call *dbus.Message, body ...any) {
	f.send(c, &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldReplySerial: dbus.MakeVariant(call.Serial())}}, body...)
}

func (f *fakeBus) fail(c net.Conn, call *dbus.Message, name, text string) {
	f.send(c, &dbus.Message{Type: dbus.TypeError, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldReplySerial: dbus.MakeVariant(call.Serial()), dbus.FieldErrorName: dbus.MakeVariant(name)}}, text)
}

// signal goes to every connection (the real bus sends it to those whose
// match rules take it: go-systemd's signal connection).
func (f *fakeBus) signal(member string, body ...any) {
	f.mu.Lock()
	conns := append([]net.Conn(nil), f.conns...)
	f.mu.Unlock()
	for _, c := range conns {
		f.send(c, &dbus.Message{Type: dbus.TypeSignal, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldPath:      dbus.MakeVariant(dbus.ObjectPath("/org/freedesktop/systemd1")),
			dbus.FieldInterface: dbus.MakeVariant("org.freedesktop.systemd1.Manager"),
			dbus.FieldMember:    dbus.MakeVariant(member)}}, body...)
	}
}

// TestBusRedialsWhenTheBusHangsUp: a call on a connection the bus closed
// (restarted) goes through on a new one.
func TestBusRedialsWhenTheBusHangsUp(t *testing.T) {
	f := newFakeBus(t)
	b := &Bus{open: f.open}
	defer b.Close()
	for i := range 3 {
		if v, err := b.Version(context.Background()); err != nil || v != "257" {
			t.Fatalf("call %d: version %q, %v", i+1, v, err)
		}
		f.hangUp()
	}
	// go-systemd dials twice: calls, and signals.
	if n := f.count("dials"); n != 6 {
		t.Errorf("%d connections made for 3 calls, the bus hanging up after each; want 6", n)
	}
	if n := b.Reconnects(); n != 2 {
		t.Errorf("Reconnects() = %d after 3 calls, the bus hanging up after each; want 2", n)
	}
}

// TestJobAskedAgainWhenItsConnectionCloses: the bus hangs up after
// answering a start (and a stop), before the job's result: the job is
// asked for again on a new connection, and the second asking finds it done,
// instead of waiting JobTimeout for a result that cannot come.
func TestJobAskedAgainWhenItsConnectionCloses(t *testing.T) {
	f := newFakeBus(t)
	d := &Driver{Bus: &Bus{open: f.open}, Root: t.TempDir()}
	defer d.Bus.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id := cgroupdrv.Prefix + "1_2_abc"
	for _, step := range []struct {
		call string
		do   func() error
	}{
		{"StartTransientUnit", func() error { _, err := d.Create(ctx, id); return err }},
		{"StopUnit", func() error { return d.Destroy(ctx, cgroupdrv.Parent{ID: id}) }},
	} {
		f.mu.Lock()
		f.hangUpAfter = step.call
		f.mu.Unlock()
		if err := step.do(); err != nil {
			t.Fatalf("%s, the bus hanging up before the job's result: %v", step.call, err)
		}
		if n := f.count(step.call); n != 2 {
			t.Errorf("%s sent %d times; want 2 (again on a new connection)", step.call, n)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.units[unit(id)] {
		t.Error("the slice is still there")
	}
}

// TestBusUnreachable: no bus at the address is ErrBusUnreachable.
func TestBusUnreachable(t *testing.T) {
	b := &Bus{open: func(opts ...dbus.ConnOption) (*dbus.Conn, error) {
		return dbus.Dial("unix:path="+filepath.Join(t.TempDir(), "none"), opts...)
	}}
	if _, err := b.Version(context.Background()); !errors.Is(err, cgroupdrv.ErrBusUnreachable) {
		t.Errorf("no bus: %v; want ErrBusUnreachable", err)
	}
}

// TestSlicesFoundWithoutAsking: the first slice's cgroup is asked of
// systemd, the next ones are found beside it; a clean stop of a slice the
// driver started clears no failed state, and a stop of any other does.
func TestSlicesFoundWithoutAsking(t *testing.T) {
	f := newFakeBus(t)
	f.cgroups = t.TempDir()
	d := &Driver{Bus: &Bus{open: f.open}, Root: f.cgroups}
	defer d.Bus.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var made []cgroupdrv.Parent
	for i := range 3 {
		p, err := d.Create(ctx, fmt.Sprintf("%s1_2_%d", cgroupdrv.Prefix, i))
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(f.cgroups, unit(p.ID)); p.Path != want {
			t.Errorf("parent %d at %s; want %s", i, p.Path, want)
		}
		made = append(made, p)
	}
	if n := f.count("Get ControlGroup"); n != 1 {
		t.Errorf("systemd asked for the cgroup of %d slices out of 3; want 1", n)
	}
	for _, p := range made {
		if err := d.Destroy(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.count("ResetFailedUnit"); n != 0 {
		t.Errorf("%d failed states cleared after clean stops of the driver's own slices; want 0", n)
	}
	// A slice another process left (the sweep's) may have failed.
	if err := d.Destroy(ctx, cgroupdrv.Parent{ID: cgroupdrv.Prefix + "9_9_left"}); err != nil {
		t.Fatal(err)
	}
	if n := f.count("ResetFailedUnit"); n != 1 {
		t.Errorf("%d failed states cleared after the stop of a slice left by another; want 1", n)
	}
}
