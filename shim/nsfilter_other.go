//go:build !amd64

package shim

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// nsFilterProgram: the namespace filter is written for x86_64 only (system call
// numbers, clone's argument order, the x32 bit); elsewhere the program is not
// started at all.
func nsFilterProgram(tasks string) ([]unix.SockFilter, error) {
	return nil, fmt.Errorf("the namespace filter supports amd64 only, not %s", runtime.GOARCH)
}
