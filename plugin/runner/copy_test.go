package runner

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/runner/runnertest"
)

func TestRunCopiesFilesInAndOut(t *testing.T) {
	for _, shimmed := range []bool{true, false} {
		r, rt, cg := fakeRunner(t, one(runnertest.Program{Files: map[string][]byte{"/w/out": []byte("made")}}))
		if !shimmed {
			r.Shim = ""
		}
		dir := t.TempDir()
		res, err := r.Run(context.Background(), RunRequest{Image: "img", Command: []string{"/p"}, WorkDir: "/w", Writable: true,
			Copy: Copy{In: map[string][]byte{"b.c": []byte("B"), "a.c": []byte("A")}, Out: []string{"out", "never"}, OutDir: dir}})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("shim %t: %+v, %v", shimmed, res, err)
		}
		in := rt.CopiedIn()
		if string(in["/w/a.c"]) != "A" || string(in["/w/b.c"]) != "B" {
			t.Errorf("shim %t: copied in %q", shimmed, in)
		}
		if data, err := os.ReadFile(filepath.Join(dir, "out")); err != nil || string(data) != "made" {
			t.Errorf("shim %t: copied out %q, %v", shimmed, data, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "never")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("shim %t: a file the program did not make was copied out: %v", shimmed, err)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

func TestSourceTar(t *testing.T) {
	tr := tar.NewReader(sourceTar("/build/", map[string][]byte{"z": []byte("Z"), "a": []byte("AA")}))
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got = append(got, h.Name+":"+string(data))
		if h.Uid != 65534 || h.Gid != 65534 || (h.Typeflag == tar.TypeDir) != (h.Mode == 0o777) {
			t.Errorf("%s: uid %d gid %d mode %o", h.Name, h.Uid, h.Gid, h.Mode)
		}
	}
	if strings.Join(got, " ") != "build/: build/a:AA build/z:Z" {
		t.Errorf("tar holds %q", got)
	}
}

// tarOf is a tar of the headers given, each followed by its data.
func tarOf(t *testing.T, entries ...tar.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range entries {
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(bytes.Repeat([]byte("x"), int(h.Size))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestExtractOne(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "main")
	err := extractOne(bytes.NewReader(tarOf(t, tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755}, tar.Header{Name: "main", Typeflag: tar.TypeReg, Mode: 0o755, Size: 3})), dst)
	if data, rerr := os.ReadFile(dst); err != nil || string(data) != "xxx" {
		t.Errorf("extracted %q (%v, %v)", data, err, rerr)
	}
	if err := extractOne(bytes.NewReader(tarOf(t, tar.Header{Name: "main", Typeflag: tar.TypeReg, Size: 1})), dst); !errors.Is(err, os.ErrExist) {
		t.Errorf("over an existing file: %v, want it refused", err)
	}
	if err := extractOne(bytes.NewReader(tarOf(t, tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755})), filepath.Join(dir, "x")); !errors.Is(err, bindings.ErrNotFound) {
		t.Errorf("no regular file: %v, want ErrNotFound", err)
	}
	if err := extractOne(strings.NewReader("not a tar at all, but long enough to be read as a header block of one"), filepath.Join(dir, "y")); err == nil {
		t.Error("garbage extracted")
	}
	// A header whose size is over the bound is refused before its data.
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(&tar.Header{Name: "big", Typeflag: tar.TypeReg, Size: maxArtefactBytes + 1}); err != nil {
		t.Fatal(err)
	}
	_ = tw.Flush()
	if err := extractOne(&b, filepath.Join(dir, "big")); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("an artefact over the bound: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "big")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the artefact over the bound was written: %v", err)
	}
}

func TestCopyArtefactOfAGoneContainer(t *testing.T) {
	rt := runnertest.NewRuntime(nil)
	err := copyArtefact(context.Background(), rt, "nosuch", "/w/x", filepath.Join(t.TempDir(), "x"))
	if !errors.Is(err, bindings.ErrNotFound) {
		t.Errorf("copy out of no container: %v, want ErrNotFound", err)
	}
}
