#!/bin/bash
# The checks that proved the shim in the test VM (99 checks, rootful and
# rootless, podman run with the runner's intended flags). Manual for now: the
# shim is not yet wired into podjail run; issue 3 turns these into Go
# integration tests run by make test.
#   bash hack/shimcheck/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
payload=$(mktemp -d)
trap 'rm -rf "$payload"' EXIT
mkdir -p "$payload/image"
CGO_ENABLED=0 go build -trimpath -o "$payload/image/podjail-shim" ./cmd/podjail-shim
(cd hack/shimcheck/tprog && CGO_ENABLED=0 go build -trimpath -o "$payload/image/tprog" .)
cp hack/shimcheck/guest.sh "$payload/guest.sh"
bash hack/testvm/run.sh "$payload"
