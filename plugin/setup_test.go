package plugin

import (
	"strings"
	"testing"
)

func TestMemoryCeilingFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int64
		bad  bool
	}{{"", 0, false}, {"640MiB", 640 << 20, false}, {"1G", 1 << 30, false}, {"lots", 0, true}, {"0", 0, true}} {
		t.Setenv(MemoryCeilingEnv, c.env)
		got, err := MemoryCeilingFromEnv()
		if got != c.want || (err != nil) != c.bad {
			t.Errorf("%q: %d, %v", c.env, got, err)
		}
		if c.bad && (err == nil || !strings.Contains(err.Error(), "PODJAIL_MEMORY_CEILING")) {
			t.Errorf("%q: error does not name the variable: %v", c.env, err)
		}
	}
}
