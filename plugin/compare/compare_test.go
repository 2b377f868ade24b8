package compare

import (
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

type result struct {
	ok   bool
	diff *Diff
}

// run feeds output to a Comparator in the given chunk sizes (cycled; none
// means one Write) and returns its verdict.
func run(sp Spec, answer io.Reader, output string, chunks ...int) result {
	c := New(sp, answer)
	for i := 0; len(output) > 0; i++ {
		n := len(output)
		if len(chunks) > 0 {
			n = min(n, chunks[i%len(chunks)])
		}
		if w, err := c.Write([]byte(output[:n])); w != n || err != nil {
			panic("Write must return len(p), nil")
		}
		output = output[n:]
	}
	ok, d := c.Close()
	return result{ok, d}
}

var (
	tokens = Spec{Kind: Tokens}
	exact  = Spec{Kind: Exact}
	ci     = Spec{Kind: CaseInsensitive}
	fl     = func(abs, rel float64) Spec { return Spec{Kind: Float, AbsTol: abs, RelTol: rel} }
)

type tcase struct {
	name           string
	spec           Spec
	answer, output string
	want           *Diff // nil: accepted
	reason         string
}

var cases = []tcase{
	// Tokens
	{name: "tokens equal", spec: tokens, answer: "1 2 3\n", output: "1 2 3\n"},
	{name: "zero spec is tokens", spec: Spec{}, answer: "1 2\n", output: "1\n2"},
	{name: "tokens whitespace", spec: tokens, answer: "1 2\n3\n", output: "  1\t2 \v\f  3"},
	{name: "tokens CRLF", spec: tokens, answer: "1\n2\n", output: "1\r\n2\r\n"},
	{name: "tokens no trailing newline", spec: tokens, answer: "a b\n\n\n", output: "a b"},
	{name: "tokens both empty", spec: tokens},
	{name: "tokens blank output", spec: tokens, answer: "", output: "\n \r\n"},
	{name: "tokens blank answer", spec: tokens, answer: "\n", output: ""},
	{name: "tokens differ", spec: tokens, answer: "1 2 3\n", output: "1 2 4\n",
		want: &Diff{Line: 1, Token: 3, Expected: `"3"`, Got: `"4"`, Reason: "token differs"}},
	{name: "tokens differ line 3", spec: tokens, answer: "a\nb\nc d\n", output: "a\nb\nc e f\n",
		want: &Diff{Line: 3, Token: 4, Expected: `"d"`, Got: `"e"`, Reason: "token differs"}},
	{name: "tokens got is prefix", spec: tokens, answer: "12 3", output: "1 3",
		want: &Diff{Line: 1, Token: 1, Expected: `"12"`, Got: `"1"`, Reason: "token differs"}},
	{name: "tokens got is longer", spec: tokens, answer: "1 3", output: "12 3",
		want: &Diff{Line: 1, Token: 1, Expected: `"1"`, Got: `"12"`, Reason: "token differs"}},
	{name: "tokens got longer at answer end", spec: tokens, answer: "1", output: "12",
		want: &Diff{Line: 1, Token: 1, Expected: `"1"`, Got: `"12"`, Reason: "token differs"}},
	{name: "tokens extra output", spec: tokens, answer: "1 2", output: "1 2\n3 4\n",
		want: &Diff{Line: 2, Token: 3, Expected: "EOF", Got: `"3"`, Reason: "extra output"}},
	{name: "tokens missing output", spec: tokens, answer: "1\n2 3", output: "1\n2\n",
		want: &Diff{Line: 2, Token: 3, Expected: `"3"`, Got: "EOF", Reason: "output ended early"}},
	{name: "tokens empty output", spec: tokens, answer: "x\n", output: "",
		want: &Diff{Line: 1, Token: 1, Expected: `"x"`, Got: "EOF", Reason: "output ended early"}},
	{name: "tokens empty answer", spec: tokens, answer: "", output: " x",
		want: &Diff{Line: 1, Token: 1, Expected: "EOF", Got: `"x"`, Reason: "extra output"}},
	{name: "tokens case matters", spec: tokens, answer: "yes", output: "YES",
		want: &Diff{Line: 1, Token: 1, Expected: `"yes"`, Got: `"YES"`, Reason: "token differs"}},
	{name: "tokens excerpt escaped and cut", spec: tokens,
		answer: strings.Repeat("a", 50), output: "\x01" + strings.Repeat("b", 49),
		want: &Diff{Line: 1, Token: 1, Expected: `"` + strings.Repeat("a", 40) + `"...`,
			Got: `"\x01` + strings.Repeat("b", 39) + `"...`, Reason: "token differs"}},
	{name: "tokens excerpt keeps runes whole", spec: tokens,
		answer: strings.Repeat("a", 39) + "é", output: strings.Repeat("a", 39) + "è",
		want: &Diff{Line: 1, Token: 1, Expected: `"` + strings.Repeat("a", 39) + `"...`,
			Got: `"` + strings.Repeat("a", 39) + `"...`, Reason: "token differs"}},

	// CaseInsensitive
	{name: "ci equal", spec: ci, answer: "Yes\nNO\n", output: "YES no"},
	{name: "ci differ", spec: ci, answer: "yes", output: "Yep",
		want: &Diff{Line: 1, Token: 1, Expected: `"yes"`, Got: `"Yep"`, Reason: "token differs"}},
	{name: "ci folds letters only", spec: ci, answer: "a@", output: "A`",
		want: &Diff{Line: 1, Token: 1, Expected: `"a@"`, Got: "\"A`\"", Reason: "token differs"}},
	{name: "ci extra", spec: ci, answer: "a", output: "A b", reason: "extra output"},
	{name: "ci missing", spec: ci, answer: "a b", output: "A", reason: "output ended early"},

	// Exact
	{name: "exact equal", spec: exact, answer: "a b\nc\n", output: "a b\nc\n"},
	{name: "exact both empty", spec: exact},
	{name: "exact differ", spec: exact, answer: "a\nb\n", output: "a\nc\n",
		want: &Diff{Line: 2, Expected: `"b\n"`, Got: `"c\n"`, Reason: "byte differs"}},
	{name: "exact CRLF", spec: exact, answer: "a\n", output: "a\r\n",
		want: &Diff{Line: 1, Expected: `"\n"`, Got: `"\r\n"`, Reason: "byte differs"}},
	{name: "exact whitespace matters", spec: exact, answer: "a b", output: "a  b",
		want: &Diff{Line: 1, Expected: `"b"`, Got: `" b"`, Reason: "byte differs"}},
	{name: "exact missing newline", spec: exact, answer: "1 2\n", output: "1 2",
		want: &Diff{Line: 1, Expected: `"\n"`, Got: "EOF", Reason: "output ended early"}},
	{name: "exact extra", spec: exact, answer: "a\n", output: "a\nb",
		want: &Diff{Line: 2, Expected: "EOF", Got: `"b"`, Reason: "extra output"}},
	{name: "exact empty output", spec: exact, answer: "a", output: "",
		want: &Diff{Line: 1, Expected: `"a"`, Got: "EOF", Reason: "output ended early"}},
	{name: "exact long got excerpt", spec: exact, answer: "x", output: "y" + strings.Repeat("z", 60),
		want: &Diff{Line: 1, Expected: `"x"`, Got: `"y` + strings.Repeat("z", 39) + `"...`, Reason: "byte differs"}},

	// Float
	{name: "float equal numbers", spec: fl(0, 0), answer: "1 2.5 -3", output: "1.0 2.50 -3e0"},
	{name: "float exact required", spec: fl(0, 0), answer: "1", output: "1.0000001",
		want: &Diff{Line: 1, Token: 1, Expected: `"1"`, Got: `"1.0000001"`,
			Reason: "number differs by 1.0000000005838672e-07 (exact match required)"}},
	{name: "float within abs", spec: fl(1e-6, 0), answer: "1.0\n", output: "1.0000005\n"},
	{name: "float outside abs", spec: fl(0.25, 0), answer: "0", output: "0.5",
		want: &Diff{Line: 1, Token: 1, Expected: `"0"`, Got: `"0.5"`, Reason: "number differs by 0.5 (abs tol 0.25)"}},
	{name: "float within rel", spec: fl(0, 1e-3), answer: "1000", output: "1000.9"},
	{name: "float outside rel", spec: fl(0, 1e-3), answer: "1000", output: "998.5",
		want: &Diff{Line: 1, Token: 1, Expected: `"1000"`, Got: `"998.5"`, Reason: "number differs by 1.5 (rel tol 0.001)"}},
	{name: "float rel ok abs not", spec: fl(0.1, 0.01), answer: "100", output: "100.5"},
	{name: "float abs ok rel not", spec: fl(0.1, 0.01), answer: "1", output: "1.05"},
	{name: "float neither", spec: fl(0.1, 0.01), answer: "1", output: "1.25",
		want: &Diff{Line: 1, Token: 1, Expected: `"1"`, Got: `"1.25"`, Reason: "number differs by 0.25 (abs tol 0.1, rel tol 0.01)"}},
	{name: "float not a number", spec: fl(1, 0), answer: "x 1.5", output: "x y",
		want: &Diff{Line: 1, Token: 2, Expected: `"1.5"`, Got: `"y"`, Reason: "expected a number"}},
	{name: "float got out of range", spec: fl(1e300, 0), answer: "1", output: "1e999", reason: "number differs by +Inf (abs tol 1e+300)"},
	{name: "float got nan", spec: fl(1, 1), answer: "1", output: "nan", reason: "expected a number"},
	{name: "float hex is no number", spec: fl(1, 1), answer: "16", output: "0x1p4", reason: "expected a number"},
	{name: "float hex answer is a word", spec: fl(1, 0), answer: "0x1p4", output: "16", reason: "token differs"},
	{name: "float underscores", spec: fl(1, 0), answer: "1000", output: "1_000", reason: "expected a number"},
	{name: "float forms of a number", spec: fl(0, 0), answer: "0.5 5 50 -0", output: ".5 5. 5e1 +0.0E+0"},
	{name: "float exponent needs digits", spec: fl(1, 0), answer: "1", output: "1e", reason: "expected a number"},
	{name: "float words exact", spec: fl(1, 0), answer: "Yes 1", output: "yes 1", reason: "token differs"},
	{name: "exact folded", spec: Spec{Kind: Exact, Fold: true}, answer: "Yes\n 1\n", output: "yES\n 1\n"},
	{name: "exact folded, spacing counts", spec: Spec{Kind: Exact, Fold: true}, answer: "Yes\n 1\n", output: "yES\n  1\n", reason: "byte differs"},
	{name: "exact folded, only letters", spec: Spec{Kind: Exact, Fold: true}, answer: "[", output: "{", reason: "byte differs"},
	{name: "float words folded", spec: Spec{Kind: Float, AbsTol: 1, Fold: true}, answer: "Yes 1", output: "yES 1.5"},
	{name: "float nan token", spec: fl(1, 0), answer: "nan", output: "nan"},
	{name: "float nan is text", spec: fl(1, 0), answer: "nan", output: "NaN", reason: "token differs"},
	{name: "float inf is text", spec: fl(1, 0), answer: "+Inf", output: "+Inf"},
	{name: "float inf not 1e999", spec: fl(1, 0), answer: "inf", output: "1e999", reason: "token differs"},
	{name: "float text token", spec: fl(1, 0), answer: "abc 1", output: "abc 1.5"},
	{name: "float text differs", spec: fl(1, 0), answer: "abc", output: "ABC", reason: "token differs"},
	{name: "float negative zero", spec: fl(0, 0), answer: "0", output: "-0"},
	{name: "float extra", spec: fl(1, 0), answer: "1", output: "1 2", reason: "extra output"},
	{name: "float missing", spec: fl(1, 0), answer: "1 2", output: "1\r\n", reason: "output ended early"},
	{name: "float CRLF", spec: fl(1e-9, 0), answer: "0.1\n0.2\n", output: "0.1\r\n0.2\r\n"},

	{name: "unknown kind", spec: Spec{Kind: "fuzzy"}, answer: "a", output: "a",
		want: &Diff{Line: 1, Reason: `unknown comparator kind "fuzzy"`}},
}

func checkCase(t *testing.T, tc tcase, r result) {
	t.Helper()
	switch {
	case tc.want == nil && tc.reason == "":
		if !r.ok || r.diff != nil {
			t.Errorf("want accepted, got %v", r.diff)
		}
	case r.ok || r.diff == nil:
		t.Errorf("accepted; want %v %s", tc.want, tc.reason)
	case tc.want != nil && *r.diff != *tc.want:
		t.Errorf("got  %#v\nwant %#v", *r.diff, *tc.want)
	case tc.reason != "" && r.diff.Reason != tc.reason:
		t.Errorf("got reason %q, want %q (%v)", r.diff.Reason, tc.reason, r.diff)
	}
}

func TestTable(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkCase(t, tc, run(tc.spec, strings.NewReader(tc.answer), tc.output))
		})
	}
}

// TestSplitWrites checks that the verdict, Diff included, does not depend
// on how the output (or the answer) arrives in pieces.
func TestSplitWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			whole := run(tc.spec, strings.NewReader(tc.answer), tc.output)
			checkCase(t, tc, whole)
			try := func(how string, r result) {
				if !reflect.DeepEqual(r, whole) {
					t.Errorf("%s: got %v %v, one Write gave %v %v", how, r.ok, r.diff, whole.ok, whole.diff)
				}
			}
			try("bytes", run(tc.spec, strings.NewReader(tc.answer), tc.output, 1))
			try("bytes, answer bytes", run(tc.spec, iotest.OneByteReader(strings.NewReader(tc.answer)), tc.output, 1))
			for range 20 {
				chunks := make([]int, 1+rng.IntN(5))
				for i := range chunks {
					chunks[i] = 1 + rng.IntN(8)
				}
				try("random chunks", run(tc.spec, iotest.HalfReader(strings.NewReader(tc.answer)), tc.output, chunks...))
			}
			// Every split into two writes.
			for i := 1; i < len(tc.output); i++ {
				try("split", run(tc.spec, strings.NewReader(tc.answer), tc.output, i, len(tc.output)))
			}
		})
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestDiffersEarly(t *testing.T) {
	for _, sp := range []Spec{tokens, ci, fl(0.1, 0), exact} {
		c := New(sp, strings.NewReader("42 1 2 3\n"))
		c.Write([]byte("41 "))
		if !closed(c.Differs()) {
			t.Fatalf("%v: Differs not closed after a wrong first token", sp)
		}
		for range 1000 {
			c.Write([]byte("1 2 3 4 5 6 7 8 9\n"))
		}
		ok, d := c.Close()
		wantTok := 1
		if sp.Kind == Exact {
			wantTok = 0
		}
		if ok || d == nil || d.Line != 1 || d.Token != wantTok {
			t.Errorf("%v: Close = %v, %v", sp, ok, d)
		}
	}
}

func TestTokenCompleteness(t *testing.T) {
	// A prefix of the expected token decides nothing.
	c := New(tokens, strings.NewReader("42 7"))
	c.Write([]byte("4"))
	if closed(c.Differs()) {
		t.Fatal("Differs closed on a matching prefix")
	}
	// A prefix that cannot match any more does (Tokens compare as text).
	c.Write([]byte("1"))
	if !closed(c.Differs()) {
		t.Fatal("Differs not closed on a wrong prefix")
	}

	// Float waits for the whole token: "1" may still become "1.5".
	c = New(fl(0.01, 0), strings.NewReader("1.5 7"))
	c.Write([]byte("1"))
	if closed(c.Differs()) {
		t.Fatal("Float decided on an incomplete token")
	}
	c.Write([]byte(".5\n"))
	if closed(c.Differs()) {
		t.Fatal("Float rejected a right number")
	}
	c.Write([]byte("8"))
	if closed(c.Differs()) {
		t.Fatal("Float decided on an incomplete token")
	}
	if ok, d := c.Close(); ok || d.Token != 2 || !closed(c.Differs()) {
		t.Fatalf("Close = %v, %v", ok, d)
	}
	if ok, d := c.Close(); ok || d.Token != 2 {
		t.Fatalf("second Close = %v, %v", ok, d)
	}
}

func TestConcurrentDiffers(t *testing.T) {
	c := New(tokens, strings.NewReader("1 2 3"))
	go func() {
		c.Write([]byte("1 2 "))
		c.Write([]byte("9 9 9"))
	}()
	<-c.Differs()
	if ok, d := c.Close(); ok || d.Token != 3 {
		t.Fatalf("Close = %v, %v", ok, d)
	}
}

func TestAnswerReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("1 2"), iotest.ErrReader(io.ErrUnexpectedEOF))
	res := run(tokens, r, "1 2")
	if res.ok || !strings.Contains(res.diff.Reason, "cannot read answer") {
		t.Fatalf("got %v %v", res.ok, res.diff)
	}
}

func TestParse(t *testing.T) {
	good := map[string]Spec{
		"":                          {Kind: Tokens},
		"tokens":                    {Kind: Tokens},
		"exact":                     {Kind: Exact},
		"case-insensitive":          {Kind: CaseInsensitive},
		" Case-Insensitive ":        {Kind: CaseInsensitive},
		"float":                     {Kind: Float},
		"float abs=0":               {Kind: Float},
		"float abs=1e-6":            {Kind: Float, AbsTol: 1e-6},
		"float rel=1e-9":            {Kind: Float, RelTol: 1e-9},
		"float abs=1e-6 rel=1e-9":   {Kind: Float, AbsTol: 1e-6, RelTol: 1e-9},
		"FLOAT  REL=0.5\tabs=0.25 ": {Kind: Float, AbsTol: 0.25, RelTol: 0.5},
		"float abs=1e-6 fold":       {Kind: Float, AbsTol: 1e-6, Fold: true},
		"float Fold":                {Kind: Float, Fold: true},
		"exact fold":                {Kind: Exact, Fold: true},
	}
	for s, want := range good {
		got, err := Parse(s)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, want)
			continue
		}
		again, err := Parse(got.String())
		if err != nil || again != got {
			t.Errorf("Parse(%q) round trip via %q = %v, %v", s, got.String(), again, err)
		}
	}
	if s := (Spec{}).String(); s != "tokens" {
		t.Errorf("zero Spec String = %q", s)
	}
	if s := fl(1e-6, 1e-9).String(); s != "float abs=1e-06 rel=1e-09" {
		t.Errorf("String = %q", s)
	}
	for _, s := range []string{"foo", "tokens abs=1", "exact x", "float abs", "float abs=x",
		"float abs=-1", "float abs=1 abs=2", "float fold fold", "tokens fold", "float tol=1", "float abs=nan", "float rel=inf", "float=1"} {
		_, err := Parse(s)
		if err == nil || !strings.Contains(err.Error(), `"case-insensitive", "float"`) {
			t.Errorf("Parse(%q) error = %v; want one listing the accepted forms", s, err)
		}
	}
}

func TestDiffString(t *testing.T) {
	for _, tc := range []struct {
		d    Diff
		want string
	}{
		{Diff{Line: 3, Token: 7, Expected: `"42"`, Got: `"41"`, Reason: "token differs"},
			`line 3, token 7: expected "42", got "41" (token differs)`},
		{Diff{Line: 2, Expected: `"b"`, Got: "EOF", Reason: "output ended early"},
			`line 2: expected "b", got EOF (output ended early)`},
		{Diff{Line: 1, Reason: "unknown comparator kind"}, `line 1: unknown comparator kind`},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
