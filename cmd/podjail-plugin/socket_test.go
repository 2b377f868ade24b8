package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/podjail/podjail/plugin/sandbox"
	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// TestSocketReachableByItsUserAlone: under a umask that keeps nothing
// back, go-plugin binds its socket 0777, which any local user may connect
// to where they can reach it; the plugin puts it in a directory of its
// user alone (0700), removed once the plugin is done.
func TestSocketReachableByItsUserAlone(t *testing.T) {
	t.Setenv(goplugin.EnvUnixSocketDir, t.TempDir())
	t.Setenv(goplugin.EnvUnixSocketGroup, "")
	old := syscall.Umask(0)
	defer syscall.Umask(old)

	remove, err := privateSocketDir()
	if err != nil {
		t.Fatal(err)
	}
	sock := serveOnce(t)
	dir := filepath.Dir(sock)
	if dir != os.Getenv(goplugin.EnvUnixSocketDir) {
		t.Errorf("socket %s, not in the plugin's directory %s", sock, os.Getenv(goplugin.EnvUnixSocketDir))
	}
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("go-plugin's socket under umask 0: %v", fi.Mode())
	di, err := os.Stat(dir)
	if err != nil || di.Mode().Perm() != 0o700 || di.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
		t.Fatalf("the socket's directory: %v (%v), want mode 0700, ours", di.Mode(), err)
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the socket's directory is left: %v", err)
	}
}

// TestSocketGroupOfTheHost: a host that names a group for the socket
// chose who may connect; the plugin leaves its directory as it is.
func TestSocketGroupOfTheHost(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(goplugin.EnvUnixSocketDir, dir)
	t.Setenv(goplugin.EnvUnixSocketGroup, "judges")
	remove, err := privateSocketDir()
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if got := os.Getenv(goplugin.EnvUnixSocketDir); got != dir {
		t.Errorf("%s = %q, want the host's %q", goplugin.EnvUnixSocketDir, got, dir)
	}
}

// serveOnce serves the plugin in this process, as go-plugin's test mode
// does, and returns its socket's path once it listens.
func serveOnce(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *goplugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: sandbox.Handshake,
		Plugins:         goplugin.PluginSet{sandbox.PluginName: &sandbox.GRPCPlugin{Impl: pb.UnimplementedSandboxServer{}}},
		GRPCServer:      sandbox.NewGRPCServer,
		Test:            &goplugin.ServeTestConfig{Context: ctx, ReattachConfigCh: reattach, CloseCh: closed},
	})
	t.Cleanup(func() { cancel(); <-closed })
	rc := <-reattach
	addr, ok := rc.Addr.(*net.UnixAddr)
	if !ok {
		t.Fatalf("the plugin listens on %v, not a Unix socket", rc.Addr)
	}
	return addr.Name
}
