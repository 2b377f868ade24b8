package compare

import (
	"bytes"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// numbers generates n pseudo-random numbers, ten to a line, without ever
// holding more than one of them: a big answer that is not in memory.
type numbers struct {
	n, i   int
	x      uint64
	mutate int // 1-based token to write differently (0: none)
	pend   []byte
	buf    [32]byte
}

func (g *numbers) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(g.pend) == 0 {
			if g.i == g.n {
				if n == 0 {
					return 0, io.EOF
				}
				break
			}
			g.i++
			g.x = g.x*6364136223846793005 + 1442695040888963407
			b := strconv.AppendUint(g.buf[:0], g.x>>36, 10)
			if g.i == g.mutate {
				b = append(b, '7')
			}
			sep := byte(' ')
			if g.i%10 == 0 {
				sep = '\n'
			}
			g.pend = append(b, sep)
		}
		k := copy(p[n:], g.pend)
		n += k
		g.pend = g.pend[k:]
	}
	return n, nil
}

// pump copies the output into c in random chunks of up to 64 KiB, through
// one reused buffer.
func pump(c *Comparator, output io.Reader, rng *rand.Rand) {
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(output, buf[:1+rng.IntN(len(buf))])
		c.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

func TestLargeAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB answer")
	}
	const n = 5_000_000 // about 50 MB
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		out    *numbers
		ok     bool
		token  int
		reason string
	}{
		{name: "equal", out: &numbers{n: n}, ok: true},
		{name: "differs near the end", out: &numbers{n: n, mutate: n - 5}, token: n - 5, reason: "token differs"},
		{name: "extra output", out: &numbers{n: n + 1}, token: n + 1, reason: "extra output"},
		{name: "missing output", out: &numbers{n: n - 1}, token: n, reason: "output ended early"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c := New(Spec{}, &numbers{n: n})
			pump(c, tc.out, rng)
			ok, d := c.Close()
			runtime.ReadMemStats(&after)
			if ok != tc.ok || !ok && (d.Token != tc.token || d.Reason != tc.reason) {
				t.Fatalf("Close = %v, %v; want token %d, %s", ok, d, tc.token, tc.reason)
			}
			if !ok && d.Line != (tc.token-1)/10+1 && tc.reason != "output ended early" {
				t.Errorf("line %d, want %d", d.Line, (tc.token-1)/10+1)
			}
			if tc.name == "equal" && tc.out.i != n {
				t.Fatalf("generated %d tokens", tc.out.i)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
				t.Errorf("allocated %d bytes for a 50 MB comparison", alloc)
			}
		})
	}
}

// TestLongTokens covers tokens longer than MaxToken, compared in pieces.
func TestLongTokens(t *testing.T) {
	long := strings.Repeat("ab", MaxToken+MaxToken/2) // 3 MiB
	for _, tc := range []tcase{
		{name: "equal", spec: tokens, answer: "x " + long + " y", output: "x " + long + "\ny\n"},
		{name: "ci equal", spec: ci, answer: long, output: strings.ToUpper(long)},
		{name: "float text equal", spec: fl(1, 0), answer: long, output: long},
		{name: "last byte differs", spec: tokens, answer: long, output: long[:len(long)-1] + "c",
			want: &Diff{Line: 1, Token: 1, Expected: `"` + long[:40] + `"...`, Got: `"` + long[:40] + `"...`, Reason: "token differs"}},
		{name: "got shorter", spec: tokens, answer: long + " z", output: long[:len(long)-1] + " z", reason: "token differs"},
		{name: "got longer", spec: tokens, answer: long + " z", output: long + "a z", reason: "token differs"},
		{name: "got one piece", spec: tokens, answer: long, output: long[:MaxToken], reason: "token differs"},
		{name: "got one piece and a byte", spec: tokens, answer: long[:MaxToken], output: long[:MaxToken+1], reason: "token differs"},
		{name: "exactly one piece", spec: tokens, answer: long[:MaxToken] + "\n", output: long[:MaxToken]},
		{name: "number too long", spec: fl(1, 0), answer: "1", output: "1." + strings.Repeat("0", MaxToken), reason: "number too long"},
		{name: "long numeric answer is text", spec: fl(1, 0), answer: "1." + strings.Repeat("0", MaxToken), output: "1", reason: "token differs"},
		{name: "exact", spec: exact, answer: long, output: long},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole := run(tc.spec, strings.NewReader(tc.answer), tc.output)
			checkCase(t, tc, whole)
			chunked := run(tc.spec, strings.NewReader(tc.answer), tc.output, 32<<10, 7, 1)
			checkCase(t, tc, chunked)
			if !reflect.DeepEqual(chunked, whole) {
				t.Errorf("chunked %v, whole %v", chunked.diff, whole.diff)
			}
		})
	}
}

// BenchmarkTokens compares 64 MiB of numbers streamed in 32 KiB writes, the
// shape of a big test case.
func BenchmarkTokens(b *testing.B) {
	data, _ := io.ReadAll(io.LimitReader(&numbers{n: 1 << 30}, 64<<20))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := New(Spec{}, bytes.NewReader(data))
		for p := data; len(p) > 0; {
			n := min(len(p), 32<<10)
			c.Write(p[:n])
			p = p[n:]
		}
		if ok, d := c.Close(); !ok {
			b.Fatal(d)
		}
	}
}
