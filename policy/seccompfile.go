package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WriteSeccomp writes SeccompJSON to dir/seccomp-<first 12 hex digits of
// its SHA-256>.json (0644) and returns that path, for Podman's
// seccomp_profile_path. The name follows the content, so a file already
// there with the right bytes is returned as is, and runners of different
// versions never overwrite each other's profile. A new file is written to
// a temporary name and renamed into place, so concurrent runners never see
// a partial one.
//
// dir is made (0755) when missing. The Podman service reads the file, so
// dir must be readable by it: rootless, a directory of the user's own such
// as $XDG_RUNTIME_DIR/podjail; rootful, /run/podjail. A dir that anyone
// but its owner may write to, or owned by someone other than us or root,
// is refused with ErrUnsafeDir.
func WriteSeccomp(dir string) (path string, err error) {
	data, err := SeccompJSON()
	if err != nil {
		return "", err
	}
	if err := safeDir(dir); err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	path = filepath.Join(dir, "seccomp-"+hex.EncodeToString(sum[:])[:12]+".json")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return path, nil
	}
	// Missing, torn or foreign: (re)write it whole.
	if err := writeAtomic(path, data); err != nil {
		return "", err
	}
	return path, nil
}

// safeDir makes dir if missing and refuses one others could write to.
func safeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("seccomp profile directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("seccomp profile directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafeDir, dir)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s has mode %o", ErrUnsafeDir, dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d", ErrUnsafeDir, dir, st.Uid)
	}
	return nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".seccomp-*.tmp")
	if err != nil {
		return fmt.Errorf("write seccomp profile: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write seccomp profile: %w", err)
	}
	// CreateTemp makes 0600; the Podman service may run as another user.
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("write seccomp profile: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write seccomp profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write seccomp profile: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write seccomp profile: %w", err)
	}
	return nil
}
