package sandbox

// What each caller holds of a server at once: its calls under way and its
// handles. A caller past its share is refused at once with
// ErrResourceExhausted, saying how many it holds and which flag raises the
// bound; it never waits in the server. A call that waited could not be
// told from one that hangs, and a front whose runs talk to each other (a
// Communication task's manager and users) would wait on itself. Nothing of
// a refused call ran, so a refusal is never a verdict.

import (
	"context"
	"fmt"
	"os"
	"sync"

	"google.golang.org/grpc/peer"
)

// callerOf is the uid a call is counted against: its peer's (SO_PEERCRED,
// through AllowPeers), else this process's own (the judge that started its
// plugin: every call is its own).
func callerOf(ctx context.Context) uint32 {
	if p, ok := peer.FromContext(ctx); ok {
		if a, ok := p.Addr.(PeerAddr); ok {
			return a.Peer.UID
		}
	}
	return uint32(os.Geteuid())
}

// admitCall decides whether a caller with mine calls under way, out of all
// under way on the server, may start one more: nil, or why not.
func (b Bounds) admitCall(mine, all int) error {
	switch {
	case mine >= b.MaxCallsPerCaller:
		return busy(fmt.Sprintf("busy: %d calls of yours are under way; the limit is %d (--max-calls-per-caller): wait for one to end and call again", mine, b.MaxCallsPerCaller))
	case all >= b.MaxCalls:
		return busy(fmt.Sprintf("busy: %d calls are under way on this service; the limit is %d (--max-calls): call again once one has ended", all, b.MaxCalls))
	}
	return nil
}

// admitHandle decides whether a caller keeping kept handles may have one
// more: nil, or why not.
func (b Bounds) admitHandle(kept int) error {
	if kept < b.MaxHandles {
		return nil
	}
	return busy(fmt.Sprintf("compile: you keep %d handles, the most this service keeps for one caller (--max-handles): release some handles (Release) and compile again", kept))
}

func busy(msg string) error { return Mark(fmt.Errorf("%s", msg), ErrResourceExhausted) }

// shares counts, by caller, the calls under way and the handles kept.
type shares struct {
	b Bounds // with its defaults

	mu    sync.Mutex
	calls map[uint32]int
	all   int
	kept  map[uint32]int    // handles, by owner
	owner map[string]uint32 // handle → owner
}

func newShares(b Bounds) *shares {
	return &shares{b: b.WithDefaults(), calls: map[uint32]int{}, kept: map[uint32]int{}, owner: map[string]uint32{}}
}

// enter counts a call of ctx's caller, or refuses it; leave ends it.
func (s *shares) enter(ctx context.Context) (leave func(), err error) {
	uid := callerOf(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.b.admitCall(s.calls[uid], s.all); err != nil {
		return nil, err
	}
	s.calls[uid]++
	s.all++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.all--
			if s.calls[uid]--; s.calls[uid] == 0 {
				delete(s.calls, uid)
			}
		})
	}, nil
}

// handleSlot is a handle reserved for a caller before its build: kept
// under the handle's id once built, else given back by drop.
type handleSlot struct {
	s    *shares
	uid  uint32
	once sync.Once
}

// reserveHandle reserves a handle for ctx's caller, or refuses it: before
// the build, so that a caller past its share does not build first.
func (s *shares) reserveHandle(ctx context.Context) (*handleSlot, error) {
	uid := callerOf(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.b.admitHandle(s.kept[uid]); err != nil {
		return nil, err
	}
	s.kept[uid]++
	return &handleSlot{s: s, uid: uid}, nil
}

// keep makes the slot the handle id's, until released.
func (h *handleSlot) keep(id string) {
	h.once.Do(func() {
		h.s.mu.Lock()
		h.s.owner[id] = h.uid
		h.s.mu.Unlock()
	})
}

// drop gives the slot back unless it was kept.
func (h *handleSlot) drop() {
	h.once.Do(func() { h.s.give(h.uid) })
}

// released gives back the slot of handle id.
func (s *shares) released(id string) {
	s.mu.Lock()
	uid, ok := s.owner[id]
	delete(s.owner, id)
	s.mu.Unlock()
	if ok {
		s.give(uid)
	}
}

func (s *shares) give(uid uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept[uid]--; s.kept[uid] <= 0 {
		delete(s.kept, uid)
	}
}
