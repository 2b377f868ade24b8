package validator

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/plugin/verdict"
)

// Kattis is the output validator protocol of the Kattis problem package
// format (every version; DOMjudge speaks it too): a validator is run as
// `validator input answer feedback_dir/ [args...] < output`, an
// interactive one with `> submission's input` as well, and exits 42
// (accepted) or 43 (wrong answer); any other code is a judge error (CF).
// Its feedback directory is its own on every test: judgemessage.txt (and
// teammessage.txt) become the test's note; a score.txt is a judge error,
// podjail judging no scoring problem yet.
//
// On an interactive test the validator's failure, and its rejection when
// it ended before the submission, decide before the submission's own
// facts, as problemtools judges it: a submission that dies once the
// validator has rejected it is WA, not RTE.
var Kattis Protocol = kattis{}

// Feedback files the Kattis protocol reads.
const (
	JudgeMessage = "judgemessage.txt"
	TeamMessage  = "teammessage.txt"
	ScoreFile    = "score.txt"
	// NextPass is a multi-pass validator's input for the next pass, beside
	// an exit of 42.
	NextPass = "nextpass.in"
)

// FeedbackRead is how much of each feedback file is read (problemtools
// reads as much); NoteKeep is how much of a message the note keeps.
const (
	FeedbackRead = 128 << 10
	NoteKeep     = 4 << 10
)

type kattis struct{}

func (kattis) Name() string   { return "kattis" }
func (kattis) Feedback() bool { return true }

func (kattis) Checker(f Files, args []string) Call {
	return Call{Args: append([]string{f.Input, f.Answer, f.Feedback}, args...), OutputOnStdin: true}
}

func (kattis) Interactor(f Files, args []string) Call {
	return Call{Args: append([]string{f.Input, f.Answer, f.Feedback}, args...)}
}

func (kattis) Judge(e Ended) Judgement {
	judge, _, jerr := readFeedback(e.FeedbackDir, JudgeMessage)
	team, _, terr := readFeedback(e.FeedbackDir, TeamMessage)
	_, scored, serr := readFeedback(e.FeedbackDir, ScoreFile)
	if err := errors.Join(jerr, terr, serr); err != nil {
		return Judgement{Verdict: verdict.CF, Note: "the output validator's feedback: " + err.Error()}
	}
	note := strings.TrimSpace(judge)
	if note == "" {
		note = FirstLine(e.Output)
	}
	if t := strings.TrimSpace(team); t != "" {
		note = strings.TrimSpace(note + "\nteam message: " + t)
	}
	note = keep(note, NoteKeep)
	if scored {
		return Judgement{Verdict: verdict.CF, Note: "the output validator wrote " + ScoreFile + ", which only a scoring problem may (podjail judges pass-fail problems): " + note}
	}
	switch e.ExitCode {
	case 42:
		return Judgement{Verdict: verdict.AC, Note: note}
	case 43:
		return Judgement{Verdict: verdict.WA, Note: note}
	}
	return Judgement{Verdict: verdict.CF, Note: fmt.Sprintf("the output validator exited %d (42 accepts, 43 rejects; anything else is its failure): %s", e.ExitCode, note)}
}

func (kattis) InteractorFirst(j Judgement, endedFirst bool) bool {
	return j.Verdict == verdict.CF || j.Verdict == verdict.WA && endedFirst
}

// readFeedback reads at most FeedbackRead bytes of the regular file name
// in dir; present is false when it is not there (or dir is "").
func readFeedback(dir, name string) (_ string, present bool, _ error) {
	if dir == "" {
		return "", false, nil
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", true, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", true, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, FeedbackRead))
	if err != nil {
		return "", true, fmt.Errorf("%s: %w", name, err)
	}
	return string(b), true, nil
}

// keep cuts s to n bytes, saying so.
func keep(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "… (cut at " + fmt.Sprint(n) + " bytes)"
}
