package plugin

import (
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/isolate"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
	"github.com/podjail/podjail/plugin/problem"
)

// isolate's limit options as the run request gets them; -k is the
// program's RLIMIT_STACK (the runner caps it at the memory limit).
func TestIsolateLimits(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want RunRequest
	}{
		{[]string{"--run", "--", "/p"}, RunRequest{Pids: 1}},
		{[]string{"-t", "1", "-x", "0.5", "-w", "3", "-k", "8192", "--cg", "--cg-mem", "65536", "-f", "1024", "-p", "--run", "--", "/p"},
			RunRequest{TimeLimit: time.Second, CPULimit: 1500 * time.Millisecond, WallLimit: 3 * time.Second,
				Pids: isolateUnlimitedPids, MemoryBytes: 64 << 20, StackBytes: 8 << 20, FileSizeBytes: 1 << 20}},
		{[]string{"-m", "262144", "-k", "0", "-w", "2", "--run", "--", "/p"},
			RunRequest{TimeLimit: 2 * time.Second, WallLimit: 2 * time.Second, Pids: 1, MemoryBytes: 256 << 20}},
	} {
		cmd, err := isolate.ParseArgs(c.argv)
		if err != nil {
			t.Fatal(err)
		}
		var got RunRequest
		IsolateLimits(cmd).Set(&got)
		if got.TimeLimit != c.want.TimeLimit || got.CPULimit != c.want.CPULimit || got.WallLimit != c.want.WallLimit ||
			got.Pids != c.want.Pids || got.MemoryBytes != c.want.MemoryBytes || got.StackBytes != c.want.StackBytes ||
			got.FileSizeBytes != c.want.FileSizeBytes {
			t.Errorf("%v:\n got %+v\nwant %+v", c.argv, got, c.want)
		}
	}
}

func TestOmegajailLimits(t *testing.T) {
	ms, mem, out := uint64(1500), uint64(64<<20), uint64(1000)
	req := omegajail.Request{TimeLimitMs: &ms, MemoryLimit: &mem, OutputLimit: &out}
	l := OmegajailLimits(req)
	if l.Time != 1500*time.Millisecond || l.Memory != int64(mem) || l.Output != int64(out) || l.Wall != req.WallTimeLimit() || l.CPU != 0 || l.Idle != 0 {
		t.Errorf("%+v", l)
	}
	if b := OmegajailBuildLanguage(req, lang.Language{}); b.BuildTimeLimit != 1500*time.Millisecond {
		t.Errorf("build time %v", b.BuildTimeLimit)
	}
	if l := OmegajailLimits(omegajail.Request{}); l.Time != l.Wall {
		t.Errorf("no -t: time %v, wall %v", l.Time, l.Wall)
	}
}

func TestRunLimits(t *testing.T) {
	p := &problem.Problem{TimeLimit: time.Second, MemoryBytes: 64 << 20, OutputBytes: 1 << 20}
	l := TestTimeLimit(p, lang.Language{ExtraTime: time.Second})
	if l != 2*time.Second {
		t.Fatalf("L = %v", l)
	}
	if got := testLimits(p, l); got.CPU != 4*time.Second || got.Idle != 12*time.Second || got.Wall != 20*time.Second || got.Memory != 64<<20 || got.Output != 1<<20 || got.CPUs != 1 || got.Time != 0 {
		t.Errorf("test: %+v", got)
	}
	if got := interactorLimits(p, l); got.Wall != 20*time.Second+checkerTime || got.CPU != checkerTime || got.Memory != checkerMemory {
		t.Errorf("interactor: %+v", got)
	}
	if got := checkerLimits(); got.Wall != 3*checkerTime || got.Output != 1<<20 {
		t.Errorf("checker: %+v", got)
	}
	if got := buildLimits(lang.Language{BuildTimeLimit: 5 * time.Second}); got.CPU != 5*time.Second || got.Wall != 25*time.Second || got.Pids != buildPids {
		t.Errorf("build: %+v", got)
	}
	if got := HandleLimits(time.Second, 3*time.Second, 5, 6); got.CPU != time.Second || got.Time != 0 || got.Wall != 3*time.Second || got.CPUs != 1 {
		t.Errorf("handle: %+v", got)
	}
	r := RunRequest{TimeLimit: time.Second, IdleLimit: time.Minute}
	defaultLimits(&r)
	if r.CPULimit != 3*time.Second || r.IdleLimit != time.Minute || r.WallLimit != 15*time.Second || r.MemoryBytes != DefaultMemory || r.Pids != DefaultPids || r.CPUs != DefaultCPUs || r.OutputLimit != DefaultOutputLimit {
		t.Errorf("defaults: %+v", r)
	}
	if rlimits(RunRequest{Writable: true}, 1) != nil {
		t.Error("a writable run got rlimits")
	}
}
