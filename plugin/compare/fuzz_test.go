package compare

import (
	"bytes"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzCompare holds that every comparator gives the verdict of refAccepts,
// a plain reading of its rule, whatever the chunks the output arrives in
// and however the answer is read (never panicking); that a refusal comes
// with a Diff that has a reason and a line; that Exact, Tokens,
// CaseInsensitive and Float with only an absolute tolerance are
// symmetric (swapping answer and output keeps the verdict); and that
// Parse(spec.String()) gives the spec back. Answer and output are capped
// at 4 KiB each, far under MaxToken.
func FuzzCompare(f *testing.F) {
	for _, c := range cases {
		if len(c.answer) < 4096 && len(c.output) < 4096 {
			f.Add(string(c.spec.Kind), c.spec.AbsTol, c.spec.RelTol, c.answer, c.output, uint8(3))
		}
	}
	f.Add("float", 1e-6, 0.0, "0x1p-2 1e999 .5 +.5 -0", "0.25 1e999 0.5 0.5 0", uint8(1))
	f.Add("float", 1e-6, 0.0, "Yes 1.5 NaN", "yES 1.5000001 nan", uint8(0x83))
	f.Add("exact", 0.0, 0.0, "Yes\n [1]\n", "yES\n [1]\n", uint8(0x82))
	f.Fuzz(func(t *testing.T, kind string, abs, rel float64, answer, output string, chunk uint8) {
		if len(answer) > 4096 || len(output) > 4096 {
			return
		}
		sp := Spec{Kind: Kind(kind), AbsTol: abs, RelTol: rel}
		switch sp.Kind {
		case Exact, Float:
			sp.Fold = chunk&0x80 != 0 // the chunk's high bit: fold or not
		case Tokens, CaseInsensitive:
		default:
			return
		}
		chunk &= 0x7f
		if !(abs >= 0 && rel >= 0) || math.IsInf(abs, 0) || math.IsInf(rel, 0) {
			return
		}
		if back, err := Parse(sp.String()); err != nil || back.String() != sp.String() {
			t.Fatalf("Parse(%q) = %v, %v", sp.String(), back, err)
		}
		want := refAccepts(sp, answer, output)
		got := run(sp, iotest.HalfReader(strings.NewReader(answer)), output, int(chunk)+1)
		if got.ok != want || got.ok != (got.diff == nil) {
			t.Fatalf("%s: answer %q, output %q: got %v %+v, want %v", sp, answer, output, got.ok, got.diff, want)
		}
		if d := got.diff; d != nil && (d.Reason == "" || d.Line < 1) {
			t.Fatalf("%s: answer %q, output %q: a Diff without reason or line: %+v", sp, answer, output, d)
		}
		if whole := run(sp, strings.NewReader(answer), output); whole.ok != got.ok || !diffEqual(whole.diff, got.diff) {
			t.Fatalf("%s: answer %q, output %q: in chunks of %d %+v, whole %+v", sp, answer, output, int(chunk)+1, got.diff, whole.diff)
		}
		if sp.Kind != Float || rel == 0 {
			if swapped := refAccepts(sp, output, answer); swapped != want {
				t.Fatalf("%s: not symmetric: %q against %q is %v, swapped %v", sp, answer, output, want, swapped)
			}
			if back := run(sp, strings.NewReader(output), answer); back.ok != got.ok {
				t.Fatalf("%s: not symmetric: %q against %q is %v, swapped %v", sp, answer, output, got.ok, back.ok)
			}
		}
	})
}

func diffEqual(a, b *Diff) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// refAccepts is each rule written out plainly: whole strings, no
// streaming.
func refAccepts(sp Spec, answer, output string) bool {
	if sp.Kind == Exact {
		return answer == output || sp.Fold && len(answer) == len(output) && bytes.Equal(asciiLower(answer), asciiLower(output))
	}
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r < 256 && isSpace[r] })
	}
	exp, got := split(answer), split(output)
	if len(exp) != len(got) {
		return false
	}
	for i := range exp {
		if !refToken(sp, exp[i], got[i]) {
			return false
		}
	}
	return true
}

func refToken(sp Spec, exp, got string) bool {
	switch {
	case exp == got:
		return true
	case sp.Kind == CaseInsensitive:
		return len(exp) == len(got) && bytes.Equal(asciiLower(exp), asciiLower(got))
	case sp.Kind != Float:
		return false
	}
	e, err := strconv.ParseFloat(exp, 64)
	if !refDecimal.MatchString(exp) || err != nil || math.IsNaN(e) || math.IsInf(e, 0) {
		// a word: equal bytes, or equal but for case with Fold
		return sp.Fold && len(exp) == len(got) && bytes.Equal(asciiLower(exp), asciiLower(got))
	}
	g, err := strconv.ParseFloat(got, 64)
	if !refDecimal.MatchString(got) || err != nil && !errors.Is(err, strconv.ErrRange) {
		return false
	}
	d := math.Abs(g - e)
	return d <= sp.AbsTol || d <= sp.RelTol*math.Abs(e)
}

// refDecimal is the Kattis format's number grammar, written as its spec
// writes it.
var refDecimal = regexp.MustCompile(`^[+-]?([0-9]*\.[0-9]+|[0-9]+\.|[0-9]+)([Ee][+-]?[0-9]+)?$`)

func asciiLower(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}
