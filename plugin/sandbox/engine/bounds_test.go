package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/runner/runnertest"
	"github.com/podjail/podjail/plugin/sandbox"
)

// TestBoundsKnowTheRunnersDefaults: sandbox repeats the defaults a request
// asking for nothing gets (it does not link the runner); bounds at them
// pass Check, bounds below them do not.
func TestBoundsKnowTheRunnersDefaults(t *testing.T) {
	for _, c := range []struct {
		at, below sandbox.Bounds
	}{
		{sandbox.Bounds{MaxMemory: runner.DefaultMemory}, sandbox.Bounds{MaxMemory: runner.DefaultMemory - 1}},
		{sandbox.Bounds{MaxPids: runner.DefaultPids}, sandbox.Bounds{MaxPids: runner.DefaultPids - 1}},
		{sandbox.Bounds{MaxCPUs: runner.DefaultCPUs}, sandbox.Bounds{MaxCPUs: runner.DefaultCPUs - 0.01}},
	} {
		if err := c.at.Check(); err != nil {
			t.Errorf("%+v: %v", c.at, err)
		}
		if err := c.below.Check(); err == nil {
			t.Errorf("%+v passed Check, below what a request asking for nothing gets", c.below)
		}
	}
}

// TestExecCollectsAtMostMaxCollect: the files an Exec gives back are read
// only while they fit in the bound, all together; past it the call is
// ErrResourceExhausted naming --max-collect.
func TestExecCollectsAtMostMaxCollect(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string][]byte
		ok    bool
	}{
		{"at the bound", map[string][]byte{"/w/a": []byte("0123456789")}, true},
		{"one file over", map[string][]byte{"/w/a": []byte("0123456789x")}, false},
		{"two files over together", map[string][]byte{"/w/a": []byte("012345"), "/w/b": []byte("012345")}, false},
	} {
		e, rt, cg := fakeEngine(t, one(runnertest.Program{Files: c.files}), false)
		e.bounds = sandbox.Bounds{MaxCollect: 10}
		res, err := e.Exec(context.Background(), sandbox.ExecRequest{Image: "img", Command: []string{"/p"}, WorkDir: "/w", Collect: []string{"a", "b"}}, nil)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.ok && string(res.Files["a"]) != "0123456789":
			t.Errorf("%s: collected %q", c.name, res.Files)
		case !c.ok && (!errors.Is(err, sandbox.ErrResourceExhausted) || !strings.Contains(err.Error(), "--max-collect")):
			t.Errorf("%s: %v, want ErrResourceExhausted naming --max-collect", c.name, err)
		}
		runnertest.AssertNothingLeft(t, rt, cg)
	}
}

// TestJudgeRefusesProblemsOverTheBounds: a problem package is the
// caller's, as a request's limits are: its memory and time limits are
// bounded the same way, before anything is built.
func TestJudgeRefusesProblemsOverTheBounds(t *testing.T) {
	made := 0
	e, _, _ := fakeEngine(t, func(bindings.Spec) runnertest.Program { made++; return runnertest.Program{} }, false)
	e.bounds = sandbox.Bounds{MaxMemory: 512 << 20, MaxTime: 5 * time.Second}
	for yaml, flag := range map[string]string{
		"name: big\ntime_limit: 1\nmemory_limit: 1G\n": "--max-memory",
		"name: slow\ntime_limit: 10\n":                 "--max-time",
	} {
		dir := writeProblem(t)
		if err := os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := e.Judge(context.Background(), sandbox.JudgeRequest{ProblemDir: dir, Language: "python3", Source: []byte("print()")}, nil)
		if !errors.Is(err, sandbox.ErrInvalidArgument) || !strings.Contains(err.Error(), flag) {
			t.Errorf("%q: %v, want ErrInvalidArgument naming %s", yaml, err, flag)
		}
	}
	if made != 0 {
		t.Errorf("%d containers made for refused problems", made)
	}
}

func TestPinnedByIsTheJudgesChoice(t *testing.T) {
	all := []int{4, 5, 6, 7}
	for parallel, want := range map[int][]int{0: {4, 5, 6, 7}, 1: nil, 2: {4, 5}, 4: {4, 5, 6, 7}, 5: nil, -1: nil} {
		if got := pinnedBy(all, parallel); !slices.Equal(got, want) {
			t.Errorf("parallel %d: %v, want %v", parallel, got, want)
		}
	}
	if got := pinnedBy(nil, 0); got != nil {
		t.Errorf("no cores: %v", got)
	}
}

// TestUnpinnedRunsAvoidTheJudgesCores: with no judge, a run goes on any
// core (""); beside a judge pinning two of four cores, on the other two;
// while judges hold them all, it waits for one to let go (or for its
// context).
func TestUnpinnedRunsAvoidTheJudgesCores(t *testing.T) {
	c := newCores([]int{0, 1, 2, 3})
	ctx := context.Background()
	if set, err := c.unpinned(ctx); set != "" || err != nil {
		t.Errorf("no judge: %q, %v; want any core", set, err)
	}
	two := c.hold(2)
	if set, _ := c.unpinned(ctx); set != "2,3" {
		t.Errorf("beside a judge on 0 and 1: %q, want 2,3", set)
	}
	all := c.hold(0)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.unpinned(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("every core held, the context ended: %v", err)
	}
	got := make(chan string, 1)
	go func() { set, _ := c.unpinned(ctx); got <- set }()
	all()
	if set := <-got; set != "2,3" {
		t.Errorf("once the judge on every core let go: %q, want 2,3", set)
	}
	two()
	two() // once only
	if set, _ := c.unpinned(ctx); set != "" {
		t.Errorf("after both judges: %q, want any core", set)
	}
	var none *cores
	none.hold(0)()
	if set, err := none.unpinned(ctx); set != "" || err != nil {
		t.Errorf("a Runner without cores: %q, %v", set, err)
	}
}

// TestExecRunsOnTheCoresNoJudgeHolds: the cpuset reaches the container.
func TestExecRunsOnTheCoresNoJudgeHolds(t *testing.T) {
	var mu sync.Mutex
	var sets []string
	e, rt, cg := fakeEngine(t, func(s bindings.Spec) runnertest.Program {
		mu.Lock()
		sets = append(sets, s.CPUSet)
		mu.Unlock()
		return runnertest.Program{}
	}, false)
	e.cores = newCores([]int{0, 1, 2})
	release := e.cores.hold(2)
	if _, err := e.Exec(context.Background(), sandbox.ExecRequest{Image: "img", Command: []string{"/p"}}, nil); err != nil {
		t.Fatal(err)
	}
	release()
	if _, err := e.Exec(context.Background(), sandbox.ExecRequest{Image: "img", Command: []string{"/p"}}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sets) != 2 || sets[0] != "2" || sets[1] != "" {
		t.Errorf("cpusets %q, want 2 beside the judge and any core after", sets)
	}
	runnertest.AssertNothingLeft(t, rt, cg)
}

func TestImagesOfTheTable(t *testing.T) {
	images := Images(lang.Default())
	for _, want := range []string{"localhost/podjail-gcc:latest", "localhost/podjail-python3:latest"} {
		if !slices.Contains(images, want) {
			t.Errorf("Images = %v, lacks %s", images, want)
		}
	}
}
