package plugin

import (
	"testing"
	"time"

	"github.com/podjail/podjail/plugin/isolate"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
)

// isolate's limit options as the run request gets them; -k is the
// program's RLIMIT_STACK (the runner caps it at the memory limit).
func TestIsolateLimits(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want runner.RunRequest
	}{
		// No limit in isolate: the front's cap on the wall, no CPU deadline.
		{[]string{"--run", "--", "/p"}, runner.RunRequest{Limits: runner.Limits{Pids: 1}, Wait: runner.Wait{Deadlines: runner.Deadlines{Wall: isolate.WallCap}}}},
		// -x below -t: killed past -t (isolate counts -x from the start).
		{[]string{"-t", "1", "-x", "0.5", "-w", "3", "-k", "8192", "--cg", "--cg-mem", "65536", "-f", "1024", "-p", "--run", "--", "/p"},
			runner.RunRequest{Limits: runner.Limits{Pids: isolateUnlimitedPids, Memory: 64 << 20, Stack: 8 << 20, FileSize: 1 << 20}, Wait: runner.Wait{Deadlines: runner.Deadlines{CPU: time.Second, Wall: 3 * time.Second}}}},
		// -x above -t: killed past -x; the wall is -w alone.
		{[]string{"-t", "1", "-x", "2.5", "-w", "20", "--run", "--", "/p"},
			runner.RunRequest{Limits: runner.Limits{Pids: 1}, Wait: runner.Wait{Deadlines: runner.Deadlines{CPU: 2500 * time.Millisecond, Wall: 20 * time.Second}}}},
		{[]string{"-m", "262144", "-k", "0", "-w", "2", "--run", "--", "/p"},
			runner.RunRequest{Limits: runner.Limits{Pids: 1, Memory: 256 << 20}, Wait: runner.Wait{Deadlines: runner.Deadlines{Wall: 2 * time.Second}}}},
		// isolate keeps a negative limit, and kills at its first look.
		{[]string{"-t", "-1", "-w", "-1", "--run", "--", "/p"},
			runner.RunRequest{Limits: runner.Limits{Pids: 1}, Wait: runner.Wait{Deadlines: runner.Deadlines{CPU: time.Millisecond, Wall: time.Millisecond}}}},
		// "abc" is atof's 0: no limit.
		{[]string{"-t", "abc", "-w", "0", "--run", "--", "/p"},
			runner.RunRequest{Limits: runner.Limits{Pids: 1}, Wait: runner.Wait{Deadlines: runner.Deadlines{Wall: isolate.WallCap}}}},
	} {
		cmd, err := isolate.ParseArgs(c.argv)
		if err != nil {
			t.Fatal(err)
		}
		var got runner.RunRequest
		IsolateLimits(cmd).Set(&got)
		if got.Limits != c.want.Limits || got.Wait.Deadlines != c.want.Wait.Deadlines {
			t.Errorf("%v:\n got %+v\nwant %+v", c.argv, got, c.want)
		}
	}
}

func TestOmegajailLimits(t *testing.T) {
	ms, mem, out := uint64(1500), uint64(64<<20), uint64(1000)
	req := omegajail.Request{TimeLimitMs: &ms, MemoryLimit: &mem, OutputLimit: &out}
	l := OmegajailLimits(req)
	if l.Time != 1500*time.Millisecond || l.Memory != int64(mem) || l.Output != int64(out) || l.Wall != req.WallTimeLimit() || l.CPU != 2*time.Second || l.Idle != 0 {
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
	if got := testLimits(p, lang.Language{}, l); got.CPU != 4*time.Second || got.Idle != 12*time.Second || got.Wall != 20*time.Second || got.Memory != 64<<20 || got.Output != 1<<20 || got.CPUs != 1 || got.Time != 0 {
		t.Errorf("test: %+v", got)
	}
	if got := testLimits(p, lang.Language{StackBytes: 8 << 20}, l); got.Stack != 8<<20 || got.Memory != 64<<20 {
		t.Errorf("test of a language with a stack: %+v", got)
	}
	if got := RunStack(lang.Language{StackBytes: 128 << 20}, 64<<20); got != 64<<20 {
		t.Errorf("a stack over the memory: %d, want the memory", got)
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
}
