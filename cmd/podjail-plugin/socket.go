package main

import (
	"os"

	goplugin "github.com/hashicorp/go-plugin"
)

// privateSocketDir has go-plugin put its socket in a new directory of
// this process's user alone (0700), and returns a function that removes
// it. go-plugin binds the socket with the process's umask, so under a
// loose one (002, 000) other local users could connect; a host without
// AutoMTLS (one in another language) has nothing else between them and
// the plugin, which runs programs and reads host paths with the judge's
// rights. A host that names a group for the socket
// (PLUGIN_UNIX_SOCKET_GROUP, with go-plugin's UnixSocketConfig) chose who
// may connect: its choice stands.
func privateSocketDir() (remove func(), err error) {
	if os.Getenv(goplugin.EnvUnixSocketGroup) != "" {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp(os.Getenv(goplugin.EnvUnixSocketDir), "podjail-plugin-socket-")
	if err != nil {
		return nil, err
	}
	remove = func() { _ = os.RemoveAll(dir) }
	// MkdirTemp's 0700 less the umask; the owner needs all of it.
	if err := os.Chmod(dir, 0o700); err != nil {
		remove()
		return nil, err
	}
	if err := os.Setenv(goplugin.EnvUnixSocketDir, dir); err != nil {
		remove()
		return nil, err
	}
	return remove, nil
}
