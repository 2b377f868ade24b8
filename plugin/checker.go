package plugin

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/validator"
)

// A problem's checker or interactor: how it is built, the files it gets,
// how it is called (its protocol's, validator.Protocol) and how its run is
// read.

// checker is a built checker: its language and artefact directory.
type checker struct {
	lang lang.Language
	dir  string
}

// helperProgram is the problem's checker or interactor, nil if neither.
func helperProgram(p *problem.Problem) *problem.Program {
	if p.Interactor != nil {
		return p.Interactor
	}
	return p.Checker
}

// buildChecker builds the problem's checker or interactor.
func (r *Runner) buildChecker(ctx context.Context, req JudgeRequest, prog problem.Program, tmp string, out *JudgeResult) (*checker, error) {
	l, err := req.Languages.Lookup(prog.Lang)
	if err != nil {
		return nil, &runner.RequestError{Field: "checker", Err: err}
	}
	files, err := programFiles(l, prog)
	if err != nil {
		return nil, &runner.RequestError{Field: "checker", Err: err}
	}
	if err := r.imagesPresent(ctx, l.BuildImage, l.RunImage); err != nil {
		return nil, err
	}
	b, err := r.BuildFiles(ctx, l, files, tmp)
	out.Checker = &b
	switch {
	case err != nil:
		out.Verdict, out.Note, out.Cause = IE, "checker build: "+err.Error(), CauseChecker
	case !b.OK:
		out.Verdict, out.Note = CF, "the checker or interactor does not build: "+b.Note+"\n"+b.Output
	}
	return &checker{lang: l, dir: b.Dir}, nil
}

// Where a validator finds its files (read-only binds; its feedback
// directory writable, its own on every test).
const checkFeedback = "/run/podjail/check/feedback"

// validatorFiles are a test's files as a validator of protocol p sees them.
func validatorFiles(p validator.Protocol) validator.Files {
	f := validator.Files{Input: checkInput, Answer: checkAnswer, Output: checkOutput}
	if p.Feedback() {
		f.Feedback = checkFeedback + "/"
	}
	return f
}

// feedbackDir is the writable directory a validator of protocol p gets on
// test t, and its bind ("" and none for a protocol without one): t's own
// from an earlier pass (a multi-pass test), or a new one under t.tmp.
func feedbackDir(p validator.Protocol, t testRun) (string, []bindings.Bind, error) {
	if !p.Feedback() {
		return "", nil, nil
	}
	dir := t.feedback
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp(t.tmp, fmt.Sprintf("feedback-%d-", t.index)); err != nil {
			return "", nil, err
		}
	}
	// Written by the sandbox's uid (65534, a subordinate one rootless),
	// given back to us by the shim when the validator ends; again writable
	// for the next pass.
	if err := makeWritable(dir); err != nil {
		return "", nil, err
	}
	return dir, []bindings.Bind{{Source: dir, Destination: checkFeedback, Writable: true}}, nil
}

// makeWritable makes dir and what is in it writable by anyone: the
// sandbox's uid is not ours.
func makeWritable(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		mode := os.FileMode(0o666)
		if d.IsDir() {
			mode = 0o777
		}
		return os.Chmod(path, mode)
	})
}

// programFiles are the files a checker or interactor builds from: its
// source as the language's source file, its extra files (headers) under
// their own names.
func programFiles(l lang.Language, prog problem.Program) (map[string][]byte, error) {
	src, err := os.ReadFile(prog.Source)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{l.Source: src}
	for _, x := range prog.Extra {
		name := filepath.Base(x)
		if _, clash := files[name]; clash {
			return nil, fmt.Errorf("%s: podjail builds %s as %s, which this file's name takes: rename it", x, filepath.Base(prog.Source), name)
		}
		if files[name], err = os.ReadFile(x); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// checkRequest is the checker's run on a contestant's output, called as
// the problem's protocol says (validator.Protocol.Checker); feedback is
// its feedback directory's bind, if the protocol has one. The output file
// may still be empty: the checker reads it only once fired. It runs on its
// test's core (cpuset), after the program, so that it never disturbs
// another slot.
func checkRequest(p *problem.Problem, c *checker, t problem.Test, outPath string, feedback []bindings.Bind, msg io.Writer, cpuset string) runner.RunRequest {
	run := runner.RunRequest{
		Image:  c.lang.RunImage,
		Output: msg,
		Binds: append([]bindings.Bind{
			{Source: c.dir, Destination: lang.ArtefactDir},
			{Source: t.Input, Destination: checkInput},
			{Source: t.Answer, Destination: checkAnswer},
		}, feedback...),
	}
	checkerLimits().Set(&run)
	run.Limits.CPUSet = cpuset
	call := p.Validator().Checker(validatorFiles(p.Validator()), t.ValidatorArgs)
	run.Command = append(append(append([]string{}, mergeStderr...), c.lang.Run...), call.Args...)
	if call.OutputOnStdin {
		run.InputFile = outPath
	} else {
		run.Binds = append(run.Binds, bindings.Bind{Source: outPath, Destination: checkOutput})
	}
	return run
}

// helperVerdict reads a checker's or an interactor's answer from its run:
// its failure first (helperFailed), then the problem's protocol.
func helperVerdict(p *problem.Problem, what string, res runner.RunResult, err error, msg, feedback string) validator.Judgement {
	if v, note, failed := helperFailed(what, res, err); failed {
		return validator.Judgement{Verdict: v, Note: note}
	}
	j := p.Validator().Judge(validator.Ended{ExitCode: int(res.ExitCode), Output: msg, FeedbackDir: feedback})
	if j.Verdict == CF {
		j.Note = "the " + what + " failed: " + j.Note
	}
	return j
}

// helperFailed judges a checker's or interactor's run before its answer
// is read: a failure of ours is IE; a helper stopped, out of memory or
// killed by a signal is CF, never the submission's fault.
func helperFailed(what string, res runner.RunResult, err error) (Verdict, string, bool) {
	if err != nil {
		return IE, what + " run: " + err.Error(), true
	}
	why := stopNotes(res)
	if why == "" {
		return "", "", false
	}
	return CF, "the " + what + " failed: " + why, true
}
