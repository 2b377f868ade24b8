package problem

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Kattis packages (legacy format). How they map onto a Problem:
//
//   - Time limit: limits.time_limit (seconds, from the newer spec) if set,
//     else the .timelimit file at the root, else an error: podjail does not
//     derive time limits from the judge solutions, so time_multiplier and
//     time_safety_margin are checked but unused.
//   - limits.memory and limits.output are MiB; unset they default to
//     KattisMemoryBytes and KattisOutputBytes. The other limits (code,
//     compilation_*, validation_*) are checked but unused.
//   - validation "default": validator_flags become a comparator:
//
//     no flags                          -> "case-insensitive"
//     case_sensitive                    -> "tokens"
//     space_change_sensitive [+ case_sensitive] -> "exact"
//     float_tolerance E                 -> "float abs=E rel=E"
//     float_absolute_tolerance A        -> "float abs=A"
//     float_relative_tolerance R        -> "float rel=R"
//     (both float_absolute_ and float_relative_ give "float abs=A rel=R";
//     a zero tolerance is left out, as compare.Spec.String does; a number
//     is accepted within either tolerance, as in Kattis)
//
//     What cannot be expressed, and how it differs from Kattis:
//     space_change_sensitive without case_sensitive still becomes "exact",
//     which also compares case; "exact" is byte for byte, so it may be
//     stricter than Kattis about, say, a missing final newline; with a float
//     tolerance, tokens that are not numbers are compared exactly, also for
//     case, where Kattis ignores case unless case_sensitive; and
//     space_change_sensitive together with a float tolerance is an error.
//   - validation "custom": the one program in output_validators/ is the
//     Checker; "custom interactive": it is the Interactor. Its validator_flags
//     cannot be passed (an error), nor can per-group output_validator_flags
//     in testdata.yaml; "score", type scoring, build/run scripts, several
//     validators and Python 2 are errors too.
//   - Tests: data/sample/** (Sample) and data/secret/** in natural order,
//     named by the path under data/ without extension ("secret/group1/03").
//     Kattis sorts lexicographically; the two agree on zero-padded names.
//     .interaction, .hint, .desc and image files are ignored.

var kattisFields = []string{
	"problem_format_version", "type", "name", "uuid", "author", "source",
	"source_url", "license", "rights_owner", "limits", "validation",
	"validator_flags", "grading", "keywords", "languages",
}

var kattisLimits = []string{
	"time_limit", "time_multiplier", "time_safety_margin", "memory", "output",
	"code", "compilation_time", "compilation_memory", "validation_time",
	"validation_memory", "validation_output",
}

// Directories in data/ other than sample/ and secret/ that newer versions
// of the format define and podjail does not judge.
var kattisIgnoredData = []string{
	"invalid_input", "invalid_inputs", "invalid_answer", "invalid_answers",
	"invalid_output", "invalid_outputs", "valid_output", "valid_outputs",
}

const (
	timelimitFile   = ".timelimit"
	validatorsDir   = "output_validators"
	defaultFlagHelp = "the default validator takes case_sensitive, space_change_sensitive, float_tolerance E, float_absolute_tolerance E, float_relative_tolerance E"
)

// kattis loads a Kattis package.
func (l *loader) kattis() (*Problem, error) {
	const file = problemYAML
	root, err := l.readYAML(file, "a Kattis package needs problem.yaml (https://www.kattis.com/problem-package-format/)")
	if err != nil {
		return nil, err
	}
	f, err := fields(file, "", root, kattisFields)
	if err != nil {
		return nil, err
	}
	p := &Problem{Format: FormatKattis, MemoryBytes: KattisMemoryBytes, OutputBytes: KattisOutputBytes}
	get := func(key string) (string, error) {
		if n, ok := f[key]; ok {
			return str(file, key, n)
		}
		return "", nil
	}
	if v, err := get("problem_format_version"); err != nil {
		return nil, err
	} else if v != "" && v != "legacy" {
		return nil, errf(file, "problem_format_version", "%q is not supported: podjail reads the legacy Kattis format only", v)
	}
	if v, err := get("type"); err != nil {
		return nil, err
	} else if v != "" && v != "pass-fail" {
		return nil, errf(file, "type", "%q is not supported: podjail judges pass-fail problems only", v)
	}
	if n, ok := f["name"]; ok {
		if p.Name, err = kattisName(n); err != nil {
			return nil, err
		}
	}
	if p.Name == "" {
		p.Name = filepath.Base(l.dir)
	}
	if err := l.kattisLimits(f["limits"], p); err != nil {
		return nil, err
	}

	validation, err := get("validation")
	if err != nil {
		return nil, err
	}
	flags, err := get("validator_flags")
	if err != nil {
		return nil, err
	}
	words := strings.Fields(validation)
	switch {
	case len(words) == 0 || len(words) == 1 && words[0] == "default":
		if l.hasValidators() {
			return nil, errf(file, "validation", "is default but output_validators/ holds a validator: set `validation: custom` to use it, or remove it")
		}
		if p.Comparator, err = flagsToComparator(flags); err != nil {
			return nil, &Error{File: file, Field: "validator_flags", Err: err}
		}
	case words[0] == "custom":
		interactive := false
		for _, w := range words[1:] {
			switch w {
			case "interactive":
				interactive = true
			case "score":
				return nil, errf(file, "validation", "%q: scoring validators are not supported, podjail judges pass-fail", validation)
			default:
				return nil, errf(file, "validation", "%q: unknown option %q (use custom or custom interactive)", validation, w)
			}
		}
		if flags != "" {
			return nil, errf(file, "validator_flags", "cannot be passed to a custom output validator: podjail runs it without extra arguments; build the flags into the validator")
		}
		prog, err := l.kattisValidator()
		if err != nil {
			return nil, err
		}
		if interactive {
			p.Interactor = prog
		} else {
			p.Checker = prog
		}
	default:
		return nil, errf(file, "validation", "%q: must be default, custom or custom interactive", validation)
	}

	if p.Tests, err = l.kattisTests(); err != nil {
		return nil, err
	}
	return p, nil
}

// kattisName reads name: a string, or a map of language to string (the
// newer spec), preferring "en".
func kattisName(n *yaml.Node) (string, error) {
	if n.Kind == yaml.MappingNode {
		m, err := fields(problemYAML, "name.", n, nil)
		if err != nil {
			return "", err
		}
		if en, ok := m["en"]; ok {
			return str(problemYAML, "name.en", en)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			return str(problemYAML, "name."+n.Content[i].Value, n.Content[i+1])
		}
		return "", nil
	}
	return str(problemYAML, "name", n)
}

// kattisLimits reads limits (n may be nil) and the .timelimit file.
func (l *loader) kattisLimits(n *yaml.Node, p *Problem) error {
	const file = problemYAML
	lim := map[string]*yaml.Node{}
	if n != nil {
		if n.Kind != yaml.MappingNode {
			return errf(file, "limits", "line %d: must be a mapping such as `limits: {time_limit: 1, memory: 256}`", n.Line)
		}
		var err error
		if lim, err = fields(file, "limits.", n, kattisLimits); err != nil {
			return err
		}
	}
	for _, key := range kattisLimits {
		v, ok := lim[key]
		if !ok {
			continue
		}
		field := "limits." + key
		switch key {
		case "time_limit":
			d, err := seconds(file, field, v)
			if err != nil {
				return err
			}
			p.TimeLimit = time.Duration(d)
		case "memory", "output":
			mib, err := number(file, field, "a positive number of MiB", v)
			if err != nil {
				return err
			}
			if !(mib > 0) || mib > 1<<30 {
				return errf(file, field, "must be a positive number of MiB, got %q", v.Value)
			}
			bytes := int64(mib * (1 << 20))
			if key == "output" {
				p.OutputBytes = bytes
			} else if p.MemoryBytes = bytes; bytes < MinMemoryBytes {
				return errf(file, field, "must be at least 6 (MiB; the smallest limit Podman accepts), got %q", v.Value)
			}
		default: // checked, unused
			x, err := number(file, field, "a positive number", v)
			if err != nil {
				return err
			}
			if !(x > 0) {
				return errf(file, field, "must be a positive number, got %q", v.Value)
			}
		}
	}
	if p.TimeLimit != 0 {
		return nil
	}
	data, err := l.readFile(timelimitFile)
	if errors.Is(err, fs.ErrNotExist) {
		return errf(file, "limits.time_limit", "not set and there is no %s file: podjail does not derive time limits from the judge solutions, so add `limits: {time_limit: 1}` (seconds) or a %s file", timelimitFile, timelimitFile)
	}
	if err != nil {
		return fileErr(timelimitFile, err)
	}
	raw := strings.TrimSpace(string(data))
	secs, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return errf(timelimitFile, "", "must hold a positive number of seconds, got %q", raw)
	}
	p.TimeLimit, err = timeLimit(timelimitFile, "", secs, raw)
	return err
}

// flagsToComparator maps the default validator's flags onto a comparator
// spec (see the mapping above).
func flagsToComparator(flags string) (string, error) {
	words := strings.Fields(flags)
	var caseSens, spaceSens, hasAbs, hasRel bool
	var abs, rel float64
	for i := 0; i < len(words); i++ {
		switch w := words[i]; w {
		case "case_sensitive":
			caseSens = true
		case "space_change_sensitive":
			spaceSens = true
		case "float_tolerance", "float_absolute_tolerance", "float_relative_tolerance":
			if i+1 == len(words) {
				return "", fmt.Errorf("%s needs a value, e.g. %q", w, w+" 1e-6")
			}
			i++
			v, err := strconv.ParseFloat(words[i], 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return "", fmt.Errorf("%s needs a non-negative number, got %q", w, words[i])
			}
			if w != "float_relative_tolerance" {
				abs, hasAbs = v, true
			}
			if w != "float_absolute_tolerance" {
				rel, hasRel = v, true
			}
		default:
			return "", fmt.Errorf("unknown flag %q: %s", w, defaultFlagHelp)
		}
	}
	switch {
	case (hasAbs || hasRel) && spaceSens:
		return "", fmt.Errorf("space_change_sensitive with a float tolerance cannot be expressed (podjail's float comparator ignores the amount of whitespace): drop one of them or write an output validator")
	case hasAbs || hasRel:
		// Canonical form of the compare package: zero tolerances left out.
		out := "float"
		if abs > 0 {
			out += " abs=" + strconv.FormatFloat(abs, 'g', -1, 64)
		}
		if rel > 0 {
			out += " rel=" + strconv.FormatFloat(rel, 'g', -1, 64)
		}
		return out, nil
	case spaceSens:
		return "exact", nil
	case caseSens:
		return "tokens", nil
	}
	return "case-insensitive", nil
}

// visible lists the entries of directory rel, hidden ones left out; a
// missing directory gives none.
func (l *loader) visible(rel string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(filepath.Join(l.dir, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{File: rel, Err: err}
	}
	out := entries[:0]
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e)
		}
	}
	return out, nil
}

func (l *loader) hasValidators() bool {
	entries, _ := l.visible(validatorsDir)
	return len(entries) > 0
}

// kattisValidator finds the single output validator: a source file in
// output_validators/, or a directory there holding one source file.
func (l *loader) kattisValidator() (*Program, error) {
	entries, err := l.visible(validatorsDir)
	if err != nil {
		return nil, err
	}
	switch len(entries) {
	case 0:
		return nil, errf(problemYAML, "validation", "is custom but output_validators/ holds no validator: add output_validators/NAME/ with its source file")
	case 1:
	default:
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		return nil, errf(validatorsDir, "", "holds %d validators (%s): podjail runs a single output validator, keep one", len(entries), strings.Join(names, ", "))
	}
	rel := filepath.Join(validatorsDir, entries[0].Name())
	fi, err := l.stat(rel)
	if err != nil {
		return nil, fileErr(rel, err)
	}
	src := rel
	if fi.IsDir() {
		for _, script := range []string{"build", "run"} {
			if _, err := os.Lstat(filepath.Join(l.dir, rel, script)); err == nil {
				return nil, errf(filepath.Join(rel, script), "", "build and run scripts are not supported: podjail compiles the validator from its single source file")
			}
		}
		if src, err = l.onlySource(rel); err != nil {
			return nil, err
		}
	} else if langOf(src) == "" {
		return nil, errf(src, "", "cannot tell the language from the extension: use .c, .cpp, .cc, .cxx or .py")
	}
	if err := l.regular(src); err != nil {
		return nil, err
	}
	if langOf(src) == "python3" {
		head, _ := os.ReadFile(filepath.Join(l.dir, src))
		if line, _, _ := bytes.Cut(head, []byte("\n")); bytes.HasPrefix(line, []byte("#!")) && bytes.Contains(line, []byte("python2")) {
			return nil, errf(src, "", "is a Python 2 program (shebang): podjail runs .py validators with Python 3")
		}
	}
	return &Program{Source: filepath.Join(l.dir, src), Lang: langOf(src)}, nil
}
