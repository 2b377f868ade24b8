package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
)

// MaxToken bounds the memory one token may cost. Longer tokens still work
// for Tokens, CaseInsensitive and non-numeric Float tokens: they are
// compared in MaxToken pieces (a Diff then shows the token's first bytes).
// Where Float must parse a token as a whole, an expected token longer than
// MaxToken counts as non-numeric (compared exactly), and a contestant's
// token longer than MaxToken against a numeric one is a Diff
// ("number too long").
const MaxToken = 1 << 20

// bufSize is the answer read buffer: big enough for few, large reads.
const bufSize = 64 << 10

// Comparator judges a contestant's output, fed through Write as it arrives,
// against an answer it reads as needed. A difference is decided at the
// earliest byte that proves it: a token that cannot match any more (prefix
// differs, or it is already longer), a token start past the answer's end,
// a token end short of the expected one; Float numbers when their token is
// complete (followed by whitespace, or by Close).
//
// Write and Close are serialized by a mutex, so one goroutine may write
// while another selects on Differs; Close belongs after the last Write.
// The zero value is not usable (it has no answer or channel): use New.
type Comparator struct {
	spec Spec
	src  *source
	done chan struct{} // closed by fail

	mu     sync.Mutex
	closed bool
	diff   *Diff
	// got excerpt for diff: collected until it is long enough or (for the
	// token kinds) the token ends, even after the difference, so the Diff
	// does not depend on how the output was split into writes.
	gotHead    []byte
	gotOpen    bool
	gotPending bool // diff.Got is still to be made from gotHead

	line int // 1-based line of the output being written

	// token kinds
	tokens  int    // tokens started in the output
	tokLine int    // line of the current (or last) token
	inTok   bool   // inside a contestant token
	gpos    int    // bytes of it seen so far
	exp     []byte // piece of the expected token, its bytes [expOff, expOff+len(exp))
	expOff  int
	expMore bool   // the expected token goes on after exp
	expHead []byte // first excerptLen+1 bytes of the expected token
	numeric bool   // Float: expected token is a number, got is buffered
	expNum  float64
	got     []byte // Float: the contestant's token when numeric
}

// New returns a Comparator for the rule s reading the expected output from
// answer (nil means an empty answer). An unknown Kind makes every output
// fail with a Diff saying so: judging by a guessed rule would be worse.
func New(s Spec, answer io.Reader) *Comparator {
	if s.Kind == "" {
		s.Kind = Tokens
	}
	c := &Comparator{
		spec:    s,
		src:     newSource(answer, bufSize),
		done:    make(chan struct{}),
		line:    1,
		tokLine: 1,
	}
	switch s.Kind {
	case Exact, Tokens, CaseInsensitive, Float:
	default:
		c.diff = &Diff{Line: 1, Reason: fmt.Sprintf("unknown comparator kind %q", s.Kind)}
		close(c.done)
	}
	return c
}

// Differs is closed at the first difference, so the runner can stop the
// container at once instead of draining output that is already wrong.
func (c *Comparator) Differs() <-chan struct{} { return c.done }

// Write compares p with the next bytes of the answer. It always returns
// len(p), nil: the runner must keep draining the stream whatever the
// verdict. After the first difference (or Close) the bytes are discarded.
func (c *Comparator) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
	case c.diff != nil:
		c.collect(p)
	case c.spec.Kind == Exact:
		c.writeExact(p)
	default:
		c.writeTokens(p)
	}
	return len(p), nil
}

// Close marks the end of the contestant's output and checks that the
// answer ends there too. It returns ok, or the first difference, the same
// one Differs signalled. Calling it again returns the same result.
func (c *Comparator) Close() (ok bool, diff *Diff) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.finish()
	}
	if c.diff == nil {
		return true, nil
	}
	d := *c.diff
	return false, &d
}

func (c *Comparator) finish() {
	if c.diff == nil {
		if c.spec.Kind == Exact {
			if c.src.more() {
				c.fail(c.line, 0, "output ended early", excerpt(c.src.peek(excerptLen+1), false), true)
			}
		} else {
			if c.inTok {
				c.endToken()
			}
			if c.diff == nil && c.src.skipSpace() {
				c.loadPiece()
				c.fail(c.tokLine, c.tokens+1, "output ended early", excerpt(c.exp, c.expMore), true)
			}
		}
	}
	if c.diff == nil && c.src.readErr() != nil {
		c.fail(c.line, 0, "", "EOF", true) // fail puts the error in Reason
	}
	if c.gotPending {
		c.diff.Got = excerpt(c.gotHead, false)
	}
}

// fail records the first difference and signals it. exp is the Expected
// excerpt; unless gotEOF, Got is made from gotHead at Close. A broken
// answer reader is reported as such, not blamed on the contestant.
func (c *Comparator) fail(line, token int, reason, exp string, gotEOF bool) {
	if err := c.src.readErr(); err != nil {
		reason = "cannot read answer: " + err.Error()
	}
	c.diff = &Diff{Line: line, Token: token, Expected: exp, Reason: reason}
	if gotEOF {
		c.diff.Got = "EOF"
		c.gotOpen = false
	}
	c.gotPending = !gotEOF
	close(c.done)
}

// collect adds output after a difference to the Got excerpt.
func (c *Comparator) collect(p []byte) {
	for _, b := range p {
		if !c.gotOpen {
			return
		}
		if len(c.gotHead) > excerptLen || c.spec.Kind != Exact && isSpace[b] {
			c.gotOpen = false
			return
		}
		c.gotHead = append(c.gotHead, b)
	}
}

func (c *Comparator) writeExact(p []byte) {
	for len(p) > 0 {
		if !c.src.more() {
			c.gotHead, c.gotOpen = c.gotHead[:0], true
			c.fail(c.line, 0, "extra output", "EOF", false)
			c.collect(p)
			return
		}
		a := c.src.buf[c.src.r:c.src.w]
		n := min(len(a), len(p))
		k := n
		if !c.equal(p[:n], a[:n]) {
			k = 0
			for c.equal(p[k:k+1], a[k:k+1]) {
				k++
			}
		}
		c.line += bytes.Count(p[:k], []byte{'\n'})
		c.src.r += k
		p = p[k:]
		if k < n {
			c.gotHead, c.gotOpen = c.gotHead[:0], true
			c.fail(c.line, 0, "byte differs", excerpt(c.src.peek(excerptLen+1), false), false)
			c.collect(p)
			return
		}
	}
}

func (c *Comparator) writeTokens(p []byte) {
	for i := 0; i < len(p); {
		if c.diff != nil {
			c.collect(p[i:])
			return
		}
		b := p[i]
		if isSpace[b] {
			if c.inTok {
				c.endToken()
			}
			if b == '\n' {
				c.line++
			}
			i++
			continue
		}
		if !c.inTok {
			if j := c.quickToken(p, i); j > i {
				i = j
				continue
			}
			c.startToken()
			continue // on a diff, collect takes this byte
		}
		j := i + 1
		for j < len(p) && !isSpace[p[j]] {
			j++
		}
		c.feed(p[i:j])
		i = j
	}
}

// quickToken is the fast path for the common case: a whole contestant
// token (p[i:] up to whitespace) equal to a whole expected token already
// buffered is accepted without copying either. Equal bytes are accepted by
// every token kind, Float included. It returns the index after the token,
// or i to leave the token to startToken and feed.
func (c *Comparator) quickToken(p []byte, i int) int {
	j := i + 1
	for j < len(p) && !isSpace[p[j]] {
		j++
	}
	if j == len(p) { // the token may go on in the next Write
		return i
	}
	s := c.src
	r := s.r
	for r < s.w && isSpace[s.buf[r]] {
		r++
	}
	e := r + j - i
	if e >= s.w || !isSpace[s.buf[e]] || !c.equal(p[i:j], s.buf[r:e]) {
		return i
	}
	s.r = e
	c.tokens++
	c.tokLine = c.line
	return j
}

// startToken begins a contestant token: it finds the matching expected
// token and, for Float, whether that is a number.
func (c *Comparator) startToken() {
	c.tokens++
	c.tokLine = c.line
	c.inTok = true
	c.gpos, c.expOff = 0, 0
	c.gotHead, c.gotOpen = c.gotHead[:0], true
	c.numeric = false
	if !c.src.skipSpace() {
		c.fail(c.tokLine, c.tokens, "extra output", "EOF", false)
		return
	}
	c.loadPiece()
	c.expHead = append(c.expHead[:0], c.exp[:min(len(c.exp), excerptLen+1)]...)
	if c.spec.Kind == Float && !c.expMore && maybeNumber(c.exp[0]) && decimal(c.exp) {
		v, err := strconv.ParseFloat(string(c.exp), 64)
		if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			c.numeric, c.expNum = true, v
			c.got = c.got[:0]
		}
	}
}

// loadPiece reads the next piece of the expected token (up to MaxToken
// bytes, stopping before whitespace) into exp.
func (c *Comparator) loadPiece() {
	s := c.src
	c.exp = c.exp[:0]
	for len(c.exp) < MaxToken {
		if !s.more() {
			c.expMore = false
			return
		}
		buf := s.buf[s.r:s.w]
		lim := min(len(buf), MaxToken-len(c.exp))
		k := 0
		for k < lim && !isSpace[buf[k]] {
			k++
		}
		c.exp = append(c.exp, buf[:k]...)
		s.r += k
		if k < lim { // stopped at whitespace
			c.expMore = false
			return
		}
	}
	c.expMore = s.more() && !isSpace[s.buf[s.r]]
}

// feed compares seg, non-empty bytes of the current contestant token.
func (c *Comparator) feed(seg []byte) {
	if len(c.gotHead) <= excerptLen {
		c.gotHead = append(c.gotHead, seg[:min(len(seg), excerptLen+1-len(c.gotHead))]...)
	}
	if c.numeric {
		if len(c.got)+len(seg) > MaxToken {
			c.fail(c.tokLine, c.tokens, "number too long", excerpt(c.expHead, false), false)
			return
		}
		c.got = append(c.got, seg...)
		return
	}
	for len(seg) > 0 {
		avail := c.exp[c.gpos-c.expOff:]
		if len(avail) == 0 {
			if !c.expMore {
				c.tokenDiffers()
				return
			}
			c.expOff += len(c.exp)
			c.loadPiece()
			continue
		}
		n := min(len(seg), len(avail))
		if !c.equal(seg[:n], avail[:n]) {
			c.tokenDiffers()
			return
		}
		c.gpos += n
		seg = seg[n:]
	}
}

func (c *Comparator) equal(a, b []byte) bool {
	if c.spec.Kind == CaseInsensitive || c.spec.Fold {
		return equalFold(a, b)
	}
	return bytes.Equal(a, b)
}

func (c *Comparator) tokenDiffers() {
	more := c.expMore || c.expOff > 0
	c.fail(c.tokLine, c.tokens, "token differs", excerpt(c.expHead, more), false)
}

// endToken finishes a contestant token at whitespace or Close.
func (c *Comparator) endToken() {
	c.inTok = false
	c.gotOpen = false
	if !c.numeric {
		if c.gpos < c.expOff+len(c.exp) || c.expMore {
			c.tokenDiffers()
		}
		return
	}
	exp := excerpt(c.expHead, false)
	v, err := strconv.ParseFloat(string(c.got), 64)
	if !decimal(c.got) || err != nil && !errors.Is(err, strconv.ErrRange) { // out of range is a number, just far off
		c.fail(c.tokLine, c.tokens, "expected a number", exp, false)
		return
	}
	d := math.Abs(v - c.expNum)
	if d <= c.spec.AbsTol || d <= c.spec.RelTol*math.Abs(c.expNum) {
		return
	}
	c.fail(c.tokLine, c.tokens, fmt.Sprintf("number differs by %g (%s)", d, c.spec.tolerance()), exp, false)
}
