// Command podjail-shim is the entrypoint of every judged container; see package shim.
// Build it static: CGO_ENABLED=0 go build ./cmd/podjail-shim
package main

import (
	"os"

	"github.com/podjail/podjail/shim"
)

func main() { os.Exit(shim.Main(os.Args)) }
