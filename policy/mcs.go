package policy

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/opencontainers/selinux/go-selinux"
)

// categories is the MCS range runs draw from, c0..c1023: Podman's (and
// go-selinux's) default category range, so the targeted policy knows them.
const categories = 1024

// catSet is the category set of an MCS level, as far as runs can meet it.
type catSet struct {
	bits [categories / 64]uint64
	// outside is set for a category >= categories: never one of a run's,
	// so such a level can never be dominated by a run's pair.
	outside bool
}

func (s *catSet) add(c uint64) {
	if c >= categories {
		s.outside = true
		return
	}
	s.bits[c/64] |= 1 << (c % 64)
}

func (s *catSet) has(c uint32) bool { return s.bits[c/64]&(1<<(c%64)) != 0 }

func (s *catSet) count() int {
	n := 0
	for _, w := range s.bits {
		n += bits.OnesCount64(w)
	}
	return n
}

// empty is a level with no category (s0): every level dominates it, so it
// shares nothing worth keeping apart.
func (s *catSet) empty() bool { return !s.outside && s.count() == 0 }

// conflicts reports whether a run at pair {a, b} could reach, or be
// reached by, a process at s: MCS lets a level read what a level whose
// categories are a subset of its own labelled.
func (s *catSet) conflicts(a, b uint32) bool {
	if s.empty() {
		return false
	}
	if s.has(a) && s.has(b) {
		return true // s dominates the run
	}
	if s.outside {
		return false
	}
	rest := *s
	rest.bits[a/64] &^= 1 << (a % 64)
	rest.bits[b/64] &^= 1 << (b % 64)
	return rest.count() == 0 // the run dominates s
}

// pairLevel is the level of categories a < b.
func pairLevel(a, b uint32) string { return fmt.Sprintf("s0:c%d,c%d", a, b) }

// parseLevel reads a level ("s0:c1,c2", "s0-s0:c0.c1023") or a whole label
// ("system_u:system_r:container_t:s0:c1,c2"), as inspect shows it. key
// names it in a pool: a two-category s0 level in pairLevel's spelling,
// whichever order its categories came in, else the level as given.
func parseLevel(s string) (key string, set catSet, err error) {
	level := strings.TrimSpace(s)
	if strings.Count(level, ":") >= 2 {
		con, err := selinux.NewContext(level)
		if err != nil {
			return "", set, fmt.Errorf("SELinux label %q: %w", s, err)
		}
		level = con["level"]
	}
	if level == "" {
		return "", set, nil
	}
	// A range's high end is the clearance: what the process can reach.
	high := level
	if _, h, ok := strings.Cut(level, "-"); ok {
		high = h
	}
	sens, cats, _ := strings.Cut(high, ":")
	if cats != "" {
		for item := range strings.SplitSeq(cats, ",") {
			lo, hi, isRange := strings.Cut(item, ".")
			l, err := category(lo)
			if err != nil {
				return "", set, fmt.Errorf("SELinux level %q: %w", s, err)
			}
			h := l
			if isRange {
				if h, err = category(hi); err != nil || h < l {
					return "", set, fmt.Errorf("SELinux level %q: bad range %q", s, item)
				}
			}
			for c := l; c <= h && c < categories; c++ {
				set.add(c)
			}
			if h >= categories {
				set.outside = true
			}
		}
	}
	key = level
	if sens == "s0" && !set.outside && set.count() == 2 {
		a, b := set.pair()
		key = pairLevel(a, b)
	}
	return key, set, nil
}

// category parses "c17".
func category(s string) (uint64, error) {
	n, ok := strings.CutPrefix(s, "c")
	if !ok {
		return 0, fmt.Errorf("bad category %q", s)
	}
	c, err := strconv.ParseUint(n, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("bad category %q: %w", s, err)
	}
	return c, nil
}

// pair returns the two lowest categories of s.
func (s *catSet) pair() (a, b uint32) {
	found := 0
	for c := uint32(0); c < categories && found < 2; c++ {
		if s.has(c) {
			if found == 0 {
				a = c
			} else {
				b = c
			}
			found++
		}
	}
	return a, b
}
