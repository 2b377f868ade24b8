package policy

import "fmt"

// Nobody is the identity the submission runs as: the conventional overflow
// user and group, which owns nothing in any image.
const Nobody = "65534:65534"

// NobodyUID is Nobody's uid.
const NobodyUID = 65534

// Profile is the container-level security profile.
type Profile struct {
	// User is "uid:gid" for the container's process. Zero value: the
	// image's user, which podjail never wants; use Default.
	User string

	// CapAdd lists the capabilities kept after every one is dropped.
	// Zero value (nil): none kept.
	CapAdd []string

	// ScratchPath is where the writable tmpfs is mounted. Zero value: no
	// scratch tmpfs at all (the whole filesystem is read-only).
	ScratchPath string
	// ScratchBytes caps the scratch tmpfs. Zero value with a ScratchPath
	// is refused by Validate: an unbounded tmpfs is charged to nobody.
	ScratchBytes int64
	// ScratchMode is the octal mode of the scratch directory; 1777 lets
	// user 65534 write without owning it. Zero value: 01777.
	ScratchMode uint32

	// Unmask lists paths Podman masks or mounts read-only by default that
	// this profile needs. Zero value: none.
	Unmask []string
}

// Default is the profile of a run without the shim: the program itself runs
// as 65534:65534 and keeps no capability.
func Default() Profile {
	return Profile{
		User:         Nobody,
		ScratchPath:  "/tmp",
		ScratchBytes: 16 << 20,
		ScratchMode:  0o1777,
	}
}

// Shim is the profile of a run under the shim: the container starts as
// root with only CAP_SETUID and CAP_SETGID, and its cgroup namespace
// writable, so the shim can make the program's cgroup and then become
// Nobody, and CAP_CHOWN, so that once every process of the program is gone
// it can give the caller what the program made in writable mounts; the
// program itself ends with the same identity and no capability as under
// Default (the shim proves it before starting it).
func Shim() Profile {
	p := Default()
	p.User = "0:0"
	p.CapAdd = []string{"CAP_SETUID", "CAP_SETGID", "CAP_CHOWN"}
	p.Unmask = []string{"/sys/fs/cgroup"}
	return p
}

// Validate reports a profile podjail must not run with.
func (p Profile) Validate() error {
	if p.User == "" {
		return fmt.Errorf("%w: no user set; the image's user could be root", ErrInvalidProfile)
	}
	if p.ScratchPath != "" && p.ScratchBytes <= 0 {
		return fmt.Errorf("%w: scratch tmpfs %s has no size", ErrInvalidProfile, p.ScratchPath)
	}
	return nil
}

// ScratchOptions are the mount options of the scratch tmpfs.
func (p Profile) ScratchOptions() []string {
	mode := p.ScratchMode
	if mode == 0 {
		mode = 0o1777
	}
	return []string{
		"rw", "noexec", "nosuid", "nodev",
		fmt.Sprintf("size=%d", p.ScratchBytes),
		fmt.Sprintf("mode=%o", mode),
	}
}
