package plugin

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// pipeRecorder builds a pipeline whose tests are judged by judge(i) and
// records what the pipeline did with each: prepared, judged, dropped,
// emitted, and how many of a slot's tests were held at once.
type pipeRecorder struct {
	t       *testing.T
	mu      sync.Mutex
	prep    map[int]int // test -> slot
	judged  []int
	dropped []int
	emitted []int
	held    map[int]int // slot -> tests prepared, not yet judged or dropped
	maxHeld int
}

func newPipeRecorder(t *testing.T) *pipeRecorder {
	return &pipeRecorder{t: t, prep: map[int]int{}, held: map[int]int{}}
}

func (r *pipeRecorder) pipeline(n, slots int, judge func(ctx context.Context, i int) TestResult, stop func(TestResult) bool) *pipeline {
	return &pipeline{
		n: n, slots: slots,
		prepare: func(ctx context.Context, i, slot int) *pending {
			r.mu.Lock()
			if _, again := r.prep[i]; again {
				r.t.Errorf("test %d prepared twice", i)
			}
			if i%slots != slot {
				r.t.Errorf("test %d prepared on slot %d of %d", i, slot, slots)
			}
			r.prep[i] = slot
			r.held[slot]++
			r.maxHeld = max(r.maxHeld, r.held[slot])
			r.mu.Unlock()
			var once sync.Once
			release := func(what *[]int) {
				once.Do(func() {
					r.mu.Lock()
					*what = append(*what, i)
					r.held[slot]--
					r.mu.Unlock()
				})
			}
			return &pending{
				judge: func(ctx context.Context) TestResult {
					tr := judge(ctx, i)
					release(&r.judged)
					return tr
				},
				drop: func() { release(&r.dropped) },
			}
		},
		stop: stop,
		emit: func(i int, tr TestResult) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if tr.Name != fmt.Sprint(i) {
				r.t.Errorf("emitted test %d with the result of %s", i, tr.Name)
			}
			r.emitted = append(r.emitted, i)
		},
	}
}

func notAC(tr TestResult) bool { return tr.Verdict != AC }

// Tests finish out of order across slots; they are emitted in order, each
// once, and a slot never holds more than its turn and its lookahead.
func TestPipelineEmitsInTestOrder(t *testing.T) {
	const n, slots = 7, 3
	rec := newPipeRecorder(t)
	started := make([]chan struct{}, n)
	release := make([]chan struct{}, n)
	for i := range n {
		started[i], release[i] = make(chan struct{}), make(chan struct{})
	}
	p := rec.pipeline(n, slots, func(_ context.Context, i int) TestResult {
		close(started[i])
		<-release[i]
		return TestResult{Name: fmt.Sprint(i), Verdict: AC}
	}, notAC)
	done := make(chan []TestResult)
	go func() { done <- p.judgeAll(context.Background()) }()
	// Each slot's tests in its order, the slots' last tests first.
	for _, i := range []int{2, 1, 0, 5, 4, 3, 6} {
		<-started[i]
		close(release[i])
	}
	got := <-done
	var names []string
	for _, tr := range got {
		names = append(names, tr.Name)
		if tr.Critical <= 0 {
			t.Errorf("test %s: critical path %v", tr.Name, tr.Critical)
		}
	}
	if !slices.Equal(names, []string{"0", "1", "2", "3", "4", "5", "6"}) || !slices.Equal(rec.emitted, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("results %v, emitted %v", names, rec.emitted)
	}
	if len(rec.dropped) != 0 || len(rec.judged) != n {
		t.Errorf("judged %v, dropped %v", rec.judged, rec.dropped)
	}
	if rec.maxHeld > lookahead+1 {
		t.Errorf("a slot held %d tests at once, lookahead is %d", rec.maxHeld, lookahead)
	}
}

// One slot: the tests run one after the other; after the first failure
// nothing more is judged and what was armed ahead is dropped.
func TestPipelineOneSlotStopsAtTheFailure(t *testing.T) {
	rec := newPipeRecorder(t)
	p := rec.pipeline(6, 1, func(_ context.Context, i int) TestResult {
		v := AC
		if i == 1 {
			v = WA
		}
		return TestResult{Name: fmt.Sprint(i), Verdict: v}
	}, notAC)
	got := p.judgeAll(context.Background())
	if len(got) != 2 || got[1].Verdict != WA {
		t.Fatalf("results %+v", got)
	}
	slices.Sort(rec.dropped)
	if !slices.Equal(rec.judged, []int{0, 1}) || !slices.Equal(rec.dropped, []int{2, 3}) || len(rec.prep) != 4 {
		t.Errorf("judged %v, dropped %v, prepared %v", rec.judged, rec.dropped, rec.prep)
	}
}

// Two slots: test 2 fails while test 3 runs on the other slot. Test 3 is
// cancelled and its result dropped; tests 4 and 5 are never judged;
// everything prepared is judged or dropped exactly once.
func TestPipelineCutoffCancelsTheTestsAfter(t *testing.T) {
	rec := newPipeRecorder(t)
	running3 := make(chan struct{})
	cancelled3 := make(chan bool, 1)
	p := rec.pipeline(6, 2, func(ctx context.Context, i int) TestResult {
		switch i {
		case 2:
			<-running3
			return TestResult{Name: "2", Verdict: TLE}
		case 3:
			close(running3)
			<-ctx.Done()
			cancelled3 <- true
			return TestResult{Name: "3", Verdict: IE, Note: "interrupted"}
		}
		return TestResult{Name: fmt.Sprint(i), Verdict: AC}
	}, notAC)
	got := p.judgeAll(context.Background())
	if len(got) != 3 || got[2].Verdict != TLE {
		t.Fatalf("results %+v", got)
	}
	if !<-cancelled3 {
		t.Error("test 3 not cancelled")
	}
	slices.Sort(rec.judged)
	if !slices.Equal(rec.judged, []int{0, 1, 2, 3}) || !slices.Equal(rec.emitted, []int{0, 1, 2}) {
		t.Errorf("judged %v, emitted %v", rec.judged, rec.emitted)
	}
	for i := range rec.prep {
		if slices.Contains(rec.judged, i) == slices.Contains(rec.dropped, i) {
			t.Errorf("test %d: judged %v, dropped %v", i, rec.judged, rec.dropped)
		}
	}
	for _, i := range []int{4, 5} {
		if slices.Contains(rec.judged, i) {
			t.Errorf("test %d judged after the cutoff", i)
		}
	}
}

// A failure on a later test does not hide an earlier one still running:
// the cutoff moves back to the earlier failure.
func TestPipelineEarlierFailureWins(t *testing.T) {
	rec := newPipeRecorder(t)
	failed1 := make(chan struct{})
	p := rec.pipeline(4, 2, func(ctx context.Context, i int) TestResult {
		switch i {
		case 0:
			<-failed1 // test 1 fails first, then test 0
			return TestResult{Name: "0", Verdict: WA}
		case 1:
			defer close(failed1)
			return TestResult{Name: "1", Verdict: RTE}
		}
		return TestResult{Name: fmt.Sprint(i), Verdict: AC}
	}, notAC)
	got := p.judgeAll(context.Background())
	if len(got) != 1 || got[0].Name != "0" || got[0].Verdict != WA {
		t.Fatalf("results %+v", got)
	}
	if slices.Contains(rec.judged, 2) || slices.Contains(rec.judged, 3) {
		t.Errorf("judged %v after the cutoff", rec.judged)
	}
}
