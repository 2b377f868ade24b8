package shim

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	c, err := ParseArgs(strings.Fields("--memory 67108864 --pids=16 --stdin /in --env LANG=C --env HOME=/w --hand-back /box --hand-back=/tmp/w -- /prog -x --memory 1"))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{MemoryBytes: 64 << 20, Pids: 16, Stdin: "/in",
		Env:  []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/w", "LANG=C"},
		Argv: []string{"/prog", "-x", "--memory", "1"}, HandBack: []string{"/box", "/tmp/w"}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
	if DefaultEnv[1] != "HOME=/tmp" {
		t.Fatal("--env changed DefaultEnv")
	}
	bad := []string{
		"",
		"--memory 1 --pids 1",
		"--memory 1 --pids 1 --",
		"--memory 1 --pids 1 -- prog",
		"--pids 1 -- /prog",
		"--memory 1 -- /prog",
		"--memory 0 --pids 1 -- /prog",
		"--memory -5 --pids 1 -- /prog",
		"--memory 1k --pids 1 -- /prog",
		"--memory 1 --pids 1 --stdin in -- /prog",
		"--memory 1 --pids 1 --env X -- /prog",
		"--memory 1 --pids 1 --env PODJAIL_NONCE=x -- /prog",
		"--memory 1 --pids 1 --bogus -- /prog",
		"--memory 1 --pids 1 --unpack -- /prog",
		"--memory 1 --pids 1 --stdin - --unpack -- /prog",
		"--memory 1 --pids 1 --hand-back box -- /prog",
		"--memory 1 --pids",
		"/prog",
	}
	for _, b := range bad {
		if _, err := ParseArgs(strings.Fields(b)); err == nil {
			t.Errorf("ParseArgs(%q) accepted", b)
		}
	}
}

func TestParseArgsStdinInherit(t *testing.T) {
	c, err := ParseArgs([]string{"--memory", "1024", "--pids", "4", "--stdin", "-", "--", "/p"})
	if err != nil || c.Stdin != StdinInherit {
		t.Fatalf("--stdin -: %+v, %v", c, err)
	}
	if _, err := ParseArgs([]string{"--memory", "1024", "--pids", "4", "--stdin", "rel", "--", "/p"}); err == nil {
		t.Error("a relative --stdin was accepted")
	}
}

func TestParseArgsStderr(t *testing.T) {
	c, err := ParseArgs([]string{"--memory", "1024", "--pids", "4", "--stderr=/run/podjail/stderr", "--", "/p"})
	if err != nil || c.Stderr != "/run/podjail/stderr" || c.StderrToStdout {
		t.Errorf("--stderr: %+v %v", c, err)
	}
	c, err = ParseArgs([]string{"--memory", "1024", "--pids", "4", "--stderr-to-stdout", "--", "/p"})
	if err != nil || !c.StderrToStdout || c.Stderr != "" {
		t.Errorf("--stderr-to-stdout: %+v %v", c, err)
	}
	for _, bad := range [][]string{
		{"--memory", "1024", "--pids", "4", "--stderr", "rel", "--", "/p"},
		{"--memory", "1024", "--pids", "4", "--stderr", "/e", "--stderr-to-stdout", "--", "/p"},
	} {
		if _, err := ParseArgs(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestParseArgsTasks(t *testing.T) {
	for _, tasks := range []string{TasksThreads, TasksNone} {
		c, err := ParseArgs([]string{"--memory", "1024", "--pids", "4", "--tasks", tasks, "--", "/p"})
		if err != nil || c.Tasks != tasks {
			t.Errorf("--tasks %s: %+v, %v", tasks, c, err)
		}
	}
	c, err := ParseArgs([]string{"--memory", "1024", "--pids", "4", "--", "/p"})
	if err != nil || c.Tasks != TasksAny {
		t.Errorf("no --tasks: Tasks %q, %v; want %q", c.Tasks, err, TasksAny)
	}
	for _, bad := range []string{"--tasks=", "--tasks=processes", "--tasks=Threads"} {
		if _, err := ParseArgs([]string{"--memory", "1024", "--pids", "4", bad, "--", "/p"}); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
