package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/compare"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
)

// Where a checker finds its files (read-only binds).
const (
	checkInput  = "/run/podjail/check/input"
	checkOutput = "/run/podjail/check/output"
	checkAnswer = "/run/podjail/check/answer"
)

// JudgeRequest is one submission to judge against one problem.
type JudgeRequest struct {
	// Problem is a loaded problem (problem.Load). Required.
	Problem *problem.Problem
	// Lang is the submission's language. Required.
	Lang lang.Language
	// Source is the submission's text. Required.
	Source []byte
	// Languages builds the checker. Zero value: lang.Default().
	Languages *lang.Table
	// StopOnFirstFailure stops after the first test that is not AC.
	// Zero value: every test runs.
	StopOnFirstFailure bool
	// TmpDir holds artefacts and outputs while judging. Zero value:
	// os.TempDir(). Must be readable by the Podman service.
	TmpDir string
	// Progress is called after each test, in the tests' order. Zero
	// value: not called.
	Progress func(done, total int, t TestResult)
	// Parallel is how many tests run at once, each pinned to its own
	// core of the Runner's Cores. Zero value: one per core; 1: one test
	// after the other, unpinned.
	Parallel int
	// RetryIE judges a test that ended IE (a failure of ours or the
	// host's: the runtime restarted, a stream cut) once more, on a fresh
	// container, before the judge stops on it; the first attempt's note is
	// kept in the result's. Zero value: the judge stops with IE at once.
	RetryIE bool
}

// TestResult is the judgement of one test.
type TestResult struct {
	Name    string        `json:"name"`
	Sample  bool          `json:"sample,omitempty"`
	Verdict Verdict       `json:"verdict"`
	Note    string        `json:"note,omitempty"`
	Time    time.Duration `json:"time_ns"`
	Peak    int64         `json:"peak_bytes"`
	// Points are a checker's partial points (PA), 0 otherwise.
	Points float64 `json:"points,omitempty"`
	// Run is the run the verdict was decided on.
	Run runner.RunResult `json:"run"`
	// Critical is the test's critical path: from its turn (its slot
	// free, the test before it on that slot decided) to its verdict.
	Critical time.Duration `json:"critical_ns"`
	// Cause says whose failure an IE was; "" for other verdicts.
	Cause Cause `json:"-"`
}

// JudgeResult is the judgement of a submission: the worst test's verdict,
// or CE, or IE/CF when something of ours or the problem's failed.
type JudgeResult struct {
	Verdict Verdict      `json:"verdict"`
	Note    string       `json:"note,omitempty"`
	Build   BuildResult  `json:"build"`
	Checker *BuildResult `json:"checker_build,omitempty"`
	Tests   []TestResult `json:"tests"`
	// TestsWall is the elapsed time from the end of the build to the
	// last verdict.
	TestsWall time.Duration `json:"tests_wall_ns"`
	// Parallel is how many tests ran at once.
	Parallel int `json:"parallel"`
	// TimeLimit is the limit the tests were judged against: the problem's
	// plus the language's extra time.
	TimeLimit time.Duration `json:"time_limit_ns"`
	// MemoryLimit is the memory every run had: the problem's limit, or the
	// Runner's MemoryCeiling when that is lower.
	MemoryLimit int64 `json:"memory_limit_bytes"`
	// Cause says whose failure an IE was (the worst test's, or what
	// failed before the tests); "" for other verdicts.
	Cause Cause `json:"-"`
}

// Judge builds the submission and runs it on every test, each in a fresh
// container. Bad requests are errors; everything that happens to the
// submission, and failures of ours while judging it (IE), are the result.
func (r *Runner) Judge(ctx context.Context, req JudgeRequest) (JudgeResult, error) {
	res, err := r.judge(ctx, req)
	r.observe().Judged(res, err)
	return res, err
}

func (r *Runner) judge(ctx context.Context, req JudgeRequest) (JudgeResult, error) {
	p := req.Problem
	if p == nil || len(req.Source) == 0 {
		return JudgeResult{}, &runner.RequestError{Field: "judge", Err: errors.New("a problem and a non-empty source are required")}
	}
	if err := req.Lang.Validate(); err != nil {
		return JudgeResult{}, &runner.RequestError{Field: "language", Err: err}
	}
	if req.Languages == nil {
		req.Languages = lang.Default()
	}
	if err := r.imagesPresent(ctx, req.Lang.BuildImage, req.Lang.RunImage); err != nil {
		return JudgeResult{}, err
	}
	tmp, err := os.MkdirTemp(req.TmpDir, "podjail-judge-")
	if err != nil {
		return JudgeResult{}, err
	}
	defer os.RemoveAll(tmp)
	// Its own (the tests' outputs, the builds): Podman mounts what it holds
	// by path, and a container sees only that.
	if err := os.Chmod(tmp, 0o700); err != nil {
		return JudgeResult{}, err
	}

	// The checker and the submission build side by side; a checker that
	// does not build decides first, as it voids the judgement.
	var out, chkOut JudgeResult
	var chk *checker
	var chkErr error
	var built sync.WaitGroup
	if prog := helperProgram(p); prog != nil {
		built.Go(func() { chk, chkErr = r.buildChecker(ctx, req, *prog, tmp, &chkOut) })
	}
	out.Build, err = r.Build(ctx, req.Lang, req.Source, tmp)
	built.Wait()
	out.Checker = chkOut.Checker
	if chkErr != nil || chkOut.Verdict != "" {
		out.Verdict, out.Note, out.Cause = chkOut.Verdict, chkOut.Note, chkOut.Cause
		return out, chkErr
	}
	if err != nil {
		out.Verdict, out.Note, out.Cause = IE, err.Error(), CauseBuild
		return out, nil
	}
	if !out.Build.OK {
		out.Verdict, out.Note = CE, out.Build.Note
		return out, nil
	}
	limit := TestTimeLimit(p, req.Lang)
	out.TimeLimit, out.MemoryLimit = limit, r.MemoryLimit(p.MemoryBytes)
	slots, cpusets, err := r.slots(req.Parallel)
	if err != nil {
		return out, err
	}
	out.Parallel = slots
	r.observe().Gauge(GaugeSlots, slots)
	defer r.observe().Gauge(GaugeSlots, -slots)
	var cleanups sync.WaitGroup
	defer cleanups.Wait() // nothing of a run is left when Judge returns
	pl := &pipeline{
		n:     len(p.Tests),
		slots: slots,
		prepare: func(ctx context.Context, i, slot int) *pending {
			t := testRun{req: req, test: p.Tests[i], limit: limit, artefacts: out.Build.Dir, chk: chk,
				tmp: tmp, index: i, cpuset: cpusets[slot], cleanups: &cleanups}
			return r.prepareTest(ctx, t)
		},
		retry: req.RetryIE,
		stop: func(tr TestResult) bool {
			return tr.Verdict != AC && (req.StopOnFirstFailure || tr.Verdict == IE || tr.Verdict == CF)
		},
		emit: func(i int, tr TestResult) {
			if req.Progress != nil {
				req.Progress(i+1, len(p.Tests), tr)
			}
		},
	}
	began := time.Now()
	out.Tests = pl.judgeAll(ctx)
	out.TestsWall = time.Since(began)
	out.Verdict, out.Note, out.Cause = submissionVerdict(p, out.Tests)
	if ctx.Err() != nil {
		out.Verdict, out.Note, out.Cause = IE, "judging interrupted: "+ctx.Err().Error(), CauseInterrupted
	}
	return out, nil
}

// submissionVerdict is the verdict of a submission judged on tests: its
// worst test's, or its first rejected test's where the problem says so;
// a failure of ours or the problem's (IE, CF) decides either way.
func submissionVerdict(p *problem.Problem, tests []TestResult) (Verdict, string, Cause) {
	var first, worst *TestResult
	for i := range tests {
		tr := &tests[i]
		if worst == nil || Worse(tr.Verdict, worst.Verdict) {
			worst = tr
		}
		if first == nil && tr.Verdict != AC {
			first = tr
		}
	}
	pick := worst
	if p.FirstRejectionDecides && first != nil && worst.Verdict != IE && worst.Verdict != CF {
		pick = first
	}
	if pick == nil || pick.Verdict == AC {
		return AC, "", ""
	}
	return pick.Verdict, "test " + pick.Name + ": " + pick.Note, pick.Cause
}

// testRun is one test of a judge, as its slot runs it.
type testRun struct {
	req       JudgeRequest
	test      problem.Test
	limit     time.Duration
	artefacts string
	chk       *checker
	tmp       string
	index     int
	cpuset    string          // the slot's core; "" unpinned
	cleanups  *sync.WaitGroup // counts the runs still being removed
	// feedback is the validator's feedback directory of an earlier pass
	// of the same test (multi-pass); "": a new one.
	feedback string
}

// prepareTest makes a test ready for its turn: its runs are armed.
func (r *Runner) prepareTest(ctx context.Context, t testRun) *pending {
	if t.req.Problem.Passes > 0 {
		return r.prepareMultiPass(ctx, t)
	}
	return r.preparePass(ctx, t)
}

// preparePass makes one run of a test ready: the submission's, and the
// checker's or the interactor's beside it.
func (r *Runner) preparePass(ctx context.Context, t testRun) *pending {
	if t.req.Problem.Interactive {
		return r.prepareInteractive(ctx, t)
	}
	return r.prepareBatch(ctx, t)
}

// prepareBatch arms the submission's run on one test; its judge fires it,
// compares as the output crosses, and asks the checker if there is one.
func (r *Runner) prepareBatch(ctx context.Context, t testRun) *pending {
	tr := TestResult{Name: t.test.Name, Sample: t.test.Sample}
	failed := func(v Verdict, note string) *pending {
		tr.Verdict, tr.Note = v, note
		if v == IE {
			tr.Cause = CauseHost
		}
		return &pending{judge: func(context.Context) TestResult { return tr }, drop: func() {}}
	}
	run := runner.RunRequest{
		Image:     t.req.Lang.RunImage,
		Command:   t.req.Lang.Run,
		Env:       t.req.Lang.Env,
		InputFile: t.test.Input,
		Binds:     []bindings.Bind{{Source: t.artefacts, Destination: lang.ArtefactDir}},
	}
	testLimits(t.req.Problem, t.req.Lang, t.limit).Set(&run)
	run.Limits.CPUSet = t.cpuset
	var closers []io.Closer
	closeAll := func() {
		for _, c := range closers {
			c.Close()
		}
	}
	var cmp *compare.Comparator
	var outPath string
	if t.chk == nil {
		comparator := t.req.Problem.Comparator
		if t.test.Comparator != "" {
			comparator = t.test.Comparator
		}
		spec, err := compare.Parse(comparator)
		if err != nil {
			return failed(CF, "comparator: "+err.Error())
		}
		ans, err := os.Open(t.test.Answer)
		if err != nil {
			return failed(CF, "answer: "+err.Error())
		}
		closers = append(closers, ans)
		cmp = compare.New(spec, ans)
		run.Output, run.Wait.Stop = cmp, cmp.Differs()
	} else {
		outPath = filepath.Join(t.tmp, fmt.Sprintf("output-%d", t.index))
		f, err := os.OpenFile(outPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return failed(IE, err.Error())
		}
		closers = append(closers, f)
		run.Output = f
	}
	armed, armErr := r.armCounted(ctx, run, t.cleanups)
	var checker *runner.Armed
	var checkErr error
	msg := &headBuffer{keep: checkerOutput}
	var feedback string
	if t.chk != nil && armErr == nil {
		var binds []bindings.Bind
		if feedback, binds, checkErr = feedbackDir(t.req.Problem.Validator(), t); checkErr == nil {
			checker, checkErr = r.armCounted(ctx, checkRequest(t.req.Problem, t.chk, t.test, outPath, binds, msg, t.cpuset), t.cleanups)
		}
	}
	judge := func(ctx context.Context) TestResult {
		defer closeAll()
		o := testOutcome{limit: t.limit, matched: true, err: armErr, memoryExit: t.req.Lang.MemoryExitCode}
		if armErr == nil {
			o.res, o.err = armed.Fire(ctx)
		}
		if cmp != nil {
			o.matched, o.diff = cmp.Close()
		}
		tr = judgeTest(tr, o)
		if tr.Verdict != AC || t.chk == nil {
			if checker != nil {
				checker.Discard(context.WithoutCancel(ctx))
			}
			return tr
		}
		closeAll() // the checker reads the whole output
		var res runner.RunResult
		err := checkErr
		if err == nil {
			res, err = checker.Fire(ctx)
		}
		j := helperVerdict(t.req.Problem, "checker", res, err, msg.String(), feedback)
		tr.Verdict, tr.Note, tr.Points = j.Verdict, j.Note, j.Points
		if tr.Verdict == IE {
			tr.Cause = CauseChecker
		}
		return tr
	}
	drop := func() {
		for _, a := range []*runner.Armed{armed, checker} {
			if a != nil {
				a.Discard(context.WithoutCancel(ctx))
			}
		}
		closeAll()
	}
	return &pending{judge: judge, drop: drop}
}

// armCounted arms a run whose removal wg waits for.
func (r *Runner) armCounted(ctx context.Context, req runner.RunRequest, wg *sync.WaitGroup) (*runner.Armed, error) {
	a, err := r.Arm(ctx, req)
	if a != nil {
		wg.Add(1)
		go func() { <-a.Done(); wg.Done() }()
	}
	return a, err
}

// slots resolves JudgeRequest.Parallel against the Runner's cores: how
// many tests run at once, and each slot's cpuset ("" for one slot, which
// runs unpinned as a single run always did).
func (r *Runner) slots(parallel int) (int, []string, error) {
	n := parallel
	if n == 0 {
		n = max(1, len(r.Cores))
	}
	if n < 0 {
		return 0, nil, &runner.RequestError{Field: "parallel", Err: fmt.Errorf("%d: want 0 (one per core), 1 (one test at a time) or more", parallel)}
	}
	if n == 1 {
		return 1, []string{""}, nil
	}
	if n > len(r.Cores) {
		return 0, nil, &runner.RequestError{Field: "parallel", Err: fmt.Errorf("%d tests at once need %d cores of their own; podjail is given %d (%v)", n, n, len(r.Cores), r.Cores)}
	}
	sets := make([]string, n)
	for i := range sets {
		sets[i] = strconv.Itoa(r.Cores[i])
	}
	return n, sets, nil
}

// imagesPresent refuses to judge with an image missing: that is the
// setup's fault, found before anything runs.
func (r *Runner) imagesPresent(ctx context.Context, images ...string) error {
	for _, img := range images {
		if img == "" {
			continue
		}
		ok, err := r.Runtime.ImageExists(ctx, img)
		if err != nil {
			return err
		}
		if !ok {
			return withImageHint(&bindings.ImageMissingError{Image: img})
		}
	}
	return nil
}

// withImageHint adds to a missing image of podjail's own table
// (localhost/podjail-NAME) the command that builds it.
func withImageHint(err *bindings.ImageMissingError) error {
	name, ok := strings.CutPrefix(err.Image, "localhost/podjail-")
	if name, _, _ = strings.Cut(name, ":"); !ok || name == "" {
		return err
	}
	return fmt.Errorf("%w; podjail's own images are built from its source tree: podman build -t localhost/podjail-%s -f contrib/images/%s.Containerfile", err, name, name)
}
