package plugin

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
)

// interactorOutput is where a testlib interactor may write its result
// file: the scratch tmpfs of its own container, never read back.
const interactorOutput = "/tmp/interactor.out"

// prepareInteractive arms the solution and the interactor, each in its
// own container; its judge fires both at once and copies every byte
// between the two, each one's stdout pipe to the other's control pipe:
// they share no file. The solution's own
// limits decide first, then the interactor's exit code (testlib: 0 AC, 1
// WA, 2 PE, else CF). A pair stuck waiting on each other ends by the
// solution's deadlines.
func (r *Runner) prepareInteractive(ctx context.Context, x testRun) *pending {
	req, t, limit, artefacts, inter, cpuset := x.req, x.test, x.limit, x.artefacts, x.chk, x.cpuset
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
	testLimits(req.Problem, req.Lang, limit).Set(&sol)
	sol.Limits.CPUSet = cpuset
	it := runner.RunRequest{
		Image:       inter.lang.RunImage,
		Command:     append(append([]string{}, inter.lang.Run...), checkInput, interactorOutput),
		StdinStream: toInter,
		Output:      fromInter,
		Binds: []bindings.Bind{
			{Source: inter.dir, Destination: lang.ArtefactDir},
			{Source: t.Input, Destination: checkInput},
		},
	}
	interactorLimits(req.Problem, limit).Set(&it)
	it.Limits.CPUSet = cpuset // the slot's core: the pair takes turns on it
	solArmed, solErr := r.armCounted(ctx, sol, x.cleanups)
	interArmed, interErr := r.armCounted(ctx, it, x.cleanups)
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
		if solErr == nil && interErr == nil {
			wg.Go(func() {
				solRes, solErr = solArmed.Fire(ctx)
				// The interactor reads EOF; nothing is left to read what it writes.
				fromSol.Close()
				toSol.CloseWithError(io.ErrClosedPipe)
			})
			wg.Go(func() {
				interRes, interErr = interArmed.Fire(ctx)
				fromInter.Close()
				toInter.CloseWithError(io.ErrClosedPipe)
			})
			wg.Wait()
		}
		return interactiveVerdict(tr, testOutcome{res: solRes, err: solErr, limit: limit, matched: true, memoryExit: req.Lang.MemoryExitCode}, interRes, interErr)
	}
	return &pending{judge: judge, drop: drop}
}

// interactiveVerdict decides an interactive test from its two runs.
func interactiveVerdict(tr TestResult, sol testOutcome, interRes runner.RunResult, interErr error) TestResult {
	tr = judgeTest(tr, sol)
	if tr.Verdict != AC {
		return tr
	}
	if v, note, failed := helperFailed("interactor", interRes, interErr); failed {
		tr.Verdict, tr.Note = v, note
		if v == IE {
			tr.Cause = CauseChecker
		}
	} else if v, ok := testlibVerdict(interRes.ExitCode); ok {
		tr.Verdict, tr.Note = v, ""
		if v != AC {
			tr.Note = "the interactor says " + string(v)
		}
	} else {
		tr.Verdict, tr.Note = CF, fmt.Sprintf("the interactor exited %d", interRes.ExitCode)
	}
	return tr
}
