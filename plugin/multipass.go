package plugin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podjail/podjail/plugin/validator"
)

// prepareMultiPass makes a multi-pass test ready: its first pass armed
// (preparePass); its judge runs the passes one after the other, each in
// fresh containers, as long as the validator accepts and writes the next
// pass's input (validator.NextPass in its feedback directory, which every
// pass shares). The test's verdict is its last pass's, its time its
// slowest pass's. A next input beside a rejection, or more passes than the
// problem allows, is the validator's failure (CF), as problemtools judges
// it.
func (r *Runner) prepareMultiPass(ctx context.Context, t testRun) *pending {
	fb, _, err := feedbackDir(t.req.Problem.Validator(), t)
	if err != nil || fb == "" {
		tr := TestResult{Name: t.test.Name, Sample: t.test.Sample, Verdict: IE, Cause: CauseHost, Note: fmt.Sprintf("a multi-pass test's feedback directory: %v", err)}
		if err == nil {
			tr.Verdict, tr.Note = CF, "a multi-pass problem needs a validator with a feedback directory (the Kattis protocol)"
		}
		return &pending{judge: func(context.Context) TestResult { return tr }, drop: func() {}}
	}
	t.feedback = fb
	first := r.preparePass(ctx, t)
	judge := func(ctx context.Context) TestResult {
		passes := t.req.Problem.Passes
		tr := first.judge(ctx)
		slowest := tr.Time
		for pass := 1; ; pass++ {
			next := filepath.Join(fb, validator.NextPass)
			_, err := os.Lstat(next)
			written := err == nil
			switch {
			case err != nil && !errors.Is(err, fs.ErrNotExist):
				return passFailed(tr, IE, fmt.Sprintf("pass %d: the next pass's input: %v", pass, err))
			case tr.Verdict != AC && written:
				return passFailed(tr, CF, fmt.Sprintf("pass %d: the validator wrote %s beside a rejection (%s: %s)", pass, validator.NextPass, tr.Verdict, tr.Note))
			case tr.Verdict != AC || !written:
				tr.Time = slowest
				if pass > 1 {
					tr.Note = fmt.Sprintf("pass %d of %d: %s", pass, passes, tr.Note)
				}
				return tr
			case pass == passes:
				return passFailed(tr, CF, fmt.Sprintf("the validator gave no verdict within %d passes (limits.validation_passes): pass %d wrote %s", passes, pass, validator.NextPass))
			case ctx.Err() != nil:
				return passFailed(tr, IE, "judging interrupted: "+ctx.Err().Error())
			}
			// The next pass reads what this one wrote, from a file of its own.
			input := filepath.Join(t.tmp, fmt.Sprintf("pass-%d-%d.in", t.index, pass+1))
			if err := os.Rename(next, input); err != nil {
				return passFailed(tr, IE, fmt.Sprintf("pass %d: the next pass's input: %v", pass, err))
			}
			if err := os.Chmod(input, 0o644); err != nil {
				return passFailed(tr, IE, fmt.Sprintf("pass %d: the next pass's input: %v", pass, err))
			}
			nt := t
			nt.test.Input = input
			tr = r.preparePass(ctx, nt).judge(ctx)
			slowest = max(slowest, tr.Time)
		}
	}
	return &pending{judge: judge, drop: first.drop}
}

// passFailed is tr, its verdict v with note: a pass that went wrong for
// the validator (CF) or for us (IE).
func passFailed(tr TestResult, v Verdict, note string) TestResult {
	tr.Verdict, tr.Note, tr.Cause = v, note, ""
	if v == IE {
		tr.Cause = CauseHost
	}
	return tr
}
