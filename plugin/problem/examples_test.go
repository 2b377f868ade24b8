package problem

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// These tests build the example checker, interactor and solutions with the
// host's gcc (skipped without it) and check the exit-code conventions the
// judge relies on: testlib's 0 AC, 1 WA, 2 PE, 3 failure.

func gcc(t *testing.T, src string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("compiles C programs")
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(src)+".bin")
	out, err := exec.Command(cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", bin, src).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc %s: %v\n%s", src, err, out)
	}
	return bin
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

func TestExampleChecker(t *testing.T) {
	p, dir := loadExample(t, "aplusb")
	check := gcc(t, p.Checker.Source)
	sols := map[string][]string{}
	for _, name := range []string{"accepted", "wrong", "pe"} {
		sols[name] = []string{gcc(t, filepath.Join(dir, "solutions", name+".c"))}
	}
	if py, err := exec.LookPath("python3"); err == nil {
		sols["accepted.py"] = []string{py, filepath.Join(dir, "solutions", "accepted.py")}
	}
	want := map[string]int{"accepted": 0, "accepted.py": 0, "wrong": 1, "pe": 2}
	for name, argv := range sols {
		for _, tc := range p.Tests {
			in, err := os.Open(tc.Input)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			run := exec.Command(argv[0], argv[1:]...)
			run.Stdin, run.Stdout = in, f
			err = run.Run()
			in.Close()
			f.Close()
			if err != nil {
				t.Fatalf("%s on %s: %v", name, tc.Name, err)
			}
			msg, err := exec.Command(check, tc.Input, out, tc.Answer).CombinedOutput()
			if code := exitCode(t, err); code != want[name] {
				t.Errorf("%s on %s: checker exit %d, want %d (%s)", name, tc.Name, code, want[name], msg)
			}
		}
	}
	msg, err := exec.Command(check, p.Tests[0].Input, filepath.Join(dir, "missing"), p.Tests[0].Answer).CombinedOutput()
	if code := exitCode(t, err); code != 3 {
		t.Errorf("missing output: checker exit %d, want 3 (%s)", code, msg)
	}
}

// interact runs the interactor on input against a solution, connected by
// two pipes, and returns the interactor's exit code. rest is the
// interactor's further arguments, then the solution's argv: from "sh" or
// "true" on, else its last element alone.
func interact(t *testing.T, interactor, input string, rest ...string) int {
	t.Helper()
	toInter, fromSol, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toSol, fromInter, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	split := len(rest) - 1
	for i, a := range rest {
		if a == "sh" || a == "true" {
			split = i
			break
		}
	}
	args, argv := rest[:split], rest[split:]
	sol := exec.Command(argv[0], argv[1:]...)
	sol.Stdin, sol.Stdout = toSol, fromSol
	in := exec.Command(interactor, append([]string{input}, args...)...)
	in.Stdin, in.Stdout = toInter, fromInter
	if err := sol.Start(); err != nil {
		t.Fatal(err)
	}
	if err := in.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*os.File{toInter, fromSol, toSol, fromInter} {
		f.Close()
	}
	code := exitCode(t, in.Wait())
	_ = sol.Wait()
	return code
}

func TestExampleInteractor(t *testing.T) {
	p, dir := loadExample(t, "guess")
	inter := gcc(t, p.Interactor.Source)
	sol := gcc(t, filepath.Join(dir, "solutions", "accepted.c"))
	for _, tc := range p.Tests {
		if code := interact(t, inter, tc.Input, sol); code != 0 {
			t.Errorf("accepted on %s: interactor exit %d, want 0", tc.Name, code)
		}
	}
	for name, script := range map[string]string{
		"always guesses 5": "while echo 5; do read r || exit; done",
		"not a number":     "echo hello; read r",
		"out of range":     "echo 0; read r",
		"gives up":         "echo 500000; read r",
	} {
		if code := interact(t, inter, p.Tests[0].Input, "sh", "-c", script); code != 1 {
			t.Errorf("%s: interactor exit %d, want 1", name, code)
		}
	}
	if code := interact(t, inter, filepath.Join(dir, "missing.in"), "true"); code != 3 {
		t.Errorf("missing input: interactor exit %d, want 3", code)
	}
}

// The Kattis examples' validators, called as the format calls them: exit
// 42 or 43, the reason in feedback_dir/judgemessage.txt, the groups'
// arguments as loaded.
func TestExampleKattisValidators(t *testing.T) {
	even, _ := loadExample(t, "kattis-even")
	validate := gcc(t, even.Checker.Source)
	if len(even.Checker.Extra) != 1 || filepath.Base(even.Checker.Extra[0]) != "range.h" {
		t.Fatalf("kattis-even's validator builds with %v, want range.h", even.Checker.Extra)
	}
	check := func(validator string, tc Test, stdin string, want int, message string) {
		t.Helper()
		fb := t.TempDir() + "/"
		cmd := exec.Command(validator, append([]string{tc.Input, tc.Answer, fb}, tc.ValidatorArgs...)...)
		cmd.Stdin = strings.NewReader(stdin)
		code := exitCode(t, cmd.Run())
		msg, _ := os.ReadFile(fb + "judgemessage.txt")
		if code != want || !strings.Contains(string(msg), message) {
			t.Errorf("%s with %q, args %q: exit %d, judge message %q; want %d and %q", tc.Name, stdin, tc.ValidatorArgs, code, msg, want, message)
		}
	}
	if len(even.Tests) != 2 || even.Tests[0].ValidatorArgs != nil || !slices.Equal(even.Tests[1].ValidatorArgs, []string{"even"}) {
		t.Fatalf("kattis-even's tests: %+v", even.Tests)
	}
	check(validate, even.Tests[0], "1\n", 42, "fine")
	check(validate, even.Tests[1], "4\n", 42, "fine")
	check(validate, even.Tests[1], "3\n", 43, "is odd")
	check(validate, even.Tests[1], "7\n", 43, "not in [3, 6]")
	check(validate, even.Tests[1], "4 4\n", 43, "more than one token")
	if py, err := exec.LookPath("python3"); err == nil {
		if len(even.InputValidators) != 1 || even.InputValidators[0].Name != "validate" || even.InputValidators[0].Lang != "python3" {
			t.Fatalf("kattis-even's input validators: %+v", even.InputValidators)
		}
		for _, tc := range even.Tests {
			in, err := os.Open(tc.Input)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, append([]string{even.InputValidators[0].Source}, tc.InputValidatorArgs[""]...)...)
			cmd.Stdin = in
			code := exitCode(t, cmd.Run())
			in.Close()
			if code != 42 {
				t.Errorf("input validator on %s with %q: exit %d, want 42", tc.Name, tc.InputValidatorArgs[""], code)
			}
		}
	}

	guess, dir := loadExample(t, "kattis-guess")
	if !guess.Interactive || len(guess.Tests) != 1 || !slices.Equal(guess.Tests[0].ValidatorArgs, []string{"max_guesses", "20"}) {
		t.Fatalf("kattis-guess: %+v", guess)
	}
	inter := gcc(t, guess.Interactor.Source)
	check(inter, guess.Tests[0], "0\n", 43, "not an integer in 1..1000000")
	check(inter, guess.Tests[0], "17\n", 42, "found 17 in 1 guesses (at most 20)")
	check(inter, guess.Tests[0], "", 43, "stopped after 0 guesses")
	sol := gcc(t, filepath.Join(dir, "submissions", "accepted", "search.c"))
	for _, tc := range guess.Tests {
		fb := t.TempDir() + "/"
		if code := interact(t, inter, tc.Input, tc.Answer, fb, "max_guesses", "20", sol); code != 42 {
			t.Errorf("search on %s: validator exit %d, want 42", tc.Name, code)
		}
	}
}

// kattis-double's validator over its passes: each accepting pass but the
// last writes the next pass's input; the pass count lives in the feedback
// directory.
func TestExampleKattisMultiPass(t *testing.T) {
	p, dir := loadExample(t, "kattis-double")
	if p.Passes != 3 || p.Checker == nil || len(p.Tests) != 1 {
		t.Fatalf("kattis-double: %+v", p)
	}
	validate := gcc(t, p.Checker.Source)
	for _, c := range []struct {
		sol  string
		want []int
	}{{"accepted/double.c", []int{42, 42, 42}}, {"wrong_answer/small_only.c", []int{42, 42, 43}}} {
		sol := gcc(t, filepath.Join(dir, "submissions", c.sol))
		fb := t.TempDir() + "/"
		input := p.Tests[0].Input
		for pass, want := range c.want {
			out, err := exec.Command("sh", "-c", `"$0" < "$1"`, sol, input).Output()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(validate, input, p.Tests[0].Answer, fb)
			cmd.Stdin = strings.NewReader(string(out))
			if code := exitCode(t, cmd.Run()); code != want {
				t.Fatalf("%s pass %d: exit %d, want %d", c.sol, pass+1, code, want)
			}
			next := fb + "nextpass.in"
			_, err = os.Stat(next)
			if last := pass == len(c.want)-1; last == (err == nil) {
				t.Fatalf("%s pass %d: nextpass.in there: %v", c.sol, pass+1, err == nil)
			}
			if err == nil {
				input = filepath.Join(t.TempDir(), "pass.in")
				if err := os.Rename(next, input); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
