package asuser

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// nobody is the caller of these tests: another user than root.
var nobody = Cred{UID: 65534, GID: 65534}

// asRoot skips, saying why, where the test cannot take another user's
// rights: every CI machine runs the unit tests as root.
func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("takes another user's file rights, which needs root: run the unit tests as root (CI does)")
	}
}

// tree makes, under a 0755 directory: open/ (0755) with a.txt (0644) and
// link -> secret (an absolute link out), and closed/ (0700) with
// secret.txt (0600), all root's.
func tree(t *testing.T) (root, secret string) {
	t.Helper()
	root = t.TempDir()
	for _, d := range []string{root, filepath.Dir(root)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(root, "open"), 0o755))
	must(os.Mkdir(filepath.Join(root, "closed"), 0o700))
	secret = filepath.Join(root, "closed", "secret.txt")
	must(os.WriteFile(secret, []byte("root's\n"), 0o600))
	must(os.WriteFile(filepath.Join(root, "open", "a.txt"), []byte("anyone's\n"), 0o644))
	must(os.Chmod(filepath.Join(root, "open", "a.txt"), 0o644))
	must(os.Symlink(secret, filepath.Join(root, "open", "link")))
	return root, secret
}

func TestOpenChecksTheCallersRights(t *testing.T) {
	asRoot(t)
	root, secret := tree(t)
	th, err := Start(nobody)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	if f, err := th.Open(filepath.Join(root, "open", "a.txt")); err != nil {
		t.Errorf("a file anyone reads, as nobody: %v", err)
	} else {
		f.Close()
	}
	for _, p := range []string{secret, filepath.Join(root, "open", "link")} {
		if f, err := th.Open(p); !errors.Is(err, fs.ErrPermission) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s as nobody: %v, want permission denied", p, err)
		}
	}
	if _, err := th.Open(filepath.Join(root, "open")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory as a file: %v, want ErrNotRegular", err)
	}
	fifo := filepath.Join(root, "open", "fifo")
	if err := unix.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := th.Open(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO: %v, want ErrNotRegular (and no hang)", err)
	}
	// This goroutine's thread kept root's rights.
	if _, err := os.ReadFile(secret); err != nil {
		t.Errorf("root reading its own file after: %v", err)
	}
}

func TestStartAsSelfNeedsNoThread(t *testing.T) {
	th, err := Start(Self())
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := th.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if os.Geteuid() != 0 {
		if _, err := Start(Cred{UID: uint32(os.Geteuid()) + 1}); !errors.Is(err, ErrNotPermitted) {
			t.Errorf("another user's rights without root: %v, want ErrNotPermitted", err)
		}
	}
}

func TestCopyTreeAsCaller(t *testing.T) {
	asRoot(t)
	root, _ := tree(t)
	th, err := Start(nobody)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	dst := filepath.Join(t.TempDir(), "copy")
	// closed/ is root's alone: nobody cannot copy the tree that holds it.
	if err := CopyTree(th, root, dst, Limits{}); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("a tree holding a directory nobody cannot read: %v, want permission denied", err)
	}
	dst = filepath.Join(t.TempDir(), "copy")
	if err := CopyTree(th, filepath.Join(root, "open"), dst, Limits{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "a.txt")); err != nil || string(b) != "anyone's\n" {
		t.Errorf("a.txt copied: %q, %v", b, err)
	}
	fi, err := os.Lstat(filepath.Join(dst, "link"))
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is copied as a link: %v, %v", fi, err)
	}
	if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the copy's mode: %v, %v", fi, err)
	}
}

func TestCopyTreeBounds(t *testing.T) {
	src := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(src, n), make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	th, err := Start(Self())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		lim Limits
		ok  bool
	}{{Limits{}, true}, {Limits{Bytes: 300, Entries: 4}, true}, {Limits{Bytes: 299}, false}, {Limits{Entries: 3}, false}}
	for _, c := range cases {
		err := CopyTree(th, src, filepath.Join(t.TempDir(), "copy"), c.lim)
		if (err == nil) != c.ok || !c.ok && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v: %v, want ok %t", c.lim, err, c.ok)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := CopyTree(th, src, dst, Limits{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "fifo")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a FIFO is left out: %v", err)
	}
}
