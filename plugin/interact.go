package plugin

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
)

// prepareInteractive arms the solution and the interactor, each in its
// own container; its judge fires both at once and copies every byte
// between the two, each one's stdout pipe to the other's control pipe:
// they share no file. The interactor is called as the problem's protocol
// says (validator.Protocol.Interactor), which also says whether its
// judgement or the solution's own limits decide first. A pair stuck
// waiting on each other ends by the solution's deadlines.
func (r *Runner) prepareInteractive(ctx context.Context, x testRun) *pending {
	req, t, limit, artefacts, inter, cpuset := x.req, x.test, x.limit, x.artefacts, x.chk, x.cpuset
	p := req.Problem
	tr := TestResult{Name: t.Name, Sample: t.Sample}
	toInter, fromSol := io.Pipe()
	toSol, fromInter := io.Pipe()
	sol := runner.RunRequest{
		Image:       req.Lang.RunImage,
		Command:     req.Lang.Run,
		Env:         req.Lang.Env,
		StdinStream: toSol,
		Output:      fromSol,
		Binds:       []bindings.Bind{{Source: artefacts, Destination: lang.ArtefactDir}},
	}
	testLimits(p, req.Lang, limit).Set(&sol)
	sol.Limits.CPUSet = cpuset
	call := p.Validator().Interactor(validatorFiles(p.Validator()), t.ValidatorArgs)
	it := runner.RunRequest{
		Image:       inter.lang.RunImage,
		Command:     append(append([]string{}, inter.lang.Run...), call.Args...),
		StdinStream: toInter,
		Output:      fromInter,
		Binds: []bindings.Bind{
			{Source: inter.dir, Destination: lang.ArtefactDir},
			{Source: t.Input, Destination: checkInput},
			{Source: t.Answer, Destination: checkAnswer},
		},
	}
	interactorLimits(p, limit).Set(&it)
	it.Limits.CPUSet = cpuset // the slot's core: the pair takes turns on it
	feedback, binds, interErr := feedbackDir(p.Validator(), x)
	it.Binds = append(it.Binds, binds...)
	solArmed, solErr := r.armCounted(ctx, sol, x.cleanups)
	var interArmed *runner.Armed
	if interErr == nil {
		interArmed, interErr = r.armCounted(ctx, it, x.cleanups)
	}
	drop := func() {
		for _, a := range []*runner.Armed{solArmed, interArmed} {
			if a != nil {
				a.Discard(context.WithoutCancel(ctx))
			}
		}
	}
	if solErr != nil || interErr != nil {
		drop()
	}
	judge := func(ctx context.Context) TestResult {
		var wg sync.WaitGroup
		var solRes, interRes runner.RunResult
		var mu sync.Mutex
		solDone := false
		interFirst := false
		if solErr == nil && interErr == nil {
			wg.Go(func() {
				solRes, solErr = solArmed.Fire(ctx)
				mu.Lock()
				solDone = true
				mu.Unlock()
				// The interactor reads EOF; nothing is left to read what it writes.
				fromSol.Close()
				toSol.CloseWithError(io.ErrClosedPipe)
			})
			wg.Go(func() {
				interRes, interErr = interArmed.Fire(ctx)
				// The solution reads EOF only from here on: the order in
				// which the two returned is the order in which they ended.
				mu.Lock()
				interFirst = !solDone
				mu.Unlock()
				fromInter.Close()
				toInter.CloseWithError(io.ErrClosedPipe)
			})
			wg.Wait()
		}
		if solErr == nil && interErr != nil {
			// Nothing was fired: the interactor could not be armed.
			return judgeTest(tr, testOutcome{err: fmt.Errorf("interactor: %w", interErr), limit: limit})
		}
		sol := testOutcome{res: solRes, err: solErr, limit: limit, matched: true, memoryExit: req.Lang.MemoryExitCode}
		return interactiveVerdict(p, tr, sol, interRes, interErr, feedback, interFirst)
	}
	return &pending{judge: judge, drop: drop}
}

// interactiveVerdict decides an interactive test from the solution's run
// and the interactor's (feedback its feedback directory; interFirst: it
// ended first): the solution's own facts first (its limits, its exit),
// then the interactor's judgement, unless the problem's protocol says the
// interactor's decides first. A failure of ours on the solution's side
// (IE) stays IE.
func interactiveVerdict(p *problem.Problem, tr TestResult, sol testOutcome, interRes runner.RunResult, interErr error, feedback string, interFirst bool) TestResult {
	tr = judgeTest(tr, sol)
	if sol.err != nil || tr.Verdict == IE {
		return tr
	}
	j := helperVerdict(p, "interactor", interRes, interErr, "", feedback)
	if tr.Verdict != AC && !p.Validator().InteractorFirst(j, interFirst) {
		return tr
	}
	tr.Verdict, tr.Note, tr.Points, tr.Cause = j.Verdict, j.Note, j.Points, ""
	switch {
	case j.Verdict == IE:
		tr.Cause = CauseChecker
	case j.Verdict != AC && j.Verdict != CF && tr.Note == "":
		tr.Note = "the interactor says " + string(j.Verdict)
	}
	return tr
}
