package shim

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestTakeNonce runs a fresh copy of the test binary with the nonce in its real
// environment block and checks that /proc/self/environ no longer shows it.
func TestTakeNonce(t *testing.T) {
	const secret = "s3cr3t-0123456789abcdef"
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{"BEFORE=1", NonceEnv + "=" + secret, helperEnv + "=nonce", "AFTER=2", coverDir(t)}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err, string(out))
	}
	head, environ, _ := bytes.Cut(out, []byte("\n"))
	if want := "nonce=" + secret + " err=<nil> goenv=\"\" readerr=<nil>"; string(head) != want {
		t.Fatalf("helper said %q, want %q", head, want)
	}
	if bytes.Contains(environ, []byte(secret)) || bytes.Contains(environ, []byte(NonceEnv)) {
		t.Fatalf("nonce still in /proc/self/environ: %q", environ)
	}
	for _, kv := range []string{"BEFORE=1", "AFTER=2"} {
		if !bytes.Contains(environ, []byte(kv)) {
			t.Errorf("%s lost from /proc/self/environ: %q", kv, environ)
		}
	}
}

func TestTakeNonceMissing(t *testing.T) {
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{helperEnv + "=nonce", coverDir(t)}
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "err=nonce: PODJAIL_NONCE is not set") {
		t.Fatalf("helper said %q", out)
	}
}

func TestParseEnvBounds(t *testing.T) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	if s, e, err := parseEnvBounds(stat); err != nil || e <= s {
		t.Fatalf("own stat: %d %d %v", s, e, err)
	}
	// A comm with spaces and parentheses must not shift the fields.
	fields := make([]string, 52)
	for i := range fields {
		fields[i] = "0"
	}
	fields[0], fields[1] = "42", "(a) b (c)"
	fields[49], fields[50] = "1000", "2000"
	s, e, err := parseEnvBounds([]byte(strings.Join(fields, " ") + "\n"))
	if err != nil || s != 1000 || e != 2000 {
		t.Fatalf("got %d %d %v", s, e, err)
	}
	if _, _, err := parseEnvBounds([]byte("1 (x) R 0 0")); err == nil {
		t.Fatal("short stat accepted")
	}
}

func TestValidNonce(t *testing.T) {
	for s, want := range map[string]bool{"abc": true, "0123456789abcdef": true, "": false,
		"a b": false, "a\tb": false, "é": false, strings.Repeat("a", 257): false} {
		if validNonce(s) != want {
			t.Errorf("validNonce(%q) != %v", s, want)
		}
	}
}
