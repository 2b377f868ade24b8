package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/podjail/podjail/plugin/isolate"
	"github.com/podjail/podjail/plugin/omegajail"
	"github.com/podjail/podjail/plugin/sandbox/engine"
)

// podjailHere runs the command line in this process, as main does.
func podjailHere(args ...string) cmdResult {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return cmdResult{stdout.String(), stderr.String(), code}
}

// podjailCommands are the commands whose flags are podjail's own (the
// fronts parse as the tools they imitate).
var podjailCommands = []string{"run", "judge", "doctor", "bench", "serve", "health", "version"}

// usagePattern is the first line of every command's usage: the command,
// [flags], the flags it cannot do without, its arguments.
var usagePattern = regexp.MustCompile(`^usage: podjail [a-z]+ \[flags\]( --[a-z-]+ [A-Z_]+)*( --)?( \[?[A-Z_]+(\.\.\.)?\]?)*$`)

func TestVersion(t *testing.T) {
	want := "podjail " + engine.BuildVersion() + "\n"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if r := podjailHere(args...); r.code != exitOK || r.stdout != want || r.stderr != "" {
			t.Errorf("podjail %v: exit %d, stdout %q, stderr %q; want 0 and %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
	if r := podjailHere("version", "extra"); r.code != exitUsage || !strings.Contains(r.stderr, `unexpected argument "extra"`) {
		t.Errorf("podjail version extra: exit %d, stderr %q; want %d naming the argument", r.code, r.stderr, exitUsage)
	}
}

// TestHelpExitsZero: -h and --help print the usage on stdout and exit 0,
// as Podman's commands do; a usage error still exits 2 with the usage on
// stderr.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		if r := podjailHere(args...); r.code != exitOK || !strings.HasPrefix(r.stdout, "usage: podjail COMMAND") || r.stderr != "" {
			t.Errorf("podjail %v: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := podjailHere(); r.code != exitUsage || !strings.HasPrefix(r.stderr, "usage: podjail COMMAND") || r.stdout != "" {
		t.Errorf("podjail: exit %d, stderr %q; want %d and the usage on stderr", r.code, r.stderr, exitUsage)
	}
	for _, cmd := range podjailCommands {
		for _, help := range []string{"-h", "--help", "-help"} {
			r := podjailHere(cmd, help)
			if r.code != exitOK || !strings.HasPrefix(r.stdout, "usage: podjail "+cmd+" [flags]") || !strings.Contains(r.stdout, "\nflags:\n") || r.stderr != "" {
				t.Errorf("podjail %s %s: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", cmd, help, r.code, r.stdout, r.stderr)
			}
		}
		r := podjailHere(cmd, "--no-such-flag")
		if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, "podjail "+cmd+": flag provided but not defined: -no-such-flag\n\nusage: podjail "+cmd+" [flags]") {
			t.Errorf("podjail %s --no-such-flag: exit %d, stdout %q, stderr %q; want %d, the error and the usage on stderr", cmd, r.code, r.stdout, r.stderr, exitUsage)
		}
	}
}

// TestUsageLines: every usage starts "usage: podjail COMMAND [flags] ARGS".
func TestUsageLines(t *testing.T) {
	if first, _, _ := strings.Cut(usage, "\n"); first != "usage: podjail COMMAND [flags] ARGS..." {
		t.Errorf("podjail's usage starts %q", first)
	}
	for _, cmd := range podjailCommands {
		r := podjailHere(cmd, "--help")
		if first, _, _ := strings.Cut(r.stdout, "\n"); !usagePattern.MatchString(first) {
			t.Errorf("podjail %s --help starts %q: want %s", cmd, first, usagePattern)
		}
		if !strings.Contains(usage, "\n  "+cmd+" ") {
			t.Errorf("podjail's usage does not list %s", cmd)
		}
	}
}

// TestFlagsAfterArguments: a flag after judge's arguments is refused
// naming the fix, not taken for an argument.
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"judge", dir, "a.c", "--json"}, "podjail judge: flag --json after PROBLEM_DIR SOURCE: put flags first (podjail judge --json PROBLEM_DIR SOURCE)\n"},
		{[]string{"judge", dir, "a.c", "--lang", "c"}, "put flags first (podjail judge --lang c PROBLEM_DIR SOURCE)"},
		{[]string{"judge", dir, "a.c", "--lang=c"}, "put flags first (podjail judge --lang=c PROBLEM_DIR SOURCE)"},
		{[]string{"judge", dir, "--parallel", "2", "a.c"}, "flag --parallel after PROBLEM_DIR SOURCE"},
		{[]string{"judge", dir}, "podjail judge: want 2 arguments (PROBLEM_DIR SOURCE), got 1\n"},
		{[]string{"judge", dir, "a.c", "b.c"}, "want 2 arguments (PROBLEM_DIR SOURCE), got 3"},
		{[]string{"health", "extra", "--json"}, `podjail health: unexpected argument "extra": podjail health takes flags only`},
		{[]string{"serve", "extra"}, `podjail serve: unexpected argument "extra"`},
		{[]string{"doctor", "extra"}, `podjail doctor: unexpected argument "extra"`},
		{[]string{"bench", "--image", "x", "extra"}, `podjail bench: unexpected argument "extra"`},
	} {
		r := podjailHere(c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "usage: podjail "+c.args[0]) {
			t.Errorf("podjail %v: exit %d, stderr %q; want %d, %q and the usage", c.args, r.code, r.stderr, exitUsage, c.want)
		}
	}
	// Asking for help anywhere is help.
	if r := podjailHere("judge", dir, "a.c", "--help"); r.code != exitOK || !strings.HasPrefix(r.stdout, "usage: podjail judge") {
		t.Errorf("podjail judge DIR SOURCE --help: exit %d, stdout %q; want 0 and the usage", r.code, r.stdout)
	}
	// Flags first, the arguments get through to the command's own checks.
	if r := podjailHere("judge", "--json", dir, "a.c"); r.code != exitUsage || strings.Contains(r.stderr, "usage:") || !strings.Contains(r.stderr, "podjail judge: ") {
		t.Errorf("podjail judge --json DIR SOURCE (no problem there): exit %d, stderr %q; want %d and the problem's error alone", r.code, r.stderr, exitUsage)
	}
}

// TestRunArgvIsTheProgram: after run's flags, every word is the
// program's, flags of podjail's name included.
func TestRunArgvIsTheProgram(t *testing.T) {
	c := newCommand("run", "-- PROGRAM [ARGS...]", anyArgs, "")
	asJSON := c.Bool("json", false, "")
	var out bytes.Buffer
	argv := []string{"--json", "--", "/prog", "--json", "-h", "x"}
	if code, done := c.parse(argv, &out, &out); done {
		t.Fatalf("parse %q: done, exit %d: %s", argv, code, out.String())
	}
	if want := []string{"/prog", "--json", "-h", "x"}; !*asJSON || !slices.Equal(c.Args(), want) {
		t.Errorf("parse %q: --json %t, program %q; want true, %q", argv, *asJSON, c.Args(), want)
	}
}

func TestFlagName(t *testing.T) {
	for word, want := range map[string]string{"-json": "json", "--json": "json", "--lang=c": "lang", "-h": "h", "--": "", "-": "", "a.c": "", "---x": "", "--=x": ""} {
		got, ok := flagName(word)
		if got != want || ok != (want != "") {
			t.Errorf("flagName(%q) = %q, %t; want %q", word, got, ok, want)
		}
	}
}

// TestOmegajailHelp: the omegajail front answers -h and -V as clap does
// for omegajail, on stdout with exit 0; a rejected command line still
// exits 2 on stderr.
func TestOmegajailHelp(t *testing.T) {
	for _, help := range []string{"-h", "--help"} {
		if r := podjailHere("omegajail", help); r.code != exitOK || r.stdout != omegajail.Usage() || r.stderr != "" {
			t.Errorf("podjail omegajail %s: exit %d, stdout %q, stderr %q; want 0 and omegajail's usage on stdout", help, r.code, r.stdout, r.stderr)
		}
	}
	want := "omegajail (podjail " + engine.BuildVersion() + ")\n"
	for _, version := range []string{"-V", "--version"} {
		if r := podjailHere("omegajail", version); r.code != exitOK || r.stdout != want || r.stderr != "" {
			t.Errorf("podjail omegajail %s: exit %d, stdout %q, stderr %q; want 0 and %q", version, r.code, r.stdout, r.stderr, want)
		}
	}
	r := podjailHere("omegajail", "--homedir", t.TempDir(), "--bogus")
	if r.code != omegajail.UsageExitCode || r.stdout != "" || !strings.Contains(r.stderr, "--bogus") {
		t.Errorf("podjail omegajail --bogus: exit %d, stdout %q, stderr %q; want %d naming --bogus on stderr", r.code, r.stdout, r.stderr, omegajail.UsageExitCode)
	}
}

// TestIsolateHelp: isolate knows no --help: getopt's message on stderr,
// isolate's usage on stdout, exit 2 (isolate.c, usage(NULL)); the front
// answers so too, and any rejected command line with isolate's whole
// message.
func TestIsolateHelp(t *testing.T) {
	for _, c := range []struct {
		arg, stderr string
	}{{"--help", "isolate: unrecognized option '--help'\n"}, {"-h", "isolate: invalid option -- 'h'\n"}} {
		r := podjailHere("isolate", c.arg)
		if r.code != isolate.ExitSandbox || r.stderr != c.stderr || r.stdout != isolate.Usage+isolate.FrontNotes {
			t.Errorf("podjail isolate %s: exit %d, stderr %q, stdout %q; want %d, %q and isolate's usage", c.arg, r.code, r.stderr, r.stdout, isolate.ExitSandbox, c.stderr)
		}
	}
	r := podjailHere("isolate", "--init", "x")
	if want := "--init mode takes no parameters\nTry 'isolate' --help' for more information.\n"; r.code != isolate.ExitSandbox || r.stderr != want || r.stdout != "" {
		t.Errorf("podjail isolate --init x: exit %d, stderr %q, stdout %q; want %d and %q alone", r.code, r.stderr, r.stdout, isolate.ExitSandbox, want)
	}
}
