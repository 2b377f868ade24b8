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

// Kattis packages, every version (kattis_legacy.go, kattis_2023.go where
// they differ; kattis_data.go for data/). How they map onto a Problem:
//
//   - Time limit: limits.time_limit (seconds) if set, else the .timelimit
//     file at the root, else an error: podjail does not derive time limits
//     from the judge solutions, so the time multipliers are checked but
//     unused.
//   - limits.memory and limits.output are MiB; unset they default to
//     KattisMemoryBytes and KattisOutputBytes. The other limits are checked
//     but unused.
//   - The default validator: its flags (legacy validator_flags, then the
//     groups' and the test's arguments) become a comparator, the problem's
//     or a test's:
//
//     no flags                          -> "case-insensitive"
//     case_sensitive                    -> "tokens"
//     space_change_sensitive            -> "exact fold"
//     space_change_sensitive case_sensitive -> "exact"
//     float_tolerance E                 -> "float abs=E rel=E fold"
//     float_absolute_tolerance A        -> "float abs=A fold"
//     float_relative_tolerance R        -> "float rel=R fold"
//     (both float_absolute_ and float_relative_ give "float abs=A rel=R";
//     a zero tolerance is left out, as compare.Spec.String does; a number
//     is accepted within either tolerance, as in Kattis, and is written as
//     the format's grammar says; "fold", words without regard to case,
//     unless case_sensitive)
//
//     What cannot be expressed, and how it differs from Kattis: "exact" is
//     byte for byte, so it may be stricter than Kattis about, say, a missing
//     final newline; and space_change_sensitive together with a float
//     tolerance is an error.
//   - A custom validator (legacy: validation custom; since 2023-07: a
//     program in output_validator/) is the Checker, or the Interactor for an
//     interactive problem, called by validator.Kattis with the same
//     arguments the default one would get. Scoring, build/run scripts,
//     several validators and Python 2 are errors.
//   - Tests: data/sample/** (Sample) and data/secret/** in natural order,
//     named by the path under data/ without extension ("secret/group1/03").
//     Kattis sorts lexicographically; the two agree on zero-padded names.
//     .interaction, .hint, .desc and image files are ignored.
//   - The submission's verdict is its first rejected test's
//     (FirstRejectionDecides).

// Versions of the format: the legacy ones, and the ones since 2023-07
// (its drafts, 2025-09), which share one layout as far as podjail reads it.
var (
	kattisLegacyVersions = []string{"legacy", "legacy-icpc"}
	kattisModernVersions = []string{"2023-07-draft", "2023-07", "2025-09-draft", "2025-09", "draft"}
)

// Directories in data/ other than sample/ and secret/ that newer versions
// of the format define and podjail does not judge.
var kattisIgnoredData = []string{
	"invalid_input", "invalid_inputs", "invalid_answer", "invalid_answers",
	"invalid_output", "invalid_outputs", "valid_output", "valid_outputs",
}

const (
	timelimitFile      = ".timelimit"
	validatorsDir      = "output_validators" // legacy
	modernValidatorDir = "output_validator"  // 2023-07 and later
	defaultFlagHelp    = "the default validator takes case_sensitive, space_change_sensitive, float_tolerance E, float_absolute_tolerance E, float_relative_tolerance E"
)

// kattis loads a Kattis package.
func (l *loader) kattis() (*Problem, error) {
	const file = problemYAML
	root, err := l.readYAML(file, "a Kattis package needs problem.yaml (https://www.kattis.com/problem-package-format/)")
	if err != nil {
		return nil, err
	}
	version := ""
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "problem_format_version" {
			if version, err = str(file, "problem_format_version", root.Content[i+1]); err != nil {
				return nil, err
			}
		}
	}
	modern := contains(kattisModernVersions, version)
	if !modern && version != "" && !contains(kattisLegacyVersions, version) {
		return nil, errf(file, "problem_format_version", "%q is not a version podjail reads: %s", version, strings.Join(append(append([]string{}, kattisLegacyVersions...), kattisModernVersions...), ", "))
	}
	known := kattisFields
	if modern {
		known = kattisModernFields
	}
	f, err := fields(file, "", root, known)
	if err != nil {
		return nil, err
	}
	p := &Problem{Format: FormatKattis, MemoryBytes: KattisMemoryBytes, OutputBytes: KattisOutputBytes, FirstRejectionDecides: true,
		Languages: map[string]string{".c": "gnu11"}}
	if n, ok := f["name"]; ok {
		if p.Name, err = kattisName(n); err != nil {
			return nil, err
		}
	}
	if p.Name == "" {
		p.Name = filepath.Base(l.dir)
	}
	if modern {
		p.Timing = Timing{ACToTimeLimit: 2, TimeLimitToTLE: 1.5, Resolution: 1}
		err = l.kattisModern(f, p)
	} else {
		p.Timing = Timing{ACToTimeLimit: 5, TimeLimitToTLE: 2, Resolution: 1}
		err = l.kattisLegacy(f, p)
	}
	if err != nil {
		return nil, err
	}
	p.InputValidators, err = l.inputValidators()
	return p, err
}

// kattisValidation sets p's validation: a custom validator from dir, or
// the default one's comparator; and its tests, each with its validator
// arguments (flags, then its groups' and its own).
func (l *loader) kattisValidation(p *Problem, dir string, custom, interactive bool, flags []string, modern bool) error {
	var err error
	if !custom {
		if p.Comparator, err = flagsToComparator(strings.Join(flags, " ")); err != nil {
			return &Error{File: problemYAML, Field: "validator_flags", Err: err}
		}
	} else {
		prog, err := l.kattisValidator(dir)
		if err != nil {
			return err
		}
		if interactive {
			p.Interactor = prog
		} else {
			p.Checker = prog
		}
	}
	if p.Tests, err = l.kattisTests(modern); err != nil {
		return err
	}
	for i, t := range p.Tests {
		args := append(append([]string(nil), flags...), t.ValidatorArgs...)
		p.Tests[i].ValidatorArgs = nil
		switch {
		case custom:
			if len(args) > 0 {
				p.Tests[i].ValidatorArgs = args
			}
		case len(t.ValidatorArgs) > 0:
			if p.Tests[i].Comparator, err = flagsToComparator(strings.Join(args, " ")); err != nil {
				return errf("data/"+t.Name, "output_validator_args", "%v", err)
			}
		}
	}
	return nil
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

// kattisLimits reads limits (n may be nil; known are the version's keys)
// and the .timelimit file.
func (l *loader) kattisLimits(n *yaml.Node, known []string, p *Problem) error {
	const file = problemYAML
	lim := map[string]*yaml.Node{}
	if n != nil {
		if n.Kind != yaml.MappingNode {
			return errf(file, "limits", "line %d: must be a mapping such as `limits: {time_limit: 1, memory: 256}`", n.Line)
		}
		var err error
		if lim, err = fields(file, "limits.", n, known); err != nil {
			return err
		}
	}
	for _, key := range known {
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
		case "time_multipliers":
			m, err := fields(file, field+".", v, []string{"ac_to_time_limit", "time_limit_to_tle"})
			if err != nil {
				return err
			}
			for k, x := range m {
				f, err := number(file, field+"."+k, "a number of at least 1", x)
				if err != nil || f < 1 {
					return orRefused(err, errf(file, field+"."+k, "must be a number of at least 1, got %q", x.Value))
				}
				if k == "ac_to_time_limit" {
					p.Timing.ACToTimeLimit = f
				} else {
					p.Timing.TimeLimitToTLE = f
				}
			}
		case "validation_passes":
			n, err := number(file, field, "a whole number of at least 2", v)
			if err != nil || n < 2 || n != math.Trunc(n) || n > MaxPasses {
				return orRefused(err, errf(file, field, "must be a whole number from 2 to %d, got %q", MaxPasses, v.Value))
			}
			p.Passes = int(n)
		case "time_multiplier", "time_safety_margin", "time_resolution":
			f, err := number(file, field, "a positive number", v)
			if err != nil || !(f > 0) {
				return orRefused(err, errf(file, field, "must be a positive number, got %q", v.Value))
			}
			switch key {
			case "time_multiplier":
				p.Timing.ACToTimeLimit = f
			case "time_safety_margin":
				p.Timing.TimeLimitToTLE = f
			default:
				p.Timing.Resolution = f
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
	if errors.Is(err, fs.ErrNotExist) && l.untimed {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return errf(file, "limits.time_limit", "not set and there is no %s file: podjail judge does not derive time limits from the judge solutions (podjail verify does, from the accepted submissions), so add `limits: {time_limit: 1}` (seconds) or a %s file", timelimitFile, timelimitFile)
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
		if !caseSens {
			out += " fold" // words without regard to case, as Kattis
		}
		return out, nil
	case spaceSens && caseSens:
		return "exact", nil
	case spaceSens:
		return "exact fold", nil
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

func (l *loader) hasValidators(dir string) bool {
	entries, _ := l.visible(dir)
	return len(entries) > 0
}

// kattisValidator finds the single output validator in dir: a source
// file there, a directory there holding one source file (and the files it
// builds with, such as headers), or (2023-07 and later) dir itself as
// that directory.
func (l *loader) kattisValidator(dir string) (*Program, error) {
	entries, err := l.visible(dir)
	if err != nil {
		return nil, err
	}
	rel := dir
	direct := false
	for _, e := range entries {
		direct = direct || !e.IsDir() && langOf(e.Name()) != ""
	}
	switch {
	case direct && dir == modernValidatorDir:
	case len(entries) == 0:
		return nil, errf(problemYAML, "validation", "is custom but %s/ holds no validator: add %s/NAME/ with its source file", dir, dir)
	case len(entries) == 1:
		rel = filepath.Join(dir, entries[0].Name())
	default:
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		return nil, errf(dir, "", "holds %d validators (%s): podjail runs a single output validator, keep one", len(entries), strings.Join(names, ", "))
	}
	fi, err := l.stat(rel)
	if err != nil {
		return nil, fileErr(rel, err)
	}
	src := rel
	var extra []string
	if fi.IsDir() {
		for _, script := range []string{"build", "run"} {
			if _, err := os.Lstat(filepath.Join(l.dir, rel, script)); err == nil {
				return nil, errf(filepath.Join(rel, script), "", "build and run scripts are not supported: podjail compiles the validator from its single source file")
			}
		}
		if src, err = l.onlySource(rel); err != nil {
			return nil, err
		}
		if extra, err = l.extraFiles(rel, src); err != nil {
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
	return &Program{Source: filepath.Join(l.dir, src), Lang: langOf(src), Extra: extra}, nil
}

// extraFiles are the files of program directory rel other than its source
// src, the ones it builds with (headers), as absolute paths.
func (l *loader) extraFiles(rel, src string) ([]string, error) {
	entries, err := l.visible(rel)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		x := filepath.Join(rel, e.Name())
		switch {
		case x == src:
		case e.IsDir():
			return nil, errf(x, "", "a validator's directory holds files only: podjail builds it from the files beside its source")
		default:
			if err := l.regular(x); err != nil {
				return nil, err
			}
			out = append(out, filepath.Join(l.dir, x))
		}
	}
	return out, nil
}

// inputValidatorsDir holds a Kattis package's input validators, every
// version.
const inputValidatorsDir = "input_validators"

// inputValidators reads input_validators/: each entry a program, a
// source file or a directory as the output validator is. One podjail
// cannot build (a checktestdata or VIVA file, build scripts, several
// sources) is listed with the reason, so that judging never depends on
// it: only podjail verify runs them.
func (l *loader) inputValidators() ([]Program, error) {
	entries, err := l.visible(inputValidatorsDir)
	if err != nil {
		return nil, err
	}
	var out []Program
	for _, e := range entries {
		rel := filepath.Join(inputValidatorsDir, e.Name())
		name := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		if e.IsDir() {
			name = e.Name()
		}
		prog := Program{Name: name}
		switch ext := strings.ToLower(filepath.Ext(e.Name())); {
		case !e.IsDir() && (ext == ".ctd" || ext == ".viva"):
			prog.Unusable = e.Name() + ": checktestdata and VIVA validators are not supported yet"
		case !e.IsDir() && langOf(e.Name()) == "":
			prog.Unusable = e.Name() + ": cannot tell the language from the extension (.c, .cpp, .cc, .cxx, .py)"
		case !e.IsDir():
			prog.Source, prog.Lang = filepath.Join(l.dir, rel), langOf(e.Name())
		default:
			src, err := l.onlySource(rel)
			if err == nil {
				var extra []string
				if extra, err = l.extraFiles(rel, src); err == nil {
					for _, script := range []string{"build", "run"} {
						if _, serr := os.Lstat(filepath.Join(l.dir, rel, script)); serr == nil {
							err = errf(filepath.Join(rel, script), "", "build and run scripts are not supported")
						}
					}
					prog.Source, prog.Lang, prog.Extra = filepath.Join(l.dir, src), langOf(src), extra
				}
			}
			if err != nil {
				prog = Program{Name: name, Unusable: err.Error()}
			}
		}
		out = append(out, prog)
	}
	return out, nil
}
