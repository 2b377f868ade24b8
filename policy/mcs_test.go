package policy

import "testing"

func TestParseLevel(t *testing.T) {
	for _, tc := range []struct {
		in, key string
		count   int
		outside bool
		bad     bool
	}{
		{in: "s0:c1,c2", key: "s0:c1,c2", count: 2},
		{in: "s0:c2,c1", key: "s0:c1,c2", count: 2},
		{in: " system_u:system_r:container_t:s0:c10,c3 ", key: "s0:c3,c10", count: 2},
		{in: "s0:c1.c2", key: "s0:c1,c2", count: 2},
		{in: "s0-s0:c0.c1023", key: "s0-s0:c0.c1023", count: 1024},
		{in: "s0:c5", key: "s0:c5", count: 1},
		{in: "s0:c5,c2000", key: "s0:c5,c2000", count: 1, outside: true},
		{in: "s0", key: "s0"},
		{in: "system_u:system_r:spc_t:s0", key: "s0"},
		{in: "system_u:system_r:spc_t", key: ""},
		{in: "s0:c9.c1", bad: true},
		{in: "s0:x1", bad: true},
		{in: "s0:c99999", bad: true},
		{in: "a:b", bad: true},
	} {
		key, set, err := parseLevel(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("%q: err %v", tc.in, err)
			continue
		}
		if tc.bad {
			continue
		}
		if key != tc.key || set.count() != tc.count || set.outside != tc.outside {
			t.Errorf("%q: key %q count %d outside %v", tc.in, key, set.count(), set.outside)
		}
	}
}

func TestConflicts(t *testing.T) {
	set := func(l string) catSet { _, s, _ := parseLevel(l); return s }
	for _, tc := range []struct {
		level string
		a, b  uint32
		want  bool
	}{
		{"s0:c1,c2", 1, 2, true},
		{"s0:c1,c3", 1, 2, false},
		{"s0:c1", 1, 2, true},        // the run dominates it
		{"s0:c1,c2,c3", 1, 2, true},  // it dominates the run
		{"s0:c1,c3,c4", 1, 2, false}, // neither
		{"s0", 1, 2, false},
		{"s0:c1,c2000", 1, 2, false}, // outside: the run never dominates it
		{"s0:c1,c2,c2000", 1, 2, true},
	} {
		s := set(tc.level)
		if got := s.conflicts(tc.a, tc.b); got != tc.want {
			t.Errorf("%s vs {%d,%d}: %v", tc.level, tc.a, tc.b, got)
		}
	}
}
