package shim

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestHandBackTakesWhatTheProgramMade: everything under the directory,
// a 0700 directory of another user and the 0600 file in it among them,
// becomes the shim's; a link is taken itself, its target outside left
// alone.
func TestHandBackTakesWhatTheProgramMade(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making files of another user needs root (CI runs as root)")
	}
	root := t.TempDir()
	box := filepath.Join(root, "box")
	outside := filepath.Join(root, "outside")
	mustDo(t, os.Mkdir(box, 0o755), os.WriteFile(outside, []byte("x"), 0o600), os.Lchown(outside, 4242, 4242))
	private := filepath.Join(box, "private")
	file := filepath.Join(private, "answer")
	link := filepath.Join(box, "link")
	mustDo(t, os.Mkdir(private, 0o700), os.WriteFile(file, []byte("42"), 0o600), os.Symlink(outside, link))
	for _, p := range []string{box, private, file, link} {
		mustDo(t, os.Lchown(p, 65534, 65534))
	}
	handBack([]string{box})
	for _, p := range []string{box, private, file, link} {
		if uid, gid := owner(t, p); uid != os.Geteuid() || gid != os.Getegid() {
			t.Errorf("%s is %d:%d after the hand-back, want %d:%d", p, uid, gid, os.Geteuid(), os.Getegid())
		}
	}
	if uid, _ := owner(t, outside); uid != 4242 {
		t.Errorf("the link's target outside the box became %d's: the link was followed", uid)
	}
}

func mustDo(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func owner(t *testing.T, p string) (int, int) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}
