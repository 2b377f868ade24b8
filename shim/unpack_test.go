package shim

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnpackWritesPackedFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string][]byte{"main.c": []byte("int main(){}\n"), "empty.h": nil, "Main.java": []byte("class Main {}")}
	if err := unpack(bytes.NewReader(Pack(files))); err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
		if fi, _ := os.Stat(filepath.Join(dir, name)); fi == nil || fi.Mode().Perm() != 0o666 {
			t.Errorf("%s: mode %v, want 0666 (the program, 65534, writes its sources)", name, fi.Mode())
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o777 {
		t.Errorf("the working directory's mode is %v, want 0777 (the program writes there)", fi.Mode().Perm())
	}
}

func TestUnpackRefuses(t *testing.T) {
	entry := func(h tar.Header, data string) []byte {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		h.Size = int64(len(data))
		_ = tw.WriteHeader(&h)
		_, _ = tw.Write([]byte(data))
		_ = tw.Close()
		return b.Bytes()
	}
	cases := map[string][]byte{
		"a path":             entry(tar.Header{Name: "../x", Typeflag: tar.TypeReg, Mode: 0o644}, "x"),
		"a directory":        entry(tar.Header{Name: "d", Typeflag: tar.TypeDir, Mode: 0o755}, ""),
		"a link":             entry(tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, ""),
		"a file twice":       append(entry(tar.Header{Name: "a", Typeflag: tar.TypeReg, Mode: 0o644}, "1")[:1024], entry(tar.Header{Name: "a", Typeflag: tar.TypeReg, Mode: 0o644}, "2")...),
		"a truncated stream": entry(tar.Header{Name: "a", Typeflag: tar.TypeReg, Mode: 0o644}, strings.Repeat("x", 4096))[:1000],
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := unpack(bytes.NewReader(in)); err == nil {
				t.Error("unpacked; want an error")
			}
		})
	}
	t.Run("over a link", func(t *testing.T) {
		dir := t.TempDir()
		t.Chdir(dir)
		target := filepath.Join(t.TempDir(), "target")
		if err := os.Symlink(target, filepath.Join(dir, "a")); err != nil {
			t.Fatal(err)
		}
		if err := unpack(bytes.NewReader(Pack(map[string][]byte{"a": []byte("x")}))); err == nil {
			t.Error("unpacked over a link; want an error")
		}
		if _, err := os.Lstat(target); err == nil {
			t.Error("the link's target was written")
		}
	})
}
