package problem

import (
	"errors"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// readYAML parses the YAML file rel (relative to the problem directory) and
// returns its top-level mapping. A missing file is reported with hint.
func (l *loader) readYAML(rel, hint string) (*yaml.Node, error) {
	data, err := l.readFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{File: rel, Err: notFound{hint}}
	}
	if err != nil {
		return nil, fileErr(rel, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		return nil, errf(rel, "", "invalid YAML: %s", msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}, nil // empty: every field absent
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errf(rel, "", "line %d: must be a mapping of `field: value` lines", root.Line)
	}
	return root, nil
}

// notFound is a missing-file error that still matches fs.ErrNotExist.
type notFound struct{ hint string }

func (e notFound) Error() string        { return "not found: " + e.hint }
func (e notFound) Is(target error) bool { return target == fs.ErrNotExist }

// fields returns the values of mapping m by key, rejecting duplicate keys
// and, when known is non-nil, keys not in known (catching typos). prefix is
// prepended to keys in error fields ("checker." for checker's keys).
func fields(file, prefix string, m *yaml.Node, known []string) (map[string]*yaml.Node, error) {
	out := make(map[string]*yaml.Node, len(m.Content)/2)
	lines := make(map[string]int, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, errf(file, strings.TrimSuffix(prefix, "."), "line %d: field names must be plain words", k.Line)
		}
		if line, dup := lines[k.Value]; dup {
			return nil, errf(file, prefix+k.Value, "set twice (lines %d and %d): keep one", line, k.Line)
		}
		if known != nil && !contains(known, k.Value) {
			msg := "unknown field (line %d); known fields: %s"
			if s := suggest(k.Value, known); s != "" {
				msg = "unknown field (line %d); did you mean \"" + s + "\"? Known fields: %s"
			}
			return nil, errf(file, prefix+k.Value, msg, k.Line, strings.Join(known, ", "))
		}
		lines[k.Value] = k.Line
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue // `field:` with no value counts as absent
		}
		out[k.Value] = v
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest returns the known field closest to s, if it is a likely typo.
func suggest(s string, known []string) string {
	best, bestD := "", -1
	for _, k := range known {
		if d := editDistance(strings.ToLower(s), k); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > max(2, len(best)/2) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// str reads a scalar as a string.
func str(file, field string, n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errf(file, field, "line %d: must be a string", n.Line)
	}
	return strings.TrimSpace(n.Value), nil
}

// boolean reads a YAML boolean.
func boolean(file, field string, n *yaml.Node) (bool, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, nil
		}
	}
	return false, errf(file, field, "must be true or false, got %q", n.Value)
}

// number reads a YAML int or float; what describes the expected value for
// the error message ("a positive number of seconds").
func number(file, field, what string, n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
	}
	return 0, errf(file, field, "must be %s, got %q", what, n.Value)
}

// seconds reads a time limit in seconds.
func seconds(file, field string, n *yaml.Node) (int64, error) {
	v, err := number(file, field, "a positive number of seconds", n)
	if err != nil {
		return 0, err
	}
	d, err := timeLimit(file, field, v, n.Value)
	return int64(d), err
}

// size reads a byte count written as an integer with an optional K, M or G
// suffix (binary multiples; "KB", "KiB" and lower case work too).
func size(file, field string, n *yaml.Node) (int64, error) {
	bad := errf(file, field, `must be a size such as "256M" (bytes with a K, M or G suffix), got %q`, n.Value)
	if n.Kind != yaml.ScalarNode {
		return 0, bad
	}
	s := strings.ToUpper(strings.TrimSpace(n.Value))
	s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult = 1 << 10
	case strings.HasSuffix(s, "M"):
		mult = 1 << 20
	case strings.HasSuffix(s, "G"):
		mult = 1 << 30
	}
	if mult != 1 {
		s = strings.TrimSpace(s[:len(s)-1])
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, bad
	}
	if v > math.MaxInt64/mult {
		return 0, errf(file, field, "%q is too large", n.Value)
	}
	return v * mult, nil
}
