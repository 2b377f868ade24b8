package plugin

import (
	"context"
	"strings"
	"sync"
	"time"
)

// lookahead is how many tests each slot arms ahead of its turn: enough
// that the runtime's work (create, attach, start, the shim's setup) is
// done while earlier tests run, few enough that a judge that stops early
// wastes little.
const lookahead = 2

// Lookahead is how many tests each slot of a judge keeps armed ahead:
// podjail bench keeps as many containers alive beside its floor.
const Lookahead = lookahead

// pipeline judges n tests on P slots. Slot w takes tests w, w+P, w+2P...
// in order, each armed ahead (prepare) while the slot's earlier tests run
// (run). Results reach emit in the tests' order; when stop says a result
// ends the judge, the tests after it are not started (or are cancelled
// and their results dropped), as if they had run one after the other.
type pipeline struct {
	n, slots int
	prepare  func(ctx context.Context, i, slot int) *pending
	// retry judges a test that ended IE once more, freshly prepared.
	retry bool
	stop  func(TestResult) bool
	emit  func(i int, t TestResult)

	mu      sync.Mutex
	results []*TestResult
	next    int // first test not yet emitted
	cutoff  int // last test that may count: n-1 until one stops the judge
	cancels []context.CancelFunc
}

// pending is a test made ready for its turn: judge it once, or drop it.
type pending struct {
	judge func(ctx context.Context) TestResult
	drop  func() // frees what was made ready, unjudged
}

// judgeAll runs the pipeline and returns the emitted results, in order.
func (p *pipeline) judgeAll(ctx context.Context) []TestResult {
	p.results = make([]*TestResult, p.n)
	p.cutoff = p.n - 1
	ctxs := make([]context.Context, p.n)
	p.cancels = make([]context.CancelFunc, p.n)
	for i := range p.n {
		ctxs[i], p.cancels[i] = context.WithCancel(ctx)
	}
	defer func() {
		for _, c := range p.cancels {
			c()
		}
	}()
	var wg sync.WaitGroup
	for w := range p.slots {
		wg.Go(func() { p.slot(ctxs, w) })
	}
	wg.Wait()
	out := make([]TestResult, 0, p.next)
	for _, r := range p.results[:p.next] {
		out = append(out, *r)
	}
	return out
}

// slot runs its share of the tests, arming lookahead of them ahead.
func (p *pipeline) slot(ctxs []context.Context, w int) {
	var mine []int
	for i := w; i < p.n; i += p.slots {
		mine = append(mine, i)
	}
	ahead := make([]chan *pending, len(mine))
	arm := func(k int) {
		if k >= len(mine) || !p.counts(mine[k]) {
			return
		}
		ch := make(chan *pending, 1)
		ahead[k] = ch
		go func() { ch <- p.prepare(ctxs[mine[k]], mine[k], w) }()
	}
	for k := range min(lookahead, len(mine)) {
		arm(k)
	}
	for k, i := range mine {
		if ahead[k] == nil || !p.counts(i) {
			break
		}
		turn := time.Now()
		pend := <-ahead[k]
		ahead[k] = nil
		arm(k + lookahead)
		if !p.counts(i) {
			pend.drop()
			break
		}
		tr := pend.judge(ctxs[i])
		if tr.Verdict == IE && p.retry && ctxs[i].Err() == nil {
			first := tr.Note
			tr = p.prepare(ctxs[i], i, w).judge(ctxs[i])
			tr.Note = strings.TrimSuffix("judged again after IE ("+first+"); "+tr.Note, "; ")
		}
		tr.Critical = time.Since(turn)
		p.put(i, tr)
	}
	for _, ch := range ahead {
		if ch != nil {
			(<-ch).drop()
		}
	}
}

// counts reports whether test i can still be part of the judgement.
func (p *pipeline) counts(i int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return i <= p.cutoff
}

// put records test i's result, moves the cutoff if it ends the judge
// (cancelling the tests after it), and emits what is now in order.
func (p *pipeline) put(i int, tr TestResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i > p.cutoff {
		return
	}
	p.results[i] = &tr
	if p.stop(tr) {
		for j := i + 1; j <= p.cutoff; j++ {
			p.cancels[j]()
		}
		p.cutoff = i
	}
	for p.next <= p.cutoff && p.results[p.next] != nil {
		p.emit(p.next, *p.results[p.next])
		p.next++
	}
}
