package validator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/podjail/podjail/plugin/verdict"
)

// Testlib is the testlib convention of podjail's plain layout: a checker
// is run as `check input output answer` and an interactor as
// `interactor input result` (its result file is its container's scratch,
// never read); both exit 0 (accepted), 1 (wrong answer), 2 (presentation
// error), or 7 with "points X" in a checker's output (partial points);
// any other code is the validator's failure (CF). The submission's own
// facts decide an interactive test first.
var Testlib Protocol = testlib{}

// InteractorResult is where a testlib interactor may write its result
// file: the scratch tmpfs of its own container.
const InteractorResult = "/tmp/interactor.out"

type testlib struct{}

func (testlib) Name() string   { return "testlib" }
func (testlib) Feedback() bool { return false }

func (testlib) Checker(f Files, args []string) Call {
	return Call{Args: append([]string{f.Input, f.Output, f.Answer}, args...)}
}

func (testlib) Interactor(f Files, args []string) Call {
	return Call{Args: append([]string{f.Input, InteractorResult}, args...)}
}

func (testlib) Judge(e Ended) Judgement {
	text := FirstLine(e.Output)
	switch e.ExitCode {
	case 0:
		return Judgement{Verdict: verdict.AC, Note: text}
	case 1:
		return Judgement{Verdict: verdict.WA, Note: text}
	case 2:
		return Judgement{Verdict: verdict.PE, Note: text}
	case 7:
		if pts, ok := pointsIn(e.Output); ok {
			return Judgement{Verdict: verdict.PA, Note: text, Points: pts}
		}
		return Judgement{Verdict: verdict.CF, Note: "partial points (exit code 7) without \"points X\" in the output: " + text}
	}
	return Judgement{Verdict: verdict.CF, Note: fmt.Sprintf("exit code %d (testlib: 0 accepted, 1 wrong answer, 2 presentation error, 7 partial points): %s", e.ExitCode, text)}
}

func (testlib) InteractorFirst(Judgement, bool) bool { return false }

// FirstLine is s's first non-empty line, at most 200 bytes.
func FirstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200] + "..."
			}
			return line
		}
	}
	return ""
}

// pointsIn finds testlib's "points X" in a checker's message.
func pointsIn(s string) (float64, bool) {
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "points" {
			if v, err := strconv.ParseFloat(f[i+1], 64); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}
