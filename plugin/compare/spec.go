// Package compare judges a contestant's output against the expected answer
// while the output streams in, so the runner can stop the container at the
// first difference instead of waiting for (and storing) all of its output.
//
// A Comparator is an io.Writer: the runner copies the program's stdout into
// it, selects on Differs to kill the container early, and calls Close at the
// end of the stream for the verdict. The answer is read from an io.Reader a
// buffer at a time, so answers of hundreds of MB cost a few KiB of memory
// (at most a few MiB for pathological tokens, see MaxToken).
package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind names a comparison rule. The zero value "" means Tokens, the rule
// most problems want.
type Kind string

// The comparison rules understood by New and Parse.
const (
	// Exact wants the output byte for byte, for problems where layout
	// matters (ASCII art, exact formatting); with Spec.Fold, letters
	// without regard to ASCII case.
	Exact Kind = "exact"
	// Tokens splits both sides on ASCII whitespace and wants equal token
	// sequences, so trailing newlines, CRLF and spacing never fail anyone.
	Tokens Kind = "tokens"
	// Float is Tokens, except that a numeric expected token accepts any
	// number within Spec.AbsTol or Spec.RelTol of it. Numbers are decimal
	// (sign, digits, point, exponent: the Kattis format's grammar); "0x10",
	// "inf" and "nan" are words.
	Float Kind = "float"
	// CaseInsensitive is Tokens with ASCII case folding ("YES" == "yes").
	CaseInsensitive Kind = "case-insensitive"
)

// Spec names a comparator. The zero value is Tokens with no tolerances.
type Spec struct {
	// Kind is the rule; "" means Tokens.
	Kind Kind
	// AbsTol and RelTol are used by Float only: a number is accepted when
	// |got-exp| <= AbsTol or |got-exp| <= RelTol*|exp| (Kattis semantics).
	// With both 0 (the zero value) numbers must be equal, though "1.0"
	// still matches "1". Negative or NaN tolerances act as 0.
	AbsTol, RelTol float64
	// Fold compares Float's words (the tokens that are not numbers), or
	// Exact's letters, without regard to ASCII case, as Kattis's default
	// validator does. Zero value: exactly. Other kinds ignore it.
	Fold bool
}

// accepted lists the forms Parse understands, for error messages.
const accepted = `"tokens" (or ""), "exact", "case-insensitive", "float", "float abs=X rel=X" (either or both), "float ... fold" (words without regard to case), "exact fold" (letters without regard to case)`

// Parse reads a comparator spec as written in a problem's configuration:
// "" or "tokens", "exact", "case-insensitive", "float", or "float" followed
// by "abs=X" and/or "rel=X". Names are case-insensitive and "" yields
// Tokens explicitly, so Parse(s).String() is canonical.
func Parse(s string) (Spec, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Spec{Kind: Tokens}, nil
	}
	sp := Spec{Kind: Kind(strings.ToLower(f[0]))}
	switch sp.Kind {
	case Exact, Tokens, CaseInsensitive, Float:
	default:
		return Spec{}, fmt.Errorf("compare: unknown comparator %q; accepted: %s", f[0], accepted)
	}
	if sp.Kind == Exact && len(f) == 2 && strings.EqualFold(f[1], "fold") {
		sp.Fold = true
		return sp, nil
	}
	if sp.Kind != Float && len(f) > 1 {
		return Spec{}, fmt.Errorf("compare: %q takes no options (got %q); accepted: %s", f[0], f[1], accepted)
	}
	var seenAbs, seenRel bool
	for _, opt := range f[1:] {
		if strings.EqualFold(opt, "fold") && !sp.Fold {
			sp.Fold = true
			continue
		}
		name, val, ok := strings.Cut(strings.ToLower(opt), "=")
		var dst *float64
		switch {
		case ok && name == "abs" && !seenAbs:
			dst, seenAbs = &sp.AbsTol, true
		case ok && name == "rel" && !seenRel:
			dst, seenRel = &sp.RelTol, true
		default:
			return Spec{}, fmt.Errorf("compare: bad or repeated float option %q; accepted: %s", opt, accepted)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return Spec{}, fmt.Errorf("compare: float option %q needs a finite number >= 0; accepted: %s", opt, accepted)
		}
		*dst = v
	}
	return sp, nil
}

// String gives the canonical form, which Parse reads back to the same Spec
// (tolerances of non-Float kinds are dropped: they mean nothing there).
func (s Spec) String() string {
	switch s.Kind {
	case "":
		return string(Tokens)
	case Float:
		out := string(Float)
		if s.AbsTol > 0 {
			out += " abs=" + strconv.FormatFloat(s.AbsTol, 'g', -1, 64)
		}
		if s.RelTol > 0 {
			out += " rel=" + strconv.FormatFloat(s.RelTol, 'g', -1, 64)
		}
		if s.Fold {
			out += " fold"
		}
		return out
	case Exact:
		if s.Fold {
			return string(Exact) + " fold"
		}
	}
	return string(s.Kind)
}

// tolerance describes the Float tolerances for a Diff's Reason.
func (s Spec) tolerance() string {
	var parts []string
	if s.AbsTol > 0 {
		parts = append(parts, fmt.Sprintf("abs tol %g", s.AbsTol))
	}
	if s.RelTol > 0 {
		parts = append(parts, fmt.Sprintf("rel tol %g", s.RelTol))
	}
	if len(parts) == 0 {
		return "exact match required"
	}
	return strings.Join(parts, ", ")
}

// Diff is the first difference between the output and the answer, in terms
// a contestant (or a problem setter) can act on. The zero value means
// nothing; Close returns a nil *Diff when the output is accepted.
type Diff struct {
	// Line is the 1-based line of the contestant's output where the sides
	// differ (for a missing token: the line of the last token written).
	Line int
	// Token is the 1-based index, in the whole output, of the token that
	// differs or is missing; 0 for Exact, which has no tokens.
	Token int
	// Expected and Got are Go-quoted excerpts of at most 40 source bytes
	// (followed by ... when cut), so control bytes cannot garble a report;
	// the bare word EOF (no quotes) means that side had ended.
	Expected, Got string
	// Reason says why, e.g. "token differs", "output ended early",
	// "extra output", "byte differs", "number differs by 0.0123 (abs tol 1e-06)".
	Reason string
}

// String renders d on one line, e.g.
// `line 3, token 7: expected "42", got "41" (token differs)`.
func (d Diff) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %d", d.Line)
	if d.Token > 0 {
		fmt.Fprintf(&b, ", token %d", d.Token)
	}
	b.WriteString(":")
	if d.Expected != "" || d.Got != "" {
		fmt.Fprintf(&b, " expected %s, got %s", d.Expected, d.Got)
		if d.Reason != "" {
			fmt.Fprintf(&b, " (%s)", d.Reason)
		}
	} else {
		b.WriteString(" " + d.Reason)
	}
	return b.String()
}
