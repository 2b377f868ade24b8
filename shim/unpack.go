package shim

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"
)

// Pack is the input of an --unpack run: a tar stream of plain files, in
// name order. Names must be plain file names (CheckFileName).
func Pack(files map[string][]byte) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		_ = tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))})
		_, _ = tw.Write(data)
	}
	_ = tw.Close()
	return b.Bytes()
}

// CheckFileName refuses what is not a plain file name: empty, "." or "..",
// or holding a slash, a backslash or a NUL.
func CheckFileName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("%q is not a plain file name", name)
	}
	return nil
}

// unpack writes the files of a Pack stream into the working directory,
// as the shim (the container's root): the directory becomes writable by
// the program (65534) and every file readable and writable by it, as a
// compiler run there expects of its sources. A file is never written
// through a link or over something already there.
func unpack(in io.Reader) error {
	if err := os.Chmod(".", 0o777); err != nil {
		return err
	}
	tr := tar.NewReader(in)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the input's files: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			return fmt.Errorf("%s in the input is not a regular file", h.Name)
		}
		if err := CheckFileName(h.Name); err != nil {
			return err
		}
		if err := unpackFile(h.Name, tr); err != nil {
			return err
		}
	}
}

func unpackFile(name string, r io.Reader) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o666)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	// Past the umask: the program writes its sources as it likes.
	return errors.Join(err, f.Chmod(0o666), f.Close())
}
