package shim

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestEncodeEnvRoundTrip: whatever a value holds but a NUL ('=', newlines,
// unicode, nothing) comes back as it went, in order, duplicates kept.
func TestEncodeEnvRoundTrip(t *testing.T) {
	for _, entries := range [][]string{
		nil,
		{"A=1"},
		{"EQ=a=b==c", "NL=line1\nline2\n", "U=héllo wörld ✓ 日本", "EMPTY=", "SP= lead and trail "},
		{"X=1", "Y=2", "X=3"},
		{"BIG=" + strings.Repeat("y", 90<<10)},
	} {
		v, err := EncodeEnv(entries)
		if err != nil {
			t.Fatalf("EncodeEnv(%.60q): %v", entries, err)
		}
		if strings.ContainsAny(v, "\x00\n") {
			t.Errorf("EncodeEnv(%.60q) = %.60q: not one line of the environment", entries, v)
		}
		got, err := DecodeEnv(v)
		if err != nil || !slices.Equal(got, entries) {
			t.Errorf("DecodeEnv(EncodeEnv(%.60q)) = %.60q, %v", entries, got, err)
		}
	}
	if v, _ := EncodeEnv(nil); v != "" {
		t.Errorf("no entries encode to %q, want \"\"", v)
	}
}

// TestEncodeEnvRefuses what --env refuses, and a list no environment
// string can hold; DecodeEnv refuses what EncodeEnv never makes.
func TestEncodeEnvRefuses(t *testing.T) {
	for _, entries := range [][]string{
		{""}, {"NOEQUALS"}, {"=v"}, {"A=nul\x00inside"}, {NonceEnv + "=x"}, {EnvListEnv + "=x"},
		{"A=1", "B"},
		{"BIG=" + strings.Repeat("y", 100<<10)},
	} {
		if v, err := EncodeEnv(entries); err == nil {
			t.Errorf("EncodeEnv(%.60q) = %.40q, want an error", entries, v)
		}
	}
	if _, err := DecodeEnv("not base64!"); err == nil {
		t.Error("DecodeEnv of a value that is not base64 succeeded")
	}
}

// TestParseArgsEnv: the program's environment is DefaultEnv, then the
// entries, then --env, a later NAME replacing an earlier one in its place,
// exactly as if each entry had come first as --env.
func TestParseArgsEnv(t *testing.T) {
	args := strings.Fields("--memory 1024 --pids 4 --env LANG=C --env HOME=/w -- /prog")
	c, err := ParseArgsEnv([]string{"A=1", "HOME=/env", "A=2", "NL=x\ny"}, args)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/w", "A=2", "NL=x\ny", "LANG=C"}
	if !slices.Equal(c.Env, want) {
		t.Errorf("env %q, want %q", c.Env, want)
	}
	flags := append([]string{"--env", "A=1", "--env", "HOME=/env", "--env", "A=2", "--env", "NL=x\ny"}, args...)
	same, err := ParseArgs(flags)
	if err != nil || !slices.Equal(same.Env, c.Env) {
		t.Errorf("as --env flags: %q, %v; want %q", same.Env, err, c.Env)
	}
	for _, bad := range [][]string{{"X"}, {NonceEnv + "=1"}} {
		if _, err := ParseArgsEnv(bad, args); err == nil {
			t.Errorf("ParseArgsEnv(%q) accepted", bad)
		}
	}
}

// TestTakeEnv runs a fresh copy of the test binary with the encoded list
// in its real environment block: it gets the entries, and neither its Go
// environment nor /proc/self/environ shows them afterwards.
func TestTakeEnv(t *testing.T) {
	const secret = "s3cr3t-env-fedcba9876543210"
	entries := []string{"TOKEN=" + secret, "NL=a\nb"}
	v, err := EncodeEnv(entries)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{"BEFORE=1", EnvListEnv + "=" + v, helperEnv + "=env", "AFTER=2", coverDir(t)}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err, string(out))
	}
	head, environ, _ := bytes.Cut([]byte(withoutCoverWarning(string(out))), []byte("\n"))
	if want := fmt.Sprintf("env=%q err=<nil> goenv=\"\" readerr=<nil>", entries); string(head) != want {
		t.Fatalf("helper said %q, want %q", head, want)
	}
	if bytes.Contains(environ, []byte(v)) || bytes.Contains(environ, []byte(EnvListEnv)) {
		t.Fatalf("the list is still in /proc/self/environ: %q", environ)
	}
	for _, kv := range []string{"BEFORE=1", "AFTER=2"} {
		if !bytes.Contains(environ, []byte(kv)) {
			t.Errorf("%s lost from /proc/self/environ: %q", kv, environ)
		}
	}
}

// helperEnvList takes the list and prints what is left of it.
func helperEnvList() int {
	entries, err := TakeEnv()
	env, rerr := os.ReadFile("/proc/self/environ")
	fmt.Printf("env=%q err=%v goenv=%q readerr=%v\n", entries, err, os.Getenv(EnvListEnv), rerr)
	os.Stdout.Write(env)
	return 0
}
