package problem

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// The legacy version of the Kattis format (problem_format_version absent,
// legacy or legacy-icpc): problem.yaml's fields, its limits, and how
// validation and validator_flags choose the validator.

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

// kattisLegacy reads the rest of a legacy problem.yaml (f) into p.
func (l *loader) kattisLegacy(f map[string]*yaml.Node, p *Problem) error {
	const file = problemYAML
	get := func(key string) (string, error) {
		if n, ok := f[key]; ok {
			return str(file, key, n)
		}
		return "", nil
	}
	if v, err := get("type"); err != nil {
		return err
	} else if v != "" && v != "pass-fail" {
		return errf(file, "type", "%q is not supported: podjail judges pass-fail problems only", v)
	}
	if err := l.kattisLimits(f["limits"], kattisLimits, p); err != nil {
		return err
	}
	validation, err := get("validation")
	if err != nil {
		return err
	}
	flags, err := get("validator_flags")
	if err != nil {
		return err
	}
	words := strings.Fields(validation)
	custom, interactive := false, false
	switch {
	case len(words) == 0 || len(words) == 1 && words[0] == "default":
		if l.hasValidators(validatorsDir) {
			return errf(file, "validation", "is default but output_validators/ holds a validator: set `validation: custom` to use it, or remove it")
		}
	case words[0] == "custom":
		custom = true
		for _, w := range words[1:] {
			switch w {
			case "interactive":
				interactive = true
			case "score":
				return errf(file, "validation", "%q: scoring validators are not supported, podjail judges pass-fail", validation)
			default:
				return errf(file, "validation", "%q: unknown option %q (use custom or custom interactive)", validation, w)
			}
		}
	default:
		return errf(file, "validation", "%q: must be default, custom or custom interactive", validation)
	}
	return l.kattisValidation(p, validatorsDir, custom, interactive, strings.Fields(flags), false)
}
