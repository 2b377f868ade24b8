package problem

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// The versions of the Kattis format since 2023-07 (its drafts and
// 2025-09): problem.yaml's fields, its limits, the problem types, and
// output_validator/ as the validator.

// The 2023-07 drafts' and 2025-09's problem.yaml.
var kattisModernFields = []string{
	"problem_format_version", "type", "name", "uuid", "version", "credits", "source",
	"license", "rights_owner", "embargo_until", "limits", "keywords", "languages",
	"allow_file_writing", "constants",
}

var kattisModernLimits = []string{
	"time_multipliers", "time_limit", "time_resolution", "memory", "output", "code",
	"compilation_time", "compilation_memory", "validation_time", "validation_memory",
	"validation_output", "validation_passes",
}

// Problem types of the format (type:), and the ones podjail judges.
var (
	kattisTypes       = []string{"pass-fail", "scoring", "multi-pass", "interactive", "submit-answer"}
	kattisJudgedTypes = []string{"pass-fail", "interactive", "multi-pass"}
)

// kattisModern reads the rest of a problem.yaml of 2023-07 or later (f)
// into p.
func (l *loader) kattisModern(f map[string]*yaml.Node, p *Problem) error {
	const file = problemYAML
	types := []string{"pass-fail"}
	if n, ok := f["type"]; ok {
		var err error
		if types, err = argList(file, "type", n); err != nil {
			return err
		}
		if len(types) == 0 {
			return errf(file, "type", "must not be empty: pass-fail, or a list such as [pass-fail, interactive]")
		}
	}
	interactive, multiPass := false, false
	for i, t := range types {
		switch {
		case !contains(kattisTypes, t):
			return errf(file, "type", "unknown type %q: the format's types are %s", t, strings.Join(kattisTypes, ", "))
		case contains(types[:i], t):
			return errf(file, "type", "%q is listed twice", t)
		case !contains(kattisJudgedTypes, t):
			return errf(file, "type", "%q problems are not supported yet: podjail judges %s", t, strings.Join(kattisJudgedTypes, ", "))
		}
		interactive = interactive || t == "interactive"
		multiPass = multiPass || t == "multi-pass"
	}
	if n, ok := f["constants"]; ok && !(n.Kind == yaml.MappingNode && len(n.Content) == 0) {
		return errf(file, "constants", "are not supported yet: podjail does not substitute {{constants}} in the package's files")
	}
	if n, ok := f["allow_file_writing"]; ok {
		if _, err := boolean(file, "allow_file_writing", n); err != nil {
			return err
		}
	}
	if l.isDir("include") {
		return errf("include", "", "included files are not supported yet: podjail builds a submission from its own files only")
	}
	if err := l.kattisLimits(f["limits"], kattisModernLimits, p); err != nil {
		return err
	}
	custom := l.hasValidators(modernValidatorDir)
	switch {
	case interactive && !custom:
		return errf(file, "type", "is interactive but output_validator/ holds no validator: an interactive problem needs one")
	case multiPass && !custom:
		return errf(file, "type", "is multi-pass but output_validator/ holds no validator: its validator writes each next pass's input")
	case multiPass && p.Passes == 0:
		p.Passes = 2 // the format's default validation_passes
	case !multiPass && p.Passes != 0:
		return errf(file, "limits.validation_passes", "is for multi-pass problems only: add multi-pass to type, or remove it")
	}
	return l.kattisValidation(p, modernValidatorDir, custom, interactive, nil, true)
}
