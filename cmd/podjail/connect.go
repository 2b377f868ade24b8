package main

import (
	"context"
	"flag"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
)

// urlFlag registers --url on fs.
func urlFlag(fs *flag.FlagSet) *string {
	return fs.String("url", "", "Podman API `URL` (default: $CONTAINER_HOST, else the user's socket, else /run/podman/podman.sock)")
}

// connect reaches the Podman service picked by socket discovery.
func connect(ctx context.Context, flagURL string) (*bindings.Client, error) {
	return plugin.Connect(ctx, flagURL)
}
