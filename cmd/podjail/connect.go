package main

import (
	"context"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
)

// connect reaches the Podman service picked by socket discovery.
func connect(ctx context.Context, flagURL string) (*bindings.Client, error) {
	return plugin.Connect(ctx, flagURL)
}
