package policy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

// randomTries is how many random pairs Reserve draws before it scans for a
// free one: among 523,776 pairs, a draw fails about once in a thousand
// with a few hundred levels held.
const randomTries = 64

// LevelPool hands out per-run SELinux MCS levels, "s0:cA,cB" with
// A < B < 1024, so that no two live runs share one (and so no run can
// read another's files). The runner owns one pool: it reserves a level
// before creating a run's container, passes it to Podman (LabelOpts),
// releases it once the container is removed, and after a restart adopts
// the levels of the containers still alive before reserving any.
//
// The pool allocates itself rather than through go-selinux's
// ContainerLabels/ReserveLabel: that table is process-wide (shared with
// any other user of the library, so tests cannot isolate it), it returns a
// whole process label from the host's lxc_contexts rather than a level,
// and it loops forever once every pair is taken. The levels are the same
// shape Podman draws (two random categories of c0..c1023) and skip
// s0:c1022,c1023, go-selinux's privileged-container mount level.
//
// It is safe for concurrent use. The zero value is a disabled pool.
type LevelPool struct {
	enabled bool
	intn    func(n uint32) uint32 // uniform in [0, n)

	mu    sync.Mutex
	taken map[string]catSet // by parseLevel's key
}

// NewLevelPool returns the pool of this host: enabled when SELinux with
// MCS is (MCSEnabled), a no-op otherwise. Randomness need not be secret
// here: a program never picks its level, and uniqueness is checked.
func NewLevelPool() *LevelPool {
	return newLevelPool(MCSEnabled(), rand.Uint32N)
}

// newLevelPool is NewLevelPool with the host check and the random source
// given.
func newLevelPool(enabled bool, intn func(uint32) uint32) *LevelPool {
	return &LevelPool{enabled: enabled, intn: intn, taken: make(map[string]catSet)}
}

// Enabled reports whether the pool hands out levels.
func (p *LevelPool) Enabled() bool { return p.enabled }

// Reserve takes and returns a level that no held level (reserved or
// adopted) equals, dominates or is dominated by. With the pool disabled it
// returns "" and nil: the run gets Podman's own labelling.
func (p *LevelPool) Reserve() (level string, err error) {
	if !p.enabled {
		return "", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for range randomTries {
		a, b := p.intn(categories), p.intn(categories)
		if a > b {
			a, b = b, a
		}
		if p.freeLocked(a, b) {
			return p.takeLocked(a, b), nil
		}
	}
	// Unlucky or nearly full: look at every pair, from a random start.
	start := p.intn(categories)
	for i := range uint32(categories) {
		a := (start + i) % categories
		for b := a + 1; b < categories; b++ {
			if p.freeLocked(a, b) {
				return p.takeLocked(a, b), nil
			}
		}
	}
	return "", fmt.Errorf("%w: %d levels held", ErrNoLevel, len(p.taken))
}

// freeLocked reports whether pair {a, b} may be handed out.
func (p *LevelPool) freeLocked(a, b uint32) bool {
	if a == b || (a == categories-2 && b == categories-1) {
		return false
	}
	if _, ok := p.taken[pairLevel(a, b)]; ok {
		return false
	}
	for _, s := range p.taken {
		if s.conflicts(a, b) {
			return false
		}
	}
	return true
}

func (p *LevelPool) takeLocked(a, b uint32) string {
	var s catSet
	s.add(uint64(a))
	s.add(uint64(b))
	level := pairLevel(a, b)
	p.taken[level] = s
	return level
}

// Release hands level (as Reserve returned it, or as adopted, in either
// category order) back to the pool. Releasing a level not held, or "",
// does nothing.
func (p *LevelPool) Release(level string) {
	if !p.enabled || strings.TrimSpace(level) == "" {
		return
	}
	key, _, err := parseLevel(level)
	if err != nil {
		return // Adopt never held it
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.taken, key)
}

// Adopt marks the levels of live containers as taken, so Reserve avoids
// them: call it after a restart with the ProcessLabel (or MountLabel, or
// bare level) of every container on the Podman service, podjail's or not,
// since Podman draws its own levels from the same range. Levels without a
// category, and "", are skipped; a level adopted twice is held once. The
// error names the levels it could not read, which are not held: a runner
// that cannot tell whom a level clashes with should not start runs.
func (p *LevelPool) Adopt(levels []string) error {
	if !p.enabled {
		return nil
	}
	var errs []error
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range levels {
		key, set, err := parseLevel(l)
		switch {
		case err != nil:
			errs = append(errs, err)
		case !set.empty():
			p.taken[key] = set
		}
	}
	return errors.Join(errs...)
}

// Len is the number of levels held, reserved or adopted.
func (p *LevelPool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.taken)
}

// LabelOpts are the SELinux options of a run's container for level, as
// Podman's spec takes them (--security-opt label=level:…). Zero value
// ("", a disabled pool): none.
func LabelOpts(level string) []string {
	if level == "" {
		return nil
	}
	return []string{"level:" + level}
}
