package problem

import (
	"io/fs"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// kattisTests reads data/sample/** and data/secret/**.
func (l *loader) kattisTests() ([]Test, error) {
	const data = "data"
	if _, err := l.stat(data); err != nil {
		return nil, fileErr(data, err)
	}
	top, err := l.visible(data)
	if err != nil {
		return nil, err
	}
	for _, e := range top {
		name, rel := e.Name(), filepath.Join(data, e.Name())
		switch {
		case name == "sample" || name == "secret" || contains(kattisIgnoredData, name):
		case name == "testdata.yaml":
			if err := l.checkTestdata(rel); err != nil {
				return nil, err
			}
		case strings.HasSuffix(name, ".in") || strings.HasSuffix(name, ".ans"):
			return nil, errf(rel, "", "tests directly in data/ are not judged: move them to data/secret/")
		case e.IsDir():
			return nil, errf(rel, "", "unknown test group: Kattis tests live in data/sample/ and data/secret/")
		}
	}

	found := map[string]*pair{}
	for _, group := range []string{"sample", "secret"} {
		rel := filepath.Join(data, group)
		if !l.isDir(rel) {
			if group == "secret" {
				return nil, errf(rel, "", "not found: a Kattis package keeps its judged tests in data/secret/ as NAME.in and NAME.ans")
			}
			continue
		}
		if err := l.walkGroup(rel, found); err != nil {
			return nil, err
		}
	}
	if len(found) == 0 {
		return nil, errf(filepath.Join(data, "secret"), "", "no tests: add NAME.in and NAME.ans files")
	}
	return l.tests(found, func(name string) bool { return strings.HasPrefix(name, "sample/") })
}

// walkGroup adds the tests under group (data/sample or data/secret) to
// found, named by their path under data/ without extension.
func (l *loader) walkGroup(group string, found map[string]*pair) error {
	if _, err := l.stat(group); err != nil {
		return fileErr(group, err)
	}
	root := filepath.Join(l.dir, group)
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(l.dir, path)
		if err != nil {
			return fileErr(rel, err)
		}
		name := d.Name()
		if path != root && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			fi, err := l.stat(rel)
			if err != nil {
				return fileErr(rel, err)
			}
			if fi.IsDir() {
				return errf(rel, "", "is a symlink to a directory: podjail does not follow those, copy the directory instead")
			}
		}
		switch ext := filepath.Ext(name); {
		case ext == ".in" || ext == ".ans":
			under, _ := filepath.Rel(filepath.Join(l.dir, "data"), path)
			addFile(found, filepath.ToSlash(strings.TrimSuffix(under, ext)), rel)
		case name == "testdata.yaml":
			return l.checkTestdata(rel)
		}
		return nil
	})
}

// checkTestdata rejects per-group validator flags, which podjail cannot
// apply; the rest of testdata.yaml (grading, scores) does not matter for
// pass-fail judging.
func (l *loader) checkTestdata(rel string) error {
	root, err := l.readYAML(rel, "")
	if err != nil {
		return err
	}
	f, err := fields(rel, "", root, nil)
	if err != nil {
		return err
	}
	if n, ok := f["output_validator_flags"]; ok && !(n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) == "") {
		return errf(rel, "output_validator_flags", "per-group validator flags are not supported: podjail applies one comparator or validator to every test (validator_flags in problem.yaml)")
	}
	return nil
}
