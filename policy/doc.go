// Package policy holds the security profile every podjail container gets, as
// plain Go data: capabilities and mounts (Profile), the seccomp profile
// (Seccomp, WriteSeccomp), resource limits (Rlimits) and per-run SELinux
// levels (LevelPool). The bindings package lowers it to Podman's container
// spec in one place (bindings/spec.go); nothing else interprets it.
package policy
