package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
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
var podjailCommands = []string{"run", "judge", "verify", "doctor", "bench", "serve", "health", "version"}

// usagePattern is every command's usage line: the command, [flags], the
// flags it cannot do without, its arguments.
var usagePattern = regexp.MustCompile(`^  podjail [a-z]+ \[flags\]( --[a-z-]+ [A-Z_]+)*( \[--\])?( \[?[A-Z_]+(\.\.\.)?\]?)*$`)

// usageLine is the line after "Usage:" in out, "" for none.
func usageLine(out string) string {
	_, rest, ok := strings.Cut(out, "Usage:\n")
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(rest, "\n")
	return line
}

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

// TestHelpExitsZero: -h, --help and help print the usage on stdout and
// exit 0, as Podman's commands do; a usage error exits 2 with the error
// and the usage on stderr.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		if r := podjailHere(args...); r.code != exitOK || !strings.Contains(r.stdout, "Available Commands:") || r.stderr != "" {
			t.Errorf("podjail %v: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := podjailHere(); r.code != exitUsage || !strings.HasPrefix(r.stderr, "podjail: name a command") || !strings.Contains(r.stderr, "Available Commands:") || r.stdout != "" {
		t.Errorf("podjail: exit %d, stderr %q; want %d and the usage on stderr", r.code, r.stderr, exitUsage)
	}
	if r := podjailHere("jugde"); r.code != exitUsage || !strings.Contains(r.stderr, `unknown command "jugde"`) || !strings.Contains(r.stderr, "\tjudge\n") {
		t.Errorf("podjail jugde: exit %d, stderr %q; want %d and judge suggested", r.code, r.stderr, exitUsage)
	}
	for _, cmd := range append(podjailCommands, "completion") {
		for _, help := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {"help", cmd}} {
			r := podjailHere(help...)
			if r.code != exitOK || !strings.HasPrefix(usageLine(r.stdout), "  podjail "+cmd+" [flags]") || !strings.Contains(r.stdout, "\nFlags:\n") || r.stderr != "" {
				t.Errorf("podjail %v: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", help, r.code, r.stdout, r.stderr)
			}
		}
		r := podjailHere(cmd, "--no-such-flag")
		if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, "podjail "+cmd+": unknown flag: --no-such-flag\n\nUsage:\n  podjail "+cmd+" [flags]") {
			t.Errorf("podjail %s --no-such-flag: exit %d, stdout %q, stderr %q; want %d, the error and the usage on stderr", cmd, r.code, r.stdout, r.stderr, exitUsage)
		}
	}
}

// TestUsageLines: every usage line reads "podjail COMMAND [flags] ARGS",
// and podjail's own usage lists every command.
func TestUsageLines(t *testing.T) {
	root := podjailHere("--help").stdout
	for _, cmd := range append(podjailCommands, "omegajail", "isolate", "completion") {
		if !regexp.MustCompile(`\n  ` + cmd + ` +[a-z]`).MatchString(root) {
			t.Errorf("podjail --help does not list %s:\n%s", cmd, root)
		}
	}
	for _, cmd := range podjailCommands {
		if line := usageLine(podjailHere(cmd, "--help").stdout); !usagePattern.MatchString(line) {
			t.Errorf("podjail %s --help: usage %q, want %s", cmd, line, usagePattern)
		}
	}
	if strings.Contains(root, "__gen-docs") {
		t.Error("podjail --help lists the hidden __gen-docs")
	}
}

// TestFlagsAnywhere: judge's flags go before, between or after its
// arguments; the count of arguments is checked apart.
func TestFlagsAnywhere(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"judge", "--json", dir, "a.c"},
		{"judge", dir, "a.c", "--json"},
		{"judge", dir, "--lang", "c", "a.c"},
		{"judge", dir, "a.c", "--lang=c", "--parallel", "2"},
	} {
		// No problem in dir: the arguments got through to judge's own
		// checks, which say so without the usage.
		r := podjailHere(args...)
		if r.code != exitUsage || strings.Contains(r.stderr, "Usage:") || !strings.HasPrefix(r.stderr, "podjail judge: problem") {
			t.Errorf("podjail %v: exit %d, stderr %q; want %d and the problem's error alone", args, r.code, r.stderr, exitUsage)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"judge", dir}, "podjail judge: want 2 arguments (PROBLEM_DIR SOURCE), got 1\n"},
		{[]string{"judge", dir, "a.c", "b.c", "--json"}, "want 2 arguments (PROBLEM_DIR SOURCE), got 3"},
		{[]string{"judge", "-json", dir, "a.c"}, "podjail judge: unknown flag -json: a long flag takes two dashes (--json)\n"},
		{[]string{"judge", dir, "a.c", "--lang"}, "flag needs an argument: --lang"},
		{[]string{"health", "extra", "--json"}, `podjail health: unexpected argument "extra": podjail health takes flags only`},
		{[]string{"serve", "extra"}, `podjail serve: unexpected argument "extra"`},
		{[]string{"doctor", "extra"}, `podjail doctor: unexpected argument "extra"`},
		{[]string{"bench", "--image", "x", "extra"}, `podjail bench: unexpected argument "extra"`},
		{[]string{"run", "--memory", "lots", "/prog"}, `podjail run: invalid argument "lots" for "--memory" flag: "lots" is not a byte size`},
	} {
		r := podjailHere(c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "Usage:\n  podjail "+c.args[0]) {
			t.Errorf("podjail %v: exit %d, stderr %q; want %d, %q and the usage", c.args, r.code, r.stderr, exitUsage, c.want)
		}
	}
	// Asking for help anywhere is help.
	if r := podjailHere("judge", dir, "a.c", "--help"); r.code != exitOK || !strings.HasPrefix(usageLine(r.stdout), "  podjail judge") {
		t.Errorf("podjail judge DIR SOURCE --help: exit %d, stdout %q; want 0 and the usage", r.code, r.stdout)
	}
}

// TestRunArgvIsTheProgram: every word from run's program on is the
// program's, flags of podjail's names included, with -- or without.
func TestRunArgvIsTheProgram(t *testing.T) {
	for _, argv := range [][]string{
		{"--json", "--", "/prog", "--json", "-h", "x"},
		{"--json", "/prog", "--json", "-h", "x"},
	} {
		cmd := newRunCommand(&cli{stdout: io.Discard, stderr: io.Discard})
		if err := cmd.ParseFlags(argv); err != nil {
			t.Fatalf("parse %q: %v", argv, err)
		}
		asJSON, _ := cmd.Flags().GetBool("json")
		if want := []string{"/prog", "--json", "-h", "x"}; !asJSON || !slices.Equal(cmd.Flags().Args(), want) {
			t.Errorf("parse %q: --json %t, program %q; want true, %q", argv, asJSON, cmd.Flags().Args(), want)
		}
	}
	// -v, as the docs write it, and --v, its name before --verbose.
	for _, v := range []string{"-v", "--v", "--verbose"} {
		cmd := newRunCommand(&cli{stdout: io.Discard, stderr: io.Discard})
		if err := cmd.ParseFlags([]string{v, "/prog"}); err != nil {
			t.Fatalf("parse %s: %v", v, err)
		}
		if verbose, _ := cmd.Flags().GetBool("verbose"); !verbose {
			t.Errorf("run %s /prog: not verbose", v)
		}
	}
}

// TestCompletion: podjail completion prints each shell's script.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_podjail podjail", "zsh": "#compdef podjail", "fish": "complete -c podjail"} {
		if r := podjailHere("completion", shell); r.code != exitOK || !strings.Contains(r.stdout, want) || r.stderr != "" {
			t.Errorf("podjail completion %s: exit %d, stderr %q, no %q in the script", shell, r.code, r.stderr, want)
		}
	}
	if r := podjailHere("completion", "ksh"); r.code != exitUsage || !strings.Contains(r.stderr, `invalid argument "ksh"`) {
		t.Errorf("podjail completion ksh: exit %d, stderr %q; want %d naming ksh", r.code, r.stderr, exitUsage)
	}
}

// TestGenDocs: the hidden __gen-docs writes a man page per command and
// each shell's completion under the name the shell looks for.
func TestGenDocs(t *testing.T) {
	dir := t.TempDir()
	if r := podjailHere("__gen-docs", "man", filepath.Join(dir, "man")); r.code != exitOK {
		t.Fatalf("__gen-docs man: exit %d, %s", r.code, r.stderr)
	}
	pages := []string{"podjail.1"}
	for _, cmd := range append(podjailCommands, "omegajail", "isolate", "completion") {
		pages = append(pages, "podjail-"+cmd+".1")
	}
	for _, p := range pages {
		b, err := os.ReadFile(filepath.Join(dir, "man", p))
		if err != nil || !bytes.Contains(b, []byte(".TH ")) {
			t.Errorf("man page %s: %v, %.80q", p, err, b)
		}
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "man", "*.1")); len(got) != len(pages) {
		t.Errorf("man pages %q, want %q", got, pages)
	}
	if r := podjailHere("__gen-docs", "completions", filepath.Join(dir, "comp")); r.code != exitOK {
		t.Fatalf("__gen-docs completions: exit %d, %s", r.code, r.stderr)
	}
	for _, name := range []string{"podjail", "_podjail", "podjail.fish"} {
		if fi, err := os.Stat(filepath.Join(dir, "comp", name)); err != nil || fi.Size() == 0 {
			t.Errorf("completion %s: %v", name, err)
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
