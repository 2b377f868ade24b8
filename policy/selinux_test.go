package policy

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fakeClass makes selinuxfs's class/NAME/{index,perms/*} in fs.
func fakeClass(t *testing.T, fs, class string, index int, perms map[string]int) {
	t.Helper()
	dir := filepath.Join(fs, "class", class, "perms")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p string, n int) {
		if err := os.WriteFile(p, []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(fs, "class", class, "index"), index)
	for p, n := range perms {
		write(filepath.Join(dir, p), n)
	}
}

func TestAccessQuery(t *testing.T) {
	fs := t.TempDir()
	fakeClass(t, fs, "file", 6, map[string]int{"read": 2, "execute": 14, "entrypoint": 17})
	q, want, err := accessQuery(fs, "a_t", "b_t", "file", []string{"entrypoint", "read"})
	if err != nil || q != "a_t b_t 6" || want != 1<<16|1<<1 {
		t.Fatalf("query %q, bits %#x, %v; want \"a_t b_t 6\", %#x", q, want, err, 1<<16|1<<1)
	}
	if _, _, err := accessQuery(fs, "a_t", "b_t", "file", []string{"fly"}); err == nil {
		t.Error("an unknown permission: no error")
	}
	if _, _, err := accessQuery(fs, "a_t", "b_t", "nosuch", nil); err == nil {
		t.Error("an unknown class: no error")
	}
}

func TestAccessAllows(t *testing.T) {
	for _, c := range []struct {
		answer string
		want   uint64
		ok     bool
		err    bool
	}{
		{"1ffff ffffffff 0 ffffffff 12 0", 1<<16 | 1<<1, true, false},
		{"ffff ffffffff 0 ffffffff 12 0", 1<<16 | 1<<1, false, false},
		{"0 ffffffff 0 ffffffff 12 0", 0, true, false},
		{"zz ffffffff", 1, false, true},
		{"", 1, false, true},
	} {
		ok, err := accessAllows(c.answer, c.want)
		if ok != c.ok || (err != nil) != c.err {
			t.Errorf("accessAllows(%q, %#x) = %t, %v; want %t, error %t", c.answer, c.want, ok, err, c.ok, c.err)
		}
	}
}

func TestModuleInstalled(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "config"), []byte("# x\nSELINUX=enforcing\nSELINUXTYPE=targeted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(root, "store")
	if err := os.MkdirAll(filepath.Join(store, "targeted/active/modules/400/other"), 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, err := moduleInstalledAt(filepath.Join(root, "config"), store, "podjail"); ok || err != nil {
		t.Fatalf("without the module: %t, %v", ok, err)
	}
	if err := os.MkdirAll(filepath.Join(store, "targeted/active/modules/400/podjail"), 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, err := moduleInstalledAt(filepath.Join(root, "config"), store, "podjail"); !ok || err != nil {
		t.Fatalf("with the module: %t, %v", ok, err)
	}
	if _, err := moduleInstalledAt(filepath.Join(root, "none"), store, "podjail"); err == nil {
		t.Error("no config: no error")
	}
}
