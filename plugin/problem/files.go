package problem

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// relPath checks a path written in a YAML file: relative, and not leading
// out of the problem directory. It returns it cleaned.
func relPath(file, field, p string) (string, error) {
	if p == "" {
		return "", errf(file, field, "is empty: give a path relative to the problem directory")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return "", errf(file, field, "%q is an absolute path: give a path relative to the problem directory", p)
	}
	c := filepath.Clean(filepath.FromSlash(p))
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", errf(file, field, "%q leads outside the problem directory: keep the file inside it", p)
	}
	if c == "." {
		return "", errf(file, field, "%q is the problem directory itself: name a file", p)
	}
	return c, nil
}

// stat resolves symlinks in rel and checks that the result stays inside the
// problem directory. A missing file gives an error matching fs.ErrNotExist
// that is not an *Error, so callers can phrase it.
func (l *loader) stat(rel string) (fs.FileInfo, error) {
	abs := filepath.Join(l.dir, rel)
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, errf(rel, "", "is a broken symlink: %w", err)
		}
		return nil, err
	}
	if !within(l.real, target) {
		return nil, errf(rel, "", "resolves to %s, outside the problem directory: copy the file into the problem folder instead of linking to it", target)
	}
	return os.Stat(target)
}

// maxText bounds what is read of problem.yaml, testdata.yaml and
// .timelimit: a package is untrusted, and a link to /dev/zero or a huge
// file must not take the judge's memory.
const maxText = 1 << 20

// readFile reads rel, a regular file inside the problem directory of at
// most maxText bytes. A missing file gives an error matching
// fs.ErrNotExist.
func (l *loader) readFile(rel string) ([]byte, error) {
	if err := l.regular(rel); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(l.dir, rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxText+1))
	if err == nil && len(data) > maxText {
		return nil, errf(rel, "", "is over %d bytes: a problem's text files are small, keep it under that", maxText)
	}
	return data, err
}

// fileErr returns err if it already is an *Error, else wraps it as one
// about file rel.
func fileErr(rel string, err error) error {
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	return &Error{File: rel, Err: err}
}

// within reports whether path p is root or below it.
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// regular checks that rel is a regular file inside the problem directory;
// what names it in errors ("the checker source").
func (l *loader) regular(rel string) error {
	fi, err := l.stat(rel)
	switch {
	case err != nil:
		return fileErr(rel, err)
	case !fi.Mode().IsRegular():
		return errf(rel, "", "is not a regular file")
	}
	return nil
}

// program checks a checker or interactor source named in file's field and
// fills in the language from the extension when lang is "".
func (l *loader) program(file, field, src, lang string) (*Program, error) {
	rel, err := relPath(file, field+".source", src)
	if err != nil {
		return nil, err
	}
	if _, err := l.stat(rel); errors.Is(err, fs.ErrNotExist) {
		return nil, errf(file, field+".source", "%s does not exist: add the source file or fix the path", filepath.ToSlash(rel))
	}
	if err := l.regular(rel); err != nil {
		return nil, err
	}
	if lang == "" {
		lang = langOf(rel)
		if lang == "" {
			return nil, errf(file, field+".lang", "not set and cannot be told from the extension of %s: set it (e.g. c11, cpp17, python3)", filepath.ToSlash(rel))
		}
	}
	if !validLang(lang) {
		return nil, errf(file, field+".lang", "%q is not a language id (e.g. c11, cpp17, python3)", lang)
	}
	return &Program{Source: filepath.Join(l.dir, rel), Lang: lang}, nil
}

func validLang(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("+._-", c)) {
			return false
		}
	}
	return true
}

// onlySource returns the single source file (an extension langOf knows)
// directly in directory rel; headers and other files are ignored.
func (l *loader) onlySource(rel string) (string, error) {
	if _, err := l.stat(rel); err != nil {
		return "", fileErr(rel, err)
	}
	entries, err := os.ReadDir(filepath.Join(l.dir, rel))
	if err != nil {
		return "", &Error{File: rel, Err: err}
	}
	var srcs []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && langOf(e.Name()) != "" {
			srcs = append(srcs, e.Name())
		}
	}
	switch len(srcs) {
	case 0:
		return "", errf(rel, "", "no source file (.c, .cpp, .cc, .cxx, .py) found: put the program's source here")
	case 1:
		return filepath.Join(rel, srcs[0]), nil
	}
	return "", errf(rel, "", "more than one source file (%s): podjail compiles a single file, keep one", strings.Join(srcs, ", "))
}

// pair is the input and answer of one test, as paths relative to the
// problem directory; "" when missing.
type pair struct {
	in, ans string
	// args are the validator arguments of the test's groups and its own
	// configuration (Kattis); set says some configuration gave them.
	args []string
	set  bool
	// inArgs are the input validators' arguments (Kattis)
	inArgs map[string][]string
}

// add records rel (a .in or .ans file) under the test name.
func addFile(found map[string]*pair, name, rel string) {
	p := found[name]
	if p == nil {
		p = &pair{}
		found[name] = p
	}
	if strings.HasSuffix(rel, ".in") {
		p.in = rel
	} else {
		p.ans = rel
	}
}

// tests checks the pairs and returns them as Tests: samples first, each
// part in natural order. sample tells whether a test name is a sample. The
// first test (in that order) missing its input or answer is reported.
func (l *loader) tests(found map[string]*pair, sample func(string) bool) ([]Test, error) {
	names := make([]string, 0, len(found))
	for name := range found {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if si, sj := sample(names[i]), sample(names[j]); si != sj {
			return si
		}
		return naturalLess(names[i], names[j])
	})
	out := make([]Test, 0, len(names))
	for _, name := range names {
		p := found[name]
		if p.ans == "" {
			want := strings.TrimSuffix(p.in, ".in") + ".ans"
			return nil, errf(p.in, "", "has no answer file %s: add it (it may be empty)", filepath.ToSlash(want))
		}
		if p.in == "" {
			want := strings.TrimSuffix(p.ans, ".ans") + ".in"
			return nil, errf(p.ans, "", "has no input file %s: add it or remove the answer", filepath.ToSlash(want))
		}
		for _, rel := range []string{p.in, p.ans} {
			if err := l.regular(rel); err != nil {
				return nil, err
			}
		}
		out = append(out, Test{
			Name:   name,
			Input:  filepath.Join(l.dir, p.in),
			Answer: filepath.Join(l.dir, p.ans),
			Sample: sample(name),
			// Kattis: the groups' and the test's validator arguments, until
			// the package's reader joins them with the problem's.
			ValidatorArgs:      p.args,
			InputValidatorArgs: p.inArgs,
		})
	}
	return out, nil
}

// naturalLess orders strings with digit runs compared as numbers, so "2"
// sorts before "10" and "group2/1" before "group10/1". Equal numbers with
// more leading zeros sort later.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			na, nb := digits(a), digits(b)
			ta, tb := strings.TrimLeft(a[:na], "0"), strings.TrimLeft(b[:nb], "0")
			if len(ta) != len(tb) {
				return len(ta) < len(tb)
			}
			if ta != tb {
				return ta < tb
			}
			if na != nb {
				return na < nb
			}
			a, b = a[na:], b[nb:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}
