package policy

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"sync"
	"testing"
)

// script returns the given numbers in turn, then falls back to rng.
func script(rng *rand.Rand, nums ...uint32) func(uint32) uint32 {
	var mu sync.Mutex
	return func(n uint32) uint32 {
		mu.Lock()
		defer mu.Unlock()
		if len(nums) > 0 {
			v := nums[0]
			nums = nums[1:]
			return v % n
		}
		return rng.Uint32N(n)
	}
}

func seeded() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

var levelRE = regexp.MustCompile(`^s0:c([0-9]+),c([0-9]+)$`)

func TestLevelPoolDistinct(t *testing.T) {
	p := newLevelPool(true, seeded().Uint32N)
	seen := map[string]bool{}
	for range 5000 {
		l, err := p.Reserve()
		if err != nil {
			t.Fatal(err)
		}
		m := levelRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("level %q", l)
		}
		if key, _, _ := parseLevel(l); key != l {
			t.Fatalf("level %q is not canonical (%q)", l, key)
		}
		if l == "s0:c1022,c1023" {
			t.Fatal("handed out the privileged mount level")
		}
		if seen[l] {
			t.Fatalf("%s handed out twice", l)
		}
		seen[l] = true
	}
	if p.Len() != 5000 {
		t.Errorf("Len %d", p.Len())
	}
}

func TestLevelPoolRelease(t *testing.T) {
	// Draws: (2,1) twice, then (3,4).
	p := newLevelPool(true, script(seeded(), 2, 1, 2, 1, 3, 4))
	a, _ := p.Reserve()
	b, _ := p.Reserve()
	if a != "s0:c1,c2" || b != "s0:c3,c4" {
		t.Fatalf("got %s %s; a reserved pair was handed out again?", a, b)
	}
	p.Release("s0:c2,c1") // either spelling
	p.Release("s0:c9,c10")
	p.Release("")
	p.Release("garbage:")
	p.intn = script(seeded(), 1, 2)
	if c, _ := p.Reserve(); c != "s0:c1,c2" {
		t.Errorf("released level not reused: %s", c)
	}
	if p.Len() != 2 {
		t.Errorf("Len %d, want 2", p.Len())
	}
}

func TestLevelPoolAdopt(t *testing.T) {
	p := newLevelPool(true, nil)
	err := p.Adopt([]string{
		"system_u:system_r:container_t:s0:c2,c1",
		"system_u:object_r:container_file_t:s0:c1,c2", // same container
		"s0:c5",                      // a run at {5, x} would dominate it
		"s0:c7,c8,c9",                // dominates {7, 8}
		"system_u:system_r:spc_t:s0", // no category: nothing to keep apart
		"",
		"system_u:system_r:container_t",
		"s0:cX",
	})
	if err == nil {
		t.Error("unreadable level not reported")
	}
	if p.Len() != 3 {
		t.Errorf("Len %d, want 3", p.Len())
	}
	for _, tc := range []struct {
		draw []uint32
		want string
	}{
		{[]uint32{1, 2, 3, 4}, "s0:c3,c4"},
		{[]uint32{5, 100, 8, 7, 9, 10}, "s0:c9,c10"},
		{[]uint32{6, 8}, "s0:c6,c8"},
	} {
		p.intn = script(seeded(), tc.draw...)
		if got, err := p.Reserve(); err != nil || got != tc.want {
			t.Errorf("after %v: %s, %v; want %s", tc.draw, got, err, tc.want)
		}
	}
	p.Release("system_u:system_r:container_t:s0:c1,c2")
	p.intn = script(seeded(), 1, 2)
	if got, _ := p.Reserve(); got != "s0:c1,c2" {
		t.Errorf("adopted level not released: %s", got)
	}
}

func TestLevelPoolExhausted(t *testing.T) {
	p := newLevelPool(true, seeded().Uint32N)
	if err := p.Adopt([]string{"s0-s0:c0.c1023"}); err != nil {
		t.Fatal(err)
	}
	if l, err := p.Reserve(); !errors.Is(err, ErrNoLevel) {
		t.Fatalf("got %q, %v; want ErrNoLevel under a container holding every category", l, err)
	}
	p.Release("s0-s0:c0.c1023")
	if _, err := p.Reserve(); err != nil {
		t.Fatal(err)
	}
}

// TestLevelPoolScan makes every random draw fail, so Reserve must scan.
func TestLevelPoolScan(t *testing.T) {
	p := newLevelPool(true, func(uint32) uint32 { return 0 }) // draws (0,0)
	if err := p.Adopt([]string{"s0:c0.c1021"}); err != nil {
		t.Fatal(err)
	}
	// Free now: {x, 1022} and {x, 1023}; {1022, 1023} is never handed out.
	if l, err := p.Reserve(); err != nil || l != "s0:c0,c1022" {
		t.Fatalf("scan: %s, %v", l, err)
	}
	if err := p.Adopt([]string{"s0:c1022", "s0:c1023"}); err != nil {
		t.Fatal(err)
	}
	if l, err := p.Reserve(); !errors.Is(err, ErrNoLevel) {
		t.Fatalf("only the privileged mount level is left, got %q, %v", l, err)
	}
}

func TestLevelPoolDisabled(t *testing.T) {
	for _, p := range []*LevelPool{newLevelPool(false, nil), {}} {
		if p.Enabled() {
			t.Error("enabled")
		}
		if l, err := p.Reserve(); l != "" || err != nil {
			t.Errorf("Reserve: %q, %v", l, err)
		}
		if err := p.Adopt([]string{"s0:c1,c2", "bad:"}); err != nil {
			t.Error(err)
		}
		p.Release("s0:c1,c2")
		if p.Len() != 0 {
			t.Errorf("Len %d", p.Len())
		}
	}
	if LabelOpts("") != nil {
		t.Error("options for no level")
	}
	if o := LabelOpts("s0:c1,c2"); len(o) != 1 || o[0] != "level:s0:c1,c2" {
		t.Errorf("LabelOpts %v", o)
	}
}

func TestLevelPoolConcurrent(t *testing.T) {
	p := newLevelPool(true, rand.Uint32N) // NewLevelPool's source, enabled
	var live sync.Map
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 300 {
				l, err := p.Reserve()
				if err != nil {
					t.Error(err)
					return
				}
				if _, dup := live.LoadOrStore(l, true); dup {
					t.Errorf("%s live twice", l)
					return
				}
				live.Delete(l)
				p.Release(l)
			}
		})
	}
	wg.Wait()
	if p.Len() != 0 {
		t.Errorf("%d levels leaked", p.Len())
	}
}
