package plugin

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
)

// interactorOutput is where a testlib interactor may write its result
// file: the scratch tmpfs of its own container, never read back.
const interactorOutput = "/tmp/interactor.out"

// runInteractive runs the solution and the interactor side by side, each
// in its own container, and copies every byte between the two attach
// streams: they share no file. The solution's own limits decide first, then
// the interactor's exit code (testlib: 0 AC, 1 WA, 2 PE, else CF). A pair
// stuck waiting on each other ends by the solution's deadlines.
func (r *Runner) runInteractive(ctx context.Context, req JudgeRequest, t problem.Test, limit time.Duration, artefacts string, inter *checker, cpuset string) TestResult {
	tr := TestResult{Name: t.Name, Sample: t.Sample}
	toInter, fromSol := io.Pipe()
	toSol, fromInter := io.Pipe()
	sol := RunRequest{
		Image:       req.Lang.RunImage,
		Command:     req.Lang.Run,
		StdinStream: toSol,
		Output:      fromSol,
		Binds:       []bindings.Bind{{Source: artefacts, Destination: lang.ArtefactDir}},
		OutputLimit: req.Problem.OutputBytes,
		MemoryBytes: req.Problem.MemoryBytes,
		CPUs:        1,
		CPUSet:      cpuset,
		CPULimit:    cpuCeiling(limit),
		IdleLimit:   idleDeadline(limit),
		WallLimit:   absoluteCap(limit),
	}
	it := RunRequest{
		Image:       inter.lang.RunImage,
		Command:     append(append([]string{}, inter.lang.Run...), checkInput, interactorOutput),
		StdinStream: toInter,
		Output:      fromInter,
		Binds: []bindings.Bind{
			{Source: inter.dir, Destination: lang.ArtefactDir},
			{Source: t.Input, Destination: checkInput},
		},
		OutputLimit: req.Problem.OutputBytes,
		MemoryBytes: checkerMemory,
		CPULimit:    checkerTime,
		WallLimit:   absoluteCap(limit) + checkerTime,
	}
	var (
		wg               sync.WaitGroup
		solRes, interRes RunResult
		solErr, interErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		solRes, solErr = r.Run(ctx, sol)
		// The interactor reads EOF; nothing is left to read what it writes.
		fromSol.Close()
		toSol.CloseWithError(io.ErrClosedPipe)
	}()
	go func() {
		defer wg.Done()
		interRes, interErr = r.Run(ctx, it)
		fromInter.Close()
		toInter.CloseWithError(io.ErrClosedPipe)
	}()
	wg.Wait()

	tr.Run, tr.Time, tr.Peak = solRes, solRes.Measure.Time, solRes.Measure.Peak
	tr.Verdict, tr.Note = decideVerdict(testOutcome{res: solRes, err: solErr, limit: limit, matched: true})
	if tr.Verdict != AC {
		return tr
	}
	if v, note, failed := helperFailed("interactor", interRes, interErr); failed {
		tr.Verdict, tr.Note = v, note
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
