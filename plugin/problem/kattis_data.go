package problem

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Test data configuration: a group's testdata.yaml (legacy, 2023-07) or
// test_group.yaml (2025-09), inherited by the groups and tests below it
// and overridden where set again; a test's own NAME.yaml (2023-07 and
// later) last. podjail reads the output validator's arguments from them;
// the other keys are checked and unused (podjail judges pass-fail).
var (
	legacyGroupFields = []string{
		"on_reject", "grading", "grader_flags", "input_validator_flags",
		"output_validator_flags", "accept_score", "reject_score", "range",
	}
	modernGroupFields = []string{
		"max_score", "score_aggregation", "static_validation_score", "require_pass",
		"args", "input_validator_args", "static_validator_args", "output_validator_args",
		"input_visualizer_args", "output_visualizer_args", "full_feedback",
		// the 2023-07 drafts'
		"scoring", "on_reject", "grading", "grader_flags", "accept_score", "reject_score",
		"range", "input_validator_flags", "output_validator_flags",
	}
	testCaseFields = []string{
		"args", "input_validator_args", "output_validator_args", "input_visualizer_args",
		"output_visualizer_args", "full_feedback", "hint", "description",
	}
)

// groupConf is what a group's configuration gives its tests.
type groupConf struct {
	args []string // the output validator's arguments
	set  bool     // some configuration set them
	// the input validators' arguments, by validator name ("" for all)
	inArgs map[string][]string
}

// kattisTests reads data/sample/** and data/secret/**.
func (l *loader) kattisTests(modern bool) ([]Test, error) {
	const data = "data"
	if _, err := l.stat(data); err != nil {
		return nil, fileErr(data, err)
	}
	top, err := l.visible(data)
	if err != nil {
		return nil, err
	}
	var root groupConf
	for _, e := range top {
		name, rel := e.Name(), filepath.Join(data, e.Name())
		switch {
		case name == "sample" || name == "secret" || contains(kattisIgnoredData, name):
		case name == "testdata.yaml" || name == "test_group.yaml":
			if root, err = l.groupConfig(rel, root, modern); err != nil {
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
		if err := l.walkGroup(rel, root, modern, found); err != nil {
			return nil, err
		}
	}
	if len(found) == 0 {
		return nil, errf(filepath.Join(data, "secret"), "", "no tests: add NAME.in and NAME.ans files")
	}
	return l.tests(found, func(name string) bool { return strings.HasPrefix(name, "sample/") })
}

// walkGroup adds the tests under group (data/sample or data/secret) to
// found, named by their path under data/ without extension, each with the
// validator arguments its groups and its own configuration give.
func (l *loader) walkGroup(group string, inherited groupConf, modern bool, found map[string]*pair) error {
	if _, err := l.stat(group); err != nil {
		return fileErr(group, err)
	}
	root := filepath.Join(l.dir, group)
	confs := map[string]groupConf{}
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
			// A directory's configuration is read before its tests.
			conf := inherited
			if path != root {
				conf = confs[filepath.Dir(path)]
			}
			for _, cf := range []string{"testdata.yaml", "test_group.yaml"} {
				if _, err := os.Lstat(filepath.Join(path, cf)); err == nil {
					if conf, err = l.groupConfig(filepath.Join(rel, cf), conf, modern); err != nil {
						return err
					}
				}
			}
			confs[path] = conf
			if modern && strings.HasSuffix(name, ".files") {
				return errf(rel, "", "input files for the submission (.files) are not supported yet: podjail gives a submission its standard input only")
			}
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
			test := filepath.ToSlash(strings.TrimSuffix(under, ext))
			addFile(found, test, rel)
			if ext != ".in" {
				return nil
			}
			conf := confs[filepath.Dir(path)]
			if modern {
				yml := strings.TrimSuffix(rel, ext) + ".yaml"
				if _, err := os.Lstat(filepath.Join(l.dir, yml)); err == nil {
					if conf, err = l.testConfig(yml, conf); err != nil {
						return err
					}
				}
			}
			found[test].args, found[test].set, found[test].inArgs = conf.args, conf.set, conf.inArgs
		}
		return nil
	})
}

// groupConfig reads a group's configuration file rel over what its
// parent gave (parent).
func (l *loader) groupConfig(rel string, parent groupConf, modern bool) (groupConf, error) {
	known, key := legacyGroupFields, "output_validator_flags"
	if modern {
		known, key = modernGroupFields, "output_validator_args"
	}
	root, err := l.readYAML(rel, "")
	if err != nil {
		return parent, err
	}
	f, err := fields(rel, "", root, known)
	if err != nil {
		return parent, err
	}
	if n, ok := f["args"]; ok {
		if args, err := argList(rel, "args", n); err != nil || len(args) > 0 {
			return parent, orRefused(err, errf(rel, "args", "command-line arguments for the submission are not supported yet: podjail runs it with none"))
		}
	}
	conf := parent
	for _, k := range []string{"output_validator_flags", key} {
		if n, ok := f[k]; ok {
			if conf.args, err = argList(rel, k, n); err != nil {
				return parent, err
			}
			conf.set = true
		}
	}
	for _, k := range []string{"input_validator_flags", "input_validator_args"} {
		if n, ok := f[k]; ok {
			if conf.inArgs, err = inputArgs(rel, k, n); err != nil {
				return parent, err
			}
		}
	}
	return conf, nil
}

// inputArgs reads the input validators' arguments: a list (or a string of
// words) for every validator, or a map of validator name to such a list.
func inputArgs(file, field string, n *yaml.Node) (map[string][]string, error) {
	if n.Kind != yaml.MappingNode {
		args, err := argList(file, field, n)
		return map[string][]string{"": args}, err
	}
	m, err := fields(file, field+".", n, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(m))
	for name, v := range m {
		if out[name], err = argList(file, field+"."+name, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// testConfig reads a test's own NAME.yaml over its group's configuration.
func (l *loader) testConfig(rel string, group groupConf) (groupConf, error) {
	root, err := l.readYAML(rel, "")
	if err != nil {
		return group, err
	}
	f, err := fields(rel, "", root, testCaseFields)
	if err != nil {
		return group, err
	}
	if n, ok := f["args"]; ok {
		if args, err := argList(rel, "args", n); err != nil || len(args) > 0 {
			return group, orRefused(err, errf(rel, "args", "command-line arguments for the submission are not supported yet: podjail runs it with none"))
		}
	}
	conf := group
	if n, ok := f["output_validator_args"]; ok {
		if conf.args, err = argList(rel, "output_validator_args", n); err != nil {
			return group, err
		}
		conf.set = true
	}
	if n, ok := f["input_validator_args"]; ok {
		if conf.inArgs, err = inputArgs(rel, "input_validator_args", n); err != nil {
			return group, err
		}
	}
	return conf, nil
}

// argList reads arguments written as a sequence of strings or as one
// string of words.
func argList(file, field string, n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return strings.Fields(n.Value), nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errf(file, field, "line %d: must be a sequence of strings", c.Line)
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	return nil, errf(file, field, "line %d: must be a sequence of strings such as [float_tolerance, \"1e-6\"]", n.Line)
}

// orRefused is err, or refused when err is nil.
func orRefused(err error, refused *Error) error {
	if err != nil {
		return err
	}
	return refused
}
