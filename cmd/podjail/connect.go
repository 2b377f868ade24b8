package main

import (
	"context"
	"flag"
	"os"

	"github.com/podjail/podjail/bindings"
)

// urlFlag registers --url on fs.
func urlFlag(fs *flag.FlagSet) *string {
	return fs.String("url", "", "Podman API `URL` (default: $CONTAINER_HOST, else the user's socket, else /run/podman/podman.sock)")
}

// connect reaches the Podman service picked by socket discovery.
func connect(ctx context.Context, flagURL string) (*bindings.Client, error) {
	uid := os.Geteuid()
	d := bindings.Discovery{
		Flag:          flagURL,
		ContainerHost: os.Getenv("CONTAINER_HOST"),
		XDGRuntimeDir: os.Getenv("XDG_RUNTIME_DIR"),
		UID:           uid,
	}
	return bindings.Connect(ctx, d.URL(), uid != 0)
}
