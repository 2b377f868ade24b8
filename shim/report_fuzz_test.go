package shim

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseReport holds that a report is never taken from a stderr that
// lacks its nonce (a forged line, whatever else it holds), nor from a
// report line cut short; that the shim's own line, written last after
// any whole lines of the program, is read back as it was written
// (FormatReport → ParseReport, its strings UTF-8); and that ParseReport never panics. Stderr
// is capped at 64 KiB, as the runner keeps it (stderrKeep).
func FuzzParseReport(f *testing.F) {
	good := string(FormatReport("good", Report{TimeUs: 1}))
	f.Add([]byte("hello\nworld\n"), "good", int64(1500), 0, "SIGSEGV", "", uint(10))
	f.Add([]byte(good+"noise\n"), "good", int64(2), -1, "", "probe: nope", uint(30))
	f.Add([]byte(string(FormatReport("guess", Report{TimeUs: 99}))), "good", int64(0), 3, "", "", uint(0))
	f.Add([]byte("podjail-report good null\n podjail-report good {}\npodjail-report goodx {}\r\n"), "good", int64(7), 0, "", "", uint(5))
	f.Fuzz(func(t *testing.T, junk []byte, nonce string, us int64, code int, sig, msg string, cut uint) {
		if len(junk) > 64<<10 || !validNonce(nonce) {
			return
		}
		if !bytes.Contains(junk, []byte(nonce)) {
			if r, ok := ParseReport(junk, nonce); ok {
				t.Fatalf("ParseReport(%q, %q) = %+v from a stderr without the nonce", junk, nonce, r)
			}
		}
		before, hadOne := ParseReport(junk, nonce)
		if len(junk) > 0 && junk[len(junk)-1] != '\n' {
			junk = append(junk, '\n') // the program's stderr is not the shim's: its lines end
		}
		// JSON carries text: the shim's strings are UTF-8 (an invalid
		// byte would come back as U+FFFD).
		sig, msg = strings.ToValidUTF8(sig, "\uFFFD"), strings.ToValidUTF8(msg, "\uFFFD")
		want := Report{TimeUs: us, UserUs: us / 2, ExitCode: code, Signal: sig, Error: msg, Step: Step(msg)}
		line := FormatReport(nonce, want)
		got, ok := ParseReport(append(bytes.Clone(junk), line...), nonce)
		if !ok || got != want {
			t.Fatalf("ParseReport of %q after %q = %+v, %v; want %+v", line, junk, got, ok, want)
		}
		// Cut before its closing brace, the line is no report; an earlier
		// one stands.
		short := line[:int(cut%uint(bytes.LastIndexByte(line, '}')))]
		got, ok = ParseReport(append(bytes.Clone(junk), short...), nonce)
		if ok != hadOne || ok && got != before {
			t.Fatalf("ParseReport of %q cut to %q = %+v, %v; want %+v, %v", line, short, got, ok, before, hadOne)
		}
	})
}
