package plugin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/shim"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu     sync.Mutex
	judged []JudgeResult
	errs   []error
	built  []BuildResult
	phases map[Phase]int
	gauges map[Gauge]int // the sum of the deltas
	peaks  map[Gauge]int // the highest sum
	armed  map[ArmedEvent]int
	swept  map[Orphan]int
}

func newRecorder() *recorder {
	return &recorder{phases: map[Phase]int{}, gauges: map[Gauge]int{}, peaks: map[Gauge]int{}, armed: map[ArmedEvent]int{}, swept: map[Orphan]int{}}
}

func (o *recorder) Judged(res JudgeResult, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.judged, o.errs = append(o.judged, res), append(o.errs, err)
}

func (o *recorder) Built(res BuildResult, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.built = append(o.built, res)
}

func (o *recorder) Phase(p Phase, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d < 0 {
		panic(fmt.Sprintf("phase %s took %v", p, d))
	}
	o.phases[p]++
}

func (o *recorder) Gauge(g Gauge, delta int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gauges[g] += delta
	o.peaks[g] = max(o.peaks[g], o.gauges[g])
}

func (o *recorder) Armed(e ArmedEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.armed[e]++
}

func (o *recorder) Swept(what Orphan, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.swept[what] += n
}

// A judge of four tests, two at once: the Observer is told the judge once
// (its verdicts, an IE's cause), the build, each phase of each test's
// container once, and the slots and live runs come back to 0.
func TestObserverSeesAJudge(t *testing.T) {
	p := fakeProblem(t, "1", "2", "3", "4")
	progs := map[string]runnertest.Program{
		"1.in": right("1"),
		"2.in": {Stdout: []byte("answer 1\n"), CPU: time.Millisecond},
		"3.in": {Exit: 3, CPU: time.Millisecond},
		"4.in": {NoReport: true, CPU: time.Millisecond},
	}
	r, rt, cg := fakeRunner(t, runnertest.ByInput(progs))
	r.Cores = []int{0, 1}
	obs := newRecorder()
	r.Observer = obs
	req := judgeReq(p)
	req.Parallel = 2
	res, err := r.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.judged) != 1 || obs.errs[0] != nil || obs.judged[0].Verdict != IE || obs.judged[0].Cause != CauseShim {
		t.Fatalf("told of %d judges (%v); want one, IE for the shim's failure (judged %s, cause %q)", len(obs.judged), obs.errs, res.Verdict, res.Cause)
	}
	var got []Verdict
	for _, tr := range obs.judged[0].Tests {
		got = append(got, tr.Verdict)
		if (tr.Verdict == IE) != (tr.Cause != "") {
			t.Errorf("test %s: %s with cause %q", tr.Name, tr.Verdict, tr.Cause)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint([]Verdict{AC, WA, RTE, IE}) {
		t.Errorf("verdicts told: %v", got)
	}
	if len(obs.built) != 1 || !obs.built[0].OK {
		t.Errorf("builds told: %+v; want one that built", obs.built)
	}
	for _, ph := range Phases {
		if obs.phases[ph] != 4 {
			t.Errorf("phase %s told %d times; want 4, once a test", ph, obs.phases[ph])
		}
	}
	if obs.gauges[GaugeSlots] != 0 || obs.peaks[GaugeSlots] != 2 || obs.gauges[GaugeLiveRuns] != 0 || obs.peaks[GaugeLiveRuns] < 1 {
		t.Errorf("gauges now %v, at most %v; want 0 now, 2 slots at most and a live run", obs.gauges, obs.peaks)
	}
}

// A refused judge is told with its error, which is nobody's fault of ours.
func TestObserverSeesARefusedJudge(t *testing.T) {
	r, _, _ := fakeRunner(t, nil)
	obs := newRecorder()
	r.Observer = obs
	if _, err := r.Judge(context.Background(), JudgeRequest{}); err == nil {
		t.Fatal("a judge with no problem was not refused")
	}
	if len(obs.errs) != 1 || obs.errs[0] == nil || CauseOf(obs.errs[0]) != "" {
		t.Errorf("told %v; want the refusal, with no cause of ours", obs.errs)
	}
}

// Warm tells what became of each call and of each run it armed ahead:
// the first of a shape missed, the later ones took theirs; the spare is
// ready until Close removes it unused.
func TestObserverSeesWarm(t *testing.T) {
	r, rt, cg := fakeRunner(t, one(runnertest.Program{}))
	obs := newRecorder()
	r.Observer = obs
	w := NewWarm(r, t.TempDir(), 0)
	ctx := context.Background()
	req := runner.RunRequest{Image: "img", Command: []string{"/p"}}
	for range 3 {
		if _, err := w.Run(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	// The spare is armed behind the last run, off its way: waited for.
	for deadline := time.Now().Add(10 * time.Second); w.Ready() < 1 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
	}
	if n := w.Ready(); n != 1 {
		t.Errorf("Ready() = %d with the spare armed; want 1", n)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := w.Ready(); n != 0 {
		t.Errorf("Ready() = %d after Close; want 0", n)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	want := map[ArmedEvent]int{ArmedMissed: 1, ArmedTaken: 2, ArmedClosed: 1}
	if fmt.Sprint(obs.armed) != fmt.Sprint(want) {
		t.Errorf("armed events %v; want %v", obs.armed, want)
	}
	// Three fired and the spare: each made and started, three run, all removed.
	if p := obs.phases; p[PhaseCreate] != 4 || p[PhaseStart] != 4 || p[PhaseRun] != 3 || p[PhaseRemove] != 4 {
		t.Errorf("phases %v; want create 4, start 4, run 3, remove 4", p)
	}
}

func TestCauseOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Cause
	}{
		{nil, ""},
		{&runner.RequestError{Field: "input", Err: errors.New("bad")}, ""},
		{fmt.Errorf("arm: %w", context.Canceled), CauseInterrupted},
		{&runner.ShimError{Step: string(shim.StepProbe), Err: "no"}, CauseShim},
		{&bindings.ImageMissingError{Image: "x"}, CauseHost},
		{fmt.Errorf("start slice: %w", cgroupdrv.ErrJob), CauseHost},
		{runner.MarkHost(errors.New("read cpu.stat")), CauseHost},
		{&bindings.UnreachableError{Socket: "unix:///x", Err: errors.New("refused")}, CauseRuntime},
		{fmt.Errorf("create: %w", bindings.ErrPodman), CauseRuntime},
		{fmt.Errorf("arm: the shim did not get ready: %w", context.DeadlineExceeded), CauseRuntime},
		{errors.New("something else"), CauseOther},
	} {
		if got := CauseOf(c.err); got != c.want {
			t.Errorf("CauseOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
