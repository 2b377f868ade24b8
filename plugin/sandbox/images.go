package sandbox

// The images an Exec may run. A service's storage may hold images that
// have nothing to do with judging (some with credentials in them); a
// caller gets the language table's, which the service's own builds and
// runs use, and those its operator names (podjail serve --image), and no
// other. Judge and Run name no image: theirs are the table's.

import (
	"fmt"
	"strings"
)

// imageList is the set of images an Exec may run, by imageKey; nil allows
// any (ServerOptions.Images empty: the plugin a judge starts as its own
// user, whose storage is its own).
type imageList map[string]bool

func newImageList(names []string) imageList {
	if len(names) == 0 {
		return nil
	}
	l := imageList{}
	for _, n := range names {
		if n != "" {
			l[imageKey(n)] = true
		}
	}
	return l
}

// imageKey is the name an image is allowed under: name as written, with
// ":latest" when it has neither a tag nor a digest, as Podman reads it
// ("localhost/podjail-gcc" is "localhost/podjail-gcc:latest"). A short
// name stays short: which registry Podman resolves it to is the host's
// configuration, so it is allowed only as it is listed.
func imageKey(name string) string {
	last := name[strings.LastIndex(name, "/")+1:]
	if strings.ContainsAny(last, ":@") {
		return name
	}
	return name + ":latest"
}

// allows says whether an Exec may run image: nil, or an
// ErrPermissionDenied saying how to allow it.
func (l imageList) allows(image string) error {
	if l == nil || l[imageKey(image)] {
		return nil
	}
	return Mark(fmt.Errorf("exec: this service runs only the images of its language table and those its operator allows, not %s: start the service with --image %s to allow it, or work in your own process (--service none)", image, image), ErrPermissionDenied)
}
