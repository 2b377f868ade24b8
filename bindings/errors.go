package bindings

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is wrapped when Podman answers that a container or
	// image does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is wrapped when Podman refuses an operation because of
	// the object's state (for example removing a container that is in use).
	ErrConflict = errors.New("conflict")
	// ErrTooOld is wrapped when the server is older than Podman 5.
	ErrTooOld = errors.New("podman server too old")
	// ErrPodman is matched (errors.Is) by the error of every call the
	// Podman service failed: an answer of failure, or none (its message
	// is the call's). Not by a call whose context ended.
	ErrPodman = errors.New("the Podman service failed")
)

// podmanError marks err as the Podman service's failure (ErrPodman), its
// message unchanged.
type podmanError struct{ err error }

func (e *podmanError) Error() string   { return e.err.Error() }
func (e *podmanError) Unwrap() []error { return []error{e.err, ErrPodman} }

// UnreachableError says the Podman API could not be reached on Socket.
type UnreachableError struct {
	// Socket is the URL that was tried.
	Socket string
	// Rootless says whether the caller is not root, which decides the
	// advice given.
	Rootless bool
	// NoPodman says no podman command is on this host's PATH: the advice
	// starts with installing it. The zero value assumes it is installed.
	NoPodman bool
	Err      error
}

func (e *UnreachableError) Error() string {
	how := "sudo systemctl enable --now podman.socket"
	if e.Rootless {
		how = "systemctl --user enable --now podman.socket"
	}
	install := ""
	if e.NoPodman {
		install = "install Podman 5 (Fedora, RHEL: sudo dnf install podman; Debian: sudo apt install podman), then "
	}
	return fmt.Sprintf("cannot reach the Podman API at %s: %v; %sstart its socket with `%s`, or name another with --url or CONTAINER_HOST (podjail doctor checks the whole host)",
		e.Socket, e.Err, install, how)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ImageMissingError says an image is not in the storage of the Podman
// service podjail talks to.
type ImageMissingError struct {
	Image string
}

func (e *ImageMissingError) Error() string {
	return fmt.Sprintf("image %q is not in this Podman's storage; load or build it first (podman load, podman build, podman pull) as the same user that runs the Podman service", e.Image)
}

func (e *ImageMissingError) Unwrap() error { return ErrNotFound }
