// Package policy holds the security profile every podjail container gets, as
// plain Go data. The bindings package lowers it to Podman's container spec in
// one place (bindings/spec.go); nothing else interprets it.
package policy
