# Run in the langs image's rootfs (toolchain-rootfs.sh): compile the Go standard library
# packages a contest program imports (and what they import) into the GOCACHE
# plugin/lang/languages.yaml names, with its flags, writable by the unprivileged build, as
# contrib/images/go.Containerfile does. Not all of std: that is 165 MB, these are a tenth.
set -eu
export CGO_ENABLED=0 GOTOOLCHAIN=local GOCACHE=/var/cache/podjail-go GOPATH=/tmp/go HOME=/tmp
go build -trimpath bufio bytes cmp container/heap container/list container/ring errors fmt io \
	iter maps math math/big math/bits math/rand math/rand/v2 os regexp runtime slices sort \
	strconv strings sync sync/atomic time unicode unicode/utf8
# a build links: the linker's own inputs (runtime/cgo is not needed with CGO_ENABLED=0)
printf 'package main\nimport "fmt"\nfunc main() { fmt.Println(1) }\n' >/tmp/warm.go
go build -trimpath -ldflags=-s -o /tmp/warm /tmp/warm.go
rm -f /tmp/warm /tmp/warm.go
chmod -R a+rwX /var/cache/podjail-go
rm -rf /tmp/go
du -sh /var/cache/podjail-go
