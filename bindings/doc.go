// Package bindings is the only podjail package that imports Podman's Go
// bindings. Everything else sees the Runtime interface and the typed errors
// of errors.go, so the rest of podjail never depends on Podman's types and
// unit tests of pure logic can stand a fake in for the runtime.
package bindings
