package compare

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// excerptLen is how many source bytes a Diff shows of each side; one more
// is kept to know whether the excerpt was cut.
const excerptLen = 40

// isSpace marks the ASCII whitespace that separates tokens: space, \t, \n,
// \v, \f, \r. A table beats a switch in the per-byte loops.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// source reads the answer a buffer at a time. bufio.Reader would do, but
// the comparators want to look at (and skip) buffered bytes in place.
type source struct {
	rd   io.Reader
	buf  []byte
	r, w int   // buf[r:w] is unread
	err  error // sticky: io.EOF at the end, or why reading failed
}

func newSource(rd io.Reader, size int) *source {
	return &source{rd: rd, buf: make([]byte, size)}
}

// fill reads more into buf, moving the unread bytes to the front first;
// false when nothing more can come.
func (s *source) fill() bool {
	if s.err != nil {
		return false
	}
	if s.r > 0 {
		s.w = copy(s.buf, s.buf[s.r:s.w])
		s.r = 0
	}
	if s.w == len(s.buf) {
		return true
	}
	if s.rd == nil {
		s.err = io.EOF
		return false
	}
	// Like bufio: a reader that keeps returning 0, nil is broken, and
	// spinning on it would hang the judge.
	for range 100 {
		n, err := s.rd.Read(s.buf[s.w:])
		s.w += n
		if err != nil {
			s.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.err = io.ErrNoProgress
	return false
}

// more reports whether at least one unread byte is buffered, reading if
// needed.
func (s *source) more() bool {
	for s.r == s.w {
		if !s.fill() {
			return false
		}
	}
	return true
}

// skipSpace skips whitespace; false when the answer has no more tokens.
func (s *source) skipSpace() bool {
	for s.more() {
		for s.r < s.w {
			if !isSpace[s.buf[s.r]] {
				return true
			}
			s.r++
		}
	}
	return false
}

// peek returns up to n unread bytes without consuming them (fewer only at
// the end of the answer); n must be well under the buffer size.
func (s *source) peek(n int) []byte {
	for s.w-s.r < n && s.fill() {
	}
	return s.buf[s.r:min(s.w, s.r+n)]
}

// readErr is the error that stopped reading, if it was not the end.
func (s *source) readErr() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

// excerpt quotes up to excerptLen bytes of b for a Diff, marking a cut with
// "..." (also when more says b itself is only a prefix). A cut never splits
// a UTF-8 sequence, which would show as \x escapes that are not in the data.
func excerpt(b []byte, more bool) string {
	if len(b) > excerptLen {
		n := excerptLen
		for i := 0; i < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(b[n]); i++ {
			n--
		}
		if utf8.RuneStart(b[n]) && utf8.Valid(b[:n]) {
			b = b[:n]
		} else {
			b = b[:excerptLen]
		}
		more = true
	}
	s := strconv.Quote(string(b))
	if more {
		s += "..."
	}
	return s
}

// maybeNumber is a cheap filter before ParseFloat. "inf" and "nan" need not
// pass: as expected tokens they are compared as text anyway.
func maybeNumber(b byte) bool {
	return '0' <= b && b <= '9' || b == '-' || b == '+' || b == '.'
}

// decimal reports whether b is a number as the Kattis format writes one
// (and most languages print): an optional sign, digits with an optional
// point (digits on at least one side), an optional exponent. Not Go's
// wider syntax: no hexadecimal, underscores, infinities or NaN.
func decimal(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	whole := digits()
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		frac = digits()
	}
	if whole == 0 && frac == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// equalFold is bytes.EqualFold for ASCII only: the rule is about ASCII
// letters, and Unicode folding would also change lengths.
func equalFold(a, b []byte) bool {
	for i := range a {
		x, y := a[i], b[i]
		if x != y && x|0x20 != y|0x20 || x != y && (x|0x20 < 'a' || x|0x20 > 'z') {
			return false
		}
	}
	return true
}
