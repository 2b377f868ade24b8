package sandbox

// Regenerate the Go code of the protocol after changing the .proto file
// (protoc from Debian's protobuf-compiler, the generators on PATH):
//
//	GOBIN=/tmp/gobin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.6
//	GOBIN=/tmp/gobin go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
//	PATH=/tmp/gobin:$PATH go generate ./plugin/sandbox/
//
// protoc-gen-go's version matches google.golang.org/protobuf in go.mod; the
// code protoc-gen-go-grpc v1.6.2 writes needs google.golang.org/grpc v1.64
// or newer.

//go:generate protoc --proto_path=proto --go_out=proto --go_opt=paths=source_relative --go-grpc_out=proto --go-grpc_opt=paths=source_relative podjail/v1/sandbox.proto
