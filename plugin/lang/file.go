package lang

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// fields are a languages file's field names, in the order doc.go lists them.
var fields = []string{"name", "aliases", "extensions", "build_image", "run_image", "source",
	"compile", "artefacts", "run", "extra_time", "build_time_limit", "build_memory", "env",
	"memory_exit_code", "stack", "artefact_hint"}

// idError is an error about one language.
type idError struct {
	id  string
	err error
}

func (e *idError) Error() string { return fmt.Sprintf("language %q: %v", e.id, e.err) }
func (e *idError) Unwrap() error { return e.err }

// entryLines records where a languages file sets a language and its fields.
type entryLines struct {
	entry  int
	fields map[string]int
}

// parse merges the languages file data (named name in errors) into a copy
// of base (nil: no languages) and returns the result.
func parse(base *Table, data []byte, name string) (*Table, error) {
	langs := map[string]Language{}
	if base != nil {
		for id, l := range base.langs {
			langs[id] = l.clone()
		}
	}
	fail := func(line int, err error) error { return fmt.Errorf("%s: line %d: %w", name, line, err) }
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml.v3 says "yaml: line N: ..."
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	lines := map[string]*entryLines{} // by ID
	if len(doc.Content) > 0 {
		top := resolve(doc.Content[0])
		if top.Kind != yaml.MappingNode {
			return nil, fail(top.Line, errors.New(`the file must map language IDs to their fields, like "cpp17: {run_image: ...}"`))
		}
		for i := 0; i+1 < len(top.Content); i += 2 {
			k, v := top.Content[i], resolve(top.Content[i+1])
			id := strings.ToLower(k.Value)
			if at, dup := lines[id]; dup {
				return nil, fail(k.Line, fmt.Errorf("language %q is already defined at line %d", id, at.entry))
			}
			lines[id] = &entryLines{k.Line, map[string]int{}}
			if isNull(v) { // "python3: ~" removes python3
				if _, ok := langs[id]; !ok {
					return nil, fail(k.Line, fmt.Errorf("language %q: a null entry removes a language, but there is none by that ID (known: %s)", id, strings.Join(idsOf(langs), ", ")))
				}
				delete(langs, id)
				continue
			}
			if v.Kind != yaml.MappingNode {
				return nil, fail(v.Line, fmt.Errorf("language %q: want a mapping of fields (%s)", id, strings.Join(fields, ", ")))
			}
			l, ok := langs[id]
			if !ok {
				for _, other := range langs {
					if slices.Contains(other.Aliases, id) {
						return nil, fail(k.Line, fmt.Errorf("language %q: %q is an alias of %q, and entries are keyed by ID: write %s: to change that language", id, id, other.ID, other.ID))
					}
				}
				l = Language{ID: id}
			}
			if line, err := decodeEntry(v, &l, lines[id].fields); err != nil {
				return nil, fail(line, &idError{id, err})
			}
			langs[id] = l
		}
	}
	t, err := newTable(langs, lines)
	if err != nil {
		var ie *idError
		var fe *fieldError
		if errors.As(err, &ie) && lines[ie.id] != nil {
			line := lines[ie.id].entry
			if errors.As(err, &fe) && lines[ie.id].fields[fe.field] > 0 {
				line = lines[ie.id].fields[fe.field]
			}
			return nil, fail(line, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// decodeEntry sets the fields that the mapping n sets, recording their
// lines; other fields keep their values (the defaults' when n overrides a
// built-in language). On error it returns the line to blame.
func decodeEntry(n *yaml.Node, l *Language, lines map[string]int) (int, error) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if at, dup := lines[k.Value]; dup {
			return k.Line, bad(k.Value, "already set at line %d", at)
		}
		lines[k.Value] = k.Line
		var err error
		switch k.Value {
		case "name":
			l.Name, err = str(v)
		case "aliases":
			l.Aliases, err = list(v)
			for i := range l.Aliases {
				l.Aliases[i] = strings.ToLower(l.Aliases[i])
			}
		case "extensions":
			l.Extensions, err = list(v)
			for i := range l.Extensions {
				l.Extensions[i] = strings.ToLower(l.Extensions[i])
			}
		case "build_image":
			l.BuildImage, err = str(v)
		case "run_image":
			l.RunImage, err = str(v)
		case "source":
			l.Source, err = str(v)
		case "compile":
			l.Compile, err = list(v)
		case "artefacts":
			l.Artefacts, err = list(v)
		case "run":
			l.Run, err = list(v)
		case "extra_time":
			l.ExtraTime, err = duration(v)
		case "build_time_limit":
			l.BuildTimeLimit, err = duration(v)
		case "build_memory":
			l.BuildMemoryBytes, err = byteSize(v)
		case "env":
			l.Env, err = list(v)
		case "stack":
			l.StackBytes, err = byteSize(v)
		case "memory_exit_code":
			l.MemoryExitCode, err = integer(v)
		case "artefact_hint":
			l.ArtefactHint, err = str(v)
		default:
			err = fmt.Errorf("unknown field (known: %s)", strings.Join(fields, ", "))
		}
		if err != nil {
			return k.Line, &fieldError{k.Value, err}
		}
	}
	return 0, nil
}

// resolve follows an alias (*anchor) to its node.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// str reads a scalar as written (no YAML typing: 1.10 stays "1.10"); null
// clears the field.
func str(n *yaml.Node) (string, error) {
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", errors.New("want a single value, not a list or mapping")
	}
	return n.Value, nil
}

// list reads a sequence of scalars; null or [] clears the field.
func list(n *yaml.Node) ([]string, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("want a list, like [a, b] (an argv is a list of words, not one string)")
	}
	var out []string
	for _, item := range n.Content {
		s, err := str(resolve(item))
		if err != nil || isNull(item) {
			return nil, errors.New("want a list of plain values, not of lists or mappings")
		}
		out = append(out, s)
	}
	return out, nil
}

// duration reads a Go duration ("1.5s", "500ms") or a number of seconds.
func duration(n *yaml.Node) (time.Duration, error) {
	s, err := str(n)
	if err != nil || s == "" {
		return 0, err
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && math.Abs(f) < 1e9 {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (like 1.5s, 500ms, or a number of seconds)", s)
	}
	return d, nil
}

// units are byteSize's suffixes, all binary (a judge's "256 MB" is 256 MiB).
var units = map[string]int64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}

// byteSize reads a whole number of bytes with an optional binary unit:
// 536870912, 512MiB, 512M, 1GiB.
func byteSize(n *yaml.Node) (int64, error) {
	s, err := str(n)
	if err != nil || s == "" {
		return 0, err
	}
	return ParseSize(s)
}

// ParseSize reads a whole number of bytes with an optional binary unit, as
// a languages file's sizes: 536870912, 512MiB, 512M, 1GiB.
func ParseSize(s string) (int64, error) {
	num := strings.TrimRight(s, "bBkKmMgGiI ")
	unit, ok := units[strings.ToLower(strings.TrimSpace(s[len(num):]))]
	v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if !ok || err != nil || v > math.MaxInt64/unit || v < math.MinInt64/unit {
		return 0, fmt.Errorf("%q is not a size (like 512MiB, 1GiB or a number of bytes)", s)
	}
	return v * unit, nil
}

func idsOf(langs map[string]Language) []string { return slices.Sorted(maps.Keys(langs)) }

// integer reads a whole number; null clears the field.
func integer(n *yaml.Node) (int, error) {
	s, err := str(n)
	if err != nil || s == "" {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	return v, nil
}
