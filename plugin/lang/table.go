package lang

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Table is a set of languages, looked up by ID, alias or file extension.
// It is immutable: Lookup and ForFile return copies.
type Table struct {
	langs map[string]Language // by ID
	names map[string]string   // ID or alias -> ID
	exts  map[string]string   // extension -> ID
}

//go:embed languages.yaml
var embedded []byte

// embeddedName is how errors about the embedded table name it.
const embeddedName = "languages.yaml (embedded)"

var defaultTable = sync.OnceValue(func() *Table {
	t, err := parse(nil, embedded, embeddedName)
	if err != nil {
		panic("lang: the embedded table is broken: " + err.Error())
	}
	return t
})

// Default returns podjail's built-in languages (languages.yaml in this
// package). It is parsed on the first call, not at import time.
func Default() *Table { return defaultTable() }

// Load returns the built-in languages merged with the languages file at
// path (see the package documentation for its format): an entry for a
// known ID overrides that language field by field, a new ID adds a
// language, a null entry removes one.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("languages file: %w", err)
	}
	return parse(Default(), data, path)
}

// Lookup finds a language by ID or alias, ignoring case.
func (t *Table) Lookup(name string) (Language, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if id, ok := t.names[key]; ok {
		return t.langs[id].clone(), nil
	}
	if key == "" {
		return Language{}, fmt.Errorf("%w: no language given; known languages: %s", ErrUnknownLanguage, t.known())
	}
	return Language{}, fmt.Errorf("%w %q; known languages: %s; to add one, describe it in a YAML file passed with --languages (format: go doc github.com/podjail/podjail/plugin/lang)",
		ErrUnknownLanguage, name, t.known())
}

// ForFile guesses the language of a source file from its extension,
// ignoring case.
func (t *Table) ForFile(path string) (Language, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if id, ok := t.exts[ext]; ok && ext != "" {
		return t.langs[id].clone(), nil
	}
	known := make([]string, 0, len(t.exts))
	for e := range t.exts {
		known = append(known, e)
	}
	slices.Sort(known)
	what := fmt.Sprintf("extension %q", ext)
	if ext == "" {
		what = "no extension"
	}
	return Language{}, fmt.Errorf("%w for %q (%s; known extensions: %s); name the language instead, or add one with --languages",
		ErrUnknownLanguage, filepath.Base(path), what, strings.Join(known, " "))
}

// IDs returns the languages' IDs, sorted.
func (t *Table) IDs() []string { return idsOf(t.langs) }

// known lists the IDs with their aliases, for error messages.
func (t *Table) known() string {
	var b strings.Builder
	for i, id := range t.IDs() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id)
		if a := t.langs[id].Aliases; len(a) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(a, " "))
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// newTable normalizes and validates langs and indexes them; it refuses two
// languages answering to the same name or claiming the same extension, and
// blames the one that comes later: IDs in order, those in last after the
// others (so that a clash with a built-in blames the languages file).
func newTable(langs map[string]Language, last map[string]*entryLines) (*Table, error) {
	t := &Table{langs: langs, names: map[string]string{}, exts: map[string]string{}}
	ids := idsOf(langs)
	slices.SortStableFunc(ids, func(a, b string) int {
		_, la := last[a]
		_, lb := last[b]
		switch {
		case la == lb:
			return 0
		case lb:
			return -1
		}
		return 1
	})
	for _, id := range ids {
		l := langs[id]
		if l.Name == "" {
			l.Name = l.ID
		}
		if len(l.Compile) == 0 {
			l.Compile = nil
			if len(l.Artefacts) == 0 && l.Source != "" {
				l.Artefacts = []string{l.Source}
			}
		}
		if err := l.Validate(); err != nil {
			return nil, err
		}
		langs[id] = l
		for i, n := range append([]string{l.ID}, l.Aliases...) {
			if other, dup := t.names[n]; dup && other != id {
				field := "aliases"
				if i == 0 {
					field = "id"
				}
				return nil, &idError{id, bad(field, "the name %q is already taken by %q", n, other)}
			}
			t.names[n] = id
		}
		for _, e := range l.Extensions {
			if other, dup := t.exts[e]; dup && other != id {
				return nil, &idError{id, bad("extensions", "%q is already claimed by %q (an extension maps to one language: remove it there)", e, other)}
			}
			t.exts[e] = id
		}
	}
	return t, nil
}
