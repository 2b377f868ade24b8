package policy

import "errors"

// ErrInvalidProfile is wrapped by every profile validation failure.
var ErrInvalidProfile = errors.New("invalid security profile")

// ErrUnsafeDir is wrapped when WriteSeccomp is handed a directory that
// someone other than its owner (or an owner other than us or root) could
// write to: they could swap the profile Podman reads.
var ErrUnsafeDir = errors.New("profile directory writable by others")

// ErrNoLevel is wrapped when a LevelPool has no SELinux level left that no
// live container shares or dominates.
var ErrNoLevel = errors.New("no free SELinux level")
