package policy

import (
	"slices"
	"testing"
)

func TestRlimits(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name                   string
		memory, scratch, stack int64
		want                   []Rlimit
	}{
		{"256M memory, 16M scratch", 256 * mib, 16 * mib, 0, []Rlimit{
			{"RLIMIT_CORE", 0, 0},
			{"RLIMIT_STACK", 256 * mib, 256 * mib},
			{"RLIMIT_NOFILE", 64, 64},
			{"RLIMIT_FSIZE", 16 * mib, 16 * mib},
		}},
		{"2G memory, 64M scratch", 2048 * mib, 64 * mib, 0, []Rlimit{
			{"RLIMIT_CORE", 0, 0},
			{"RLIMIT_STACK", 2048 * mib, 2048 * mib},
			{"RLIMIT_NOFILE", 64, 64},
			{"RLIMIT_FSIZE", 64 * mib, 64 * mib},
		}},
		{"no limits given", 0, -1, 0, []Rlimit{
			{"RLIMIT_CORE", 0, 0},
			{"RLIMIT_STACK", DefaultStackBytes, DefaultStackBytes},
			{"RLIMIT_NOFILE", 64, 64},
		}},
		{"8M stack under 256M memory", 256 * mib, 16 * mib, 8 * mib, []Rlimit{
			{"RLIMIT_CORE", 0, 0},
			{"RLIMIT_STACK", 8 * mib, 8 * mib},
			{"RLIMIT_NOFILE", 64, 64},
			{"RLIMIT_FSIZE", 16 * mib, 16 * mib},
		}},
		{"1G stack capped at 256M memory", 256 * mib, 16 * mib, 1024 * mib, []Rlimit{
			{"RLIMIT_CORE", 0, 0},
			{"RLIMIT_STACK", 256 * mib, 256 * mib},
			{"RLIMIT_NOFILE", 64, 64},
			{"RLIMIT_FSIZE", 16 * mib, 16 * mib},
		}},
		{"1G stack, no memory limit", 0, -1, 1024 * mib, []Rlimit{
			{"RLIMIT_CORE", 0, 0},
			{"RLIMIT_STACK", DefaultStackBytes, DefaultStackBytes},
			{"RLIMIT_NOFILE", 64, 64},
		}},
	} {
		if got := Rlimits(tc.memory, tc.scratch, tc.stack); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
	for _, r := range Rlimits(1<<30, 1<<20, 0) {
		if r.Type == "RLIMIT_NPROC" {
			t.Error("RLIMIT_NPROC is per uid, not per run")
		}
		if r.Soft > r.Hard {
			t.Errorf("%s soft %d > hard %d", r.Type, r.Soft, r.Hard)
		}
	}
}
