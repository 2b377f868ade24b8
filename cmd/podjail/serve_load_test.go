package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin/omegajail"
)

func init() {
	// spin keeps one processor busy until it is killed: the load of a
	// judging host, outside every container.
	helpers["spin"] = func([]string) int {
		for {
		}
	}
}

// loadCpp is one C++ program, what it does said by the first word of its
// input: "twice" reads its numbers to the end of its input, clears the
// stream and reads again (nothing more comes), and prints their sum;
// "flood" writes lines for ever; "once" ends at once. Only <cstdio>: a
// compile of <iostream> costs some 30 s of processor time in the test VM.
const loadCpp = `#include <cstdio>
#include <cstring>
int main() {
	char mode[16] = "";
	if (std::scanf("%15s", mode) != 1) return 0;
	if (std::strcmp(mode, "twice") == 0) {
		long long x, sum = 0;
		while (std::scanf("%lld", &x) == 1) sum += x;
		std::clearerr(stdin);
		while (std::scanf("%lld", &x) == 1) sum += x;
		std::printf("%lld\n", sum);
	} else if (std::strcmp(mode, "flood") == 0) {
		char line[1002];
		std::memset(line, 'x', 1000);
		line[1000] = '\n';
		line[1001] = 0;
		for (;;) std::fputs(line, stdout);
	}
	return 0;
}
`

// loadCase is one run of loadCpp: its input and what omegaUp's Runner
// must make of it.
type loadCase struct {
	mode, input, verdict string
	output               func(out []byte) bool
}

var loadCases = []loadCase{
	{"twice", "twice 19 23 -2\n", "OK", func(out []byte) bool { return string(out) == "40\n" }},
	{"flood", "flood\n", "OLE", func(out []byte) bool {
		// The first 10240 bytes (-O), whole lines of x cut at the cap.
		line := strings.Repeat("x", 1000) + "\n"
		return len(out) == 10240 && bytes.Equal(out, bytes.Repeat([]byte(line), 11)[:10240])
	}},
	{"once", "once\n", "OK", func(out []byte) bool { return len(out) == 0 }},
}

// TestServeUnderLoad judges many short programs through `podjail serve`
// as omegaUp's Runner does (issue 27: programs that had finished, their
// output written, judged TLE through the service on a loaded host), with
// several Runners at once and the host's processors kept busy by spinners
// outside the containers. Every run must get its own verdict and output;
// any other verdict fails, and the service must never have stopped a
// container that was already gone ("kill failed").
func TestServeUnderLoad(t *testing.T) {
	env := hosttest.Podman(t)
	sock, stop := startService(t, env, "--drain", "2s")
	t.Setenv("PODJAIL_SERVICE", sock)
	o := newOmegaRunner(t, env)
	if m := o.compile("cpp17-gcc", loadCpp); omegajail.RunnerVerdict(m, omegajail.ForCompile("cpp17-gcc")) != "OK" {
		errOut, _ := os.ReadFile(filepath.Join(o.runRoot, "Main", "compile.err"))
		t.Fatalf("compile meta %+v, compile.err:\n%s", m, errOut)
	}

	stopSpinning := spin(t, runtime.NumCPU())
	const clients, runsEach = 3, 4
	var mu sync.Mutex
	verdicts := map[string]int{}
	var walls []time.Duration
	var wg sync.WaitGroup
	for c := range clients {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(c))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for i := range runsEach {
				lc := loadCases[(c+i)%len(loadCases)]
				m, out, stderr, err := o.runAt(dir, lc.input, "1000", "1000")
				v := omegajail.RunnerVerdict(m, omegajail.ForRun("cpp17-gcc", 268435456))
				mu.Lock()
				verdicts[lc.mode+" "+v]++
				walls = append(walls, time.Duration(m.WallTimeUs)*time.Microsecond)
				mu.Unlock()
				if err != nil || v != lc.verdict || !lc.output(out) {
					t.Errorf("client %d run %d (%s): %v, verdict %s, meta %+v, %d bytes of output %.60q; want %s\nfront's stderr: %s",
						c, i, lc.mode, err, v, m, len(out), out, lc.verdict, stderr)
				}
			}
		})
	}
	wg.Wait()
	stopSpinning()
	slices.Sort(walls)
	t.Logf("%d runs by %d clients at once beside %d spinners: %v; wall times from %v to %v, median %v",
		len(walls), clients, runtime.NumCPU(), verdicts, walls[0], walls[len(walls)-1], walls[len(walls)/2])
	code, log := stop()
	if code != 0 || strings.Contains(log, "kill failed") || strings.Contains(log, "stop failed") {
		t.Errorf("service: exit %d; want 0, and no stop of a container that was gone:\n%s", code, log)
	}
	assertNothingLeft(t, env, "")
}

// runAt is the Runner's run argv for a case whose files are in dir, with
// time limit ms and extra wall time wms, through the omegajail front.
// Safe to call from several goroutines with different dirs.
func (o *omegaRunner) runAt(dir, input, ms, wms string) (m omegajail.Meta, out []byte, stderr string, err error) {
	in := filepath.Join(dir, "1.in")
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		return m, nil, "", err
	}
	cmd := exec.Command(o.bin, "--homedir", o.runRoot+"/Main/bin", "-0", in, "-1", dir+"/1.out", "-2", dir+"/1.err",
		"-M", dir+"/1.meta", "-m", "268435456", "-t", ms, "-w", wms, "-O", "10240",
		"--root", "/var/lib/omegajail", "--run", "cpp17-gcc", "--run-target", "Main")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return m, nil, errb.String(), err
		}
	}
	f, err := os.Open(dir + "/1.meta")
	if err != nil {
		return m, nil, errb.String(), err
	}
	defer f.Close()
	if m, err = omegajail.ParseMeta(f); err != nil {
		return m, nil, errb.String(), err
	}
	out, err = os.ReadFile(dir + "/1.out")
	return m, out, errb.String(), err
}

// spin starts n spinners (processes of the test binary, outside every
// container) and returns what kills them; the test's end kills them too.
func spin(t *testing.T, n int) (stop func()) {
	t.Helper()
	var cmds []*exec.Cmd
	for range n {
		cmd := exec.Command(os.Args[0], "spin")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			for _, cmd := range cmds {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
