package plugin

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/plugin/validator"
)

// A multi-pass test with fakes: the submission echoes its input with a
// "+"; the validator counts its passes in its feedback directory and
// writes the next input as the policy says.
func TestJudgeMultiPass(t *testing.T) {
	type policy func(pass int, in, out string) (exit int, next string)
	accepts := func(pass int, in, out string) (int, string) {
		if out != in+"+" {
			return 43, ""
		}
		if pass < 3 {
			return 42, in + "x"
		}
		return 42, ""
	}
	for _, c := range []struct {
		name    string
		policy  policy
		sol     func(in string) string
		verdict Verdict
		note    string
		inputs  string // what the submission saw, pass by pass
	}{
		{"three passes", accepts, func(in string) string { return in + "+" }, AC, "", "1 1x 1xx"},
		{"wrong on the second pass", accepts, func(in string) string {
			if strings.HasSuffix(in, "x") {
				return "no"
			}
			return in + "+"
		}, WA, "pass 2 of 3", "1 1x"},
		{"no verdict within the passes", func(int, string, string) (int, string) { return 42, "again" }, func(in string) string { return in + "+" }, CF, "no verdict within 3 passes", "1 again again"},
		{"a next input beside a rejection", func(int, string, string) (int, string) { return 43, "again" }, func(in string) string { return in + "+" }, CF, "beside a rejection", "1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := fakeProblem(t, "1")
			table := withFakeChecker(t, p)
			p.Format, p.Protocol, p.Passes = problem.FormatKattis, validator.Kattis, 3
			var seen []string
			r, rt, cg := fakeRunner(t, func(s bindings.Spec) runnertest.Program {
				if s.Image != "fake/chk" {
					return runnertest.Program{CPU: time.Millisecond, AtGo: func(s bindings.Spec) runnertest.Program {
						in, _ := os.ReadFile(s.InputFile)
						seen = append(seen, strings.TrimSpace(string(in)))
						return runnertest.Program{Stdout: []byte(c.sol(strings.TrimSpace(string(in))) + "\n")}
					}}
				}
				return runnertest.Program{CPU: time.Millisecond, AtGo: func(s bindings.Spec) runnertest.Program {
					var fb, in string
					for _, b := range s.Binds {
						switch b.Destination {
						case checkFeedback:
							fb = b.Source
						case checkInput:
							in = b.Source
						}
					}
					input, _ := os.ReadFile(in)
					out, _ := os.ReadFile(s.InputFile)
					count, _ := os.ReadFile(filepath.Join(fb, "count"))
					pass, _ := strconv.Atoi(string(count))
					pass++
					_ = os.WriteFile(filepath.Join(fb, "count"), []byte(strconv.Itoa(pass)), 0o644)
					exit, next := c.policy(pass, string(bytes.TrimSpace(input)), string(bytes.TrimSpace(out)))
					if next != "" {
						_ = os.WriteFile(filepath.Join(fb, validator.NextPass), []byte(next+"\n"), 0o644)
					}
					_ = os.WriteFile(filepath.Join(fb, validator.JudgeMessage), []byte("pass "+strconv.Itoa(pass)+"\n"), 0o644)
					return runnertest.Program{Exit: exit}
				}}
			})
			req := judgeReq(p)
			req.Languages = table
			res, err := r.Judge(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tests) != 1 || res.Tests[0].Verdict != c.verdict || !strings.Contains(res.Tests[0].Note, c.note) {
				t.Errorf("tests %+v; want %s with %q", res.Tests, c.verdict, c.note)
			}
			if got := strings.Join(seen, " "); got != c.inputs {
				t.Errorf("the submission saw %q, pass by pass; want %q", got, c.inputs)
			}
			runnertest.AssertNothingLeft(t, rt, cg)
		})
	}
}
