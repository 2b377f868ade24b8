package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
)

// hostileJudged are the attacks judged as tests of one problem, with the
// verdict each gets alone (TestHostile* run each alone; a judge one test
// at a time gave these); their verdicts do not depend on their output,
// which execInput discards.
var hostileJudged = []struct {
	attack string
	alone  plugin.Verdict
}{
	{"forkbomb", plugin.TLE}, {"threads", plugin.TLE}, {"mallochog", plugin.MLE}, {"mmaphog", plugin.MLE},
	{"filltmp one", plugin.RTE}, {"filltmp many", plugin.AC}, {"shm", plugin.MLE}, {"rofs", plugin.AC},
	{"noexec", plugin.AC}, {"errflood", plugin.AC}, {"sleep", plugin.TLE}, {"tick", plugin.TLE},
	{"setsid", plugin.AC}, {"kill", plugin.RTE}, {"net", plugin.AC}, {"procpeek", plugin.AC},
	{"ptrace", plugin.AC}, {"cgroup", plugin.AC}, {"unshare", plugin.AC}, {"bpf", plugin.AC},
	{"perf", plugin.AC}, {"iouring", plugin.AC}, {"int80", plugin.RFE}, {"x32", plugin.RFE},
	{"personality", plugin.AC}, {"closeout", plugin.TLE}, {"binary", plugin.AC},
}

// execInput reads "PROGRAM ARGS..." from the first line of stdin, one byte
// at a time so the rest stays the program's, puts its stdout on /dev/null
// and becomes the program: the judged figures are the program's own.
func execInput([]string) int {
	var line []byte
	for b := make([]byte, 1); ; {
		n, err := os.Stdin.Read(b)
		if n == 0 || err != nil || b[0] == '\n' {
			break
		}
		line = append(line, b[0])
	}
	argv := strings.Fields(string(line))
	if len(argv) == 0 {
		return 2
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil || syscall.Dup2(int(null.Fd()), 1) != nil {
		return 3
	}
	err = syscall.Exec(argv[0], argv, os.Environ())
	fmt.Fprintln(os.Stderr, err)
	return 4
}

// untimed is the time limit, in seconds, of a test whose verdicts are not
// about time, and untimedMs the same for a front that takes milliseconds.
// The test VM charges a process the time its virtual core was off the
// host's processors, so under the suite's load a run is charged far more
// than it ran: the Go test binary's exit 0 up to 1.2 s, a Python start
// 0.73 s, a JVM filling its heap 5.5 s. A limit about time keeps its own.
const (
	untimed   = "5"
	untimedMs = "5000"
)

// execProblem writes a problem whose tests name the program each runs on
// their input's first line (execInput), with empty answers, and a language
// that runs them; it returns the problem, the languages file and a source.
// Tests whose verdicts are not about time give it untimed.
func execProblem(t *testing.T, env hosttest.Env, timeLimit string, lines []string) (dir, langs, src string) {
	t.Helper()
	files := map[string]string{"problem.yaml": "name: exec\ntime_limit: " + timeLimit + "\nmemory_limit: 64M\noutput_limit: 1M\n"}
	for i, line := range lines {
		name := fmt.Sprintf("tests/%02d", i+1)
		files[name+".in"] = line + "\n"
		files[name+".ans"] = ""
	}
	dir = writeProblemFiles(t, files)
	langs = filepath.Join(t.TempDir(), "languages.yaml")
	lang := fmt.Sprintf("exec:\n  extensions: [.exec]\n  run_image: %s\n  build_image: %s\n  source: prog.exec\n  run: [%s, exec-input]\n", env.Image, env.Image, testProgram)
	if err := os.WriteFile(langs, []byte(lang), 0o644); err != nil {
		t.Fatal(err)
	}
	src = filepath.Join(t.TempDir(), "prog.exec")
	if err := os.WriteFile(src, []byte("unused\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, langs, src
}

// TestJudgeHostileSideBySide judges the hostile programs as the tests of
// one problem, two at once, each on its own core: a run beside another
// must end as it does alone.
func TestJudgeHostileSideBySide(t *testing.T) {
	env := hosttest.Podman(t)
	var lines []string
	for _, h := range hostileJudged {
		lines = append(lines, "/hostile/"+h.attack)
	}
	// The Go test binary starts in about 0.15 s under emulation, and the
	// guest charges a run the time its virtual core was off the host's
	// (seen: 0.79 s for unshare beside another, 0.16 s alone): 1 s keeps
	// every AC clear of the limit; the deadlines grow by 0.5 s to 2.5 s.
	dir, langs, src := execProblem(t, env, "1", lines)
	res, _ := judgeJSON(t, env, "--languages", langs, "--lang", "exec", "--parallel", "2", dir, src)
	if res.Parallel != 2 || len(res.Tests) != len(hostileJudged) {
		t.Fatalf("%d at once, %d tests judged (%s: %s); want 2, %d", res.Parallel, len(res.Tests), res.Verdict, res.Note, len(hostileJudged))
	}
	for i, h := range hostileJudged {
		got := res.Tests[i]
		t.Logf("%-13s alone %-3s  beside another %-3s %.3f s  (%s)", h.attack, h.alone, got.Verdict, got.Time.Seconds(), got.Note)
		if got.Verdict != h.alone {
			t.Errorf("%s: %s %.3f s beside another (%s); alone it is %s", h.attack, got.Verdict, got.Time.Seconds(), got.Note, h.alone)
		}
	}
}

// TestJudgeEndingEarlyLeavesNothing ends judges early, two tests at once,
// every way one can end: at the first failure, by Ctrl-C, and by SIGKILL
// of the runner (whose leftovers the next start sweeps). No container,
// armed or not, no parent cgroup and no program may be left.
func TestJudgeEndingEarlyLeavesNothing(t *testing.T) {
	env := hosttest.Podman(t)
	sleep := testProgram + " sleep"
	lines := []string{testProgram + " exit 0", testProgram + " exit 3", sleep, sleep, sleep, sleep, sleep, sleep}
	// The first failure must be the exit 3, never a TLE of the exit 0. No
	// subtest waits for a sleeper's limit: each ends the judge first.
	dir, langs, src := execProblem(t, env, untimed, lines)
	judge := []string{"judge", "--languages", langs, "--lang", "exec", "--parallel", "2"}

	t.Run("first failure", func(t *testing.T) {
		res, code := judgeJSON(t, env, "--languages", langs, "--lang", "exec", "--parallel", "2", "--stop-on-first-failure", dir, src)
		if code != exitRejected || res.Verdict != plugin.RTE || len(res.Tests) != 2 {
			t.Fatalf("exit %d, %s (%s), %d tests; want exit %d, RTE after 2 tests", code, res.Verdict, res.Note, len(res.Tests), exitRejected)
		}
		assertNothingLeft(t, env, "")
	})
	// Both signals come once the judge is into the sleepers: the second
	// test's verdict is out, the third and fourth run, more are armed.
	startJudge := func(t *testing.T) (*exec.Cmd, func() string) {
		cmd := exec.Command(env.Podjail, append(judge, dir, src)...)
		return cmd, startUntil(t, cmd, hasPrefix("test 2/"))
	}
	t.Run("ctrl-c", func(t *testing.T) {
		cmd, log := startJudge(t)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		t.Logf("after SIGINT: %v\n%s", err, log())
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) || exitErr.ExitCode() != exitFailure {
			t.Errorf("interrupted judge ended with %v, want exit %d (IE: judging interrupted)", err, exitFailure)
		}
		assertNothingLeft(t, env, "")
	})
	t.Run("sigkill and restart", func(t *testing.T) {
		cmd, log := startJudge(t)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		t.Logf("killed:\n%s", log())
		left, err := env.Client.ListByLabel(context.Background(), runner.LabelInstance)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 {
			t.Fatal("a runner killed mid-judge left no container: the kill came too late to test the sweep")
		}
		t.Logf("the killed runner left %d containers; the next starts sweep them", len(left))
		judgesBesideTheSweep(t, env)
	})
}

// judgesBesideTheSweep starts two judges at once on what a killed runner
// left: each sweeps it at its start while the other's runs are made, and
// neither may touch the other's (only dead instances' things are swept).
// Both judge every test AC, and nothing is left after them.
func judgesBesideTheSweep(t *testing.T, env hosttest.Env) {
	t.Helper()
	lines := []string{testProgram + " exit 0", testProgram + " exit 0", testProgram + " exit 0"}
	// Two judges at once load the emulated host (untimed's reason).
	dir, langs, src := execProblem(t, env, untimed, lines)
	for i, r := range judgeAtOnce(env, 2, "--languages", langs, "--lang", "exec", "--parallel", "1", dir, src) {
		if r.err != nil || r.res.Verdict != plugin.AC || len(r.res.Tests) != len(lines) {
			t.Errorf("judge %d beside the sweep: %v, %s (%s), %d tests; want AC on all %d\n%s", i+1, r.err, r.res.Verdict, r.res.Note, len(r.res.Tests), len(lines), r.log)
		}
	}
	assertNothingLeft(t, env, "")
}

// judged is the outcome of one of judgeAtOnce's judges: err is set when
// it could not run or its stdout is not a judgement.
type judged struct {
	res  plugin.JudgeResult
	code int
	log  []byte
	err  error
}

// judgeAtOnce runs n `podjail judge --json ARGS` at the same time and
// returns their outcomes in order (no t: it runs off the test goroutine).
func judgeAtOnce(env hosttest.Env, n int, args ...string) []judged {
	results := make([]judged, n)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			cmd := exec.Command(env.Podjail, append([]string{"judge", "--json"}, args...)...)
			var log bytes.Buffer
			cmd.Stderr = &log
			out, err := cmd.Output()
			r := judged{log: log.Bytes()}
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				r.code = exitErr.ExitCode()
			} else if err != nil {
				r.err = err
			}
			if r.err == nil {
				if jerr := json.Unmarshal(out, &r.res); jerr != nil {
					r.err = fmt.Errorf("exit %d, stdout not a judgement: %v", r.code, jerr)
				}
			}
			results[i] = r
		})
	}
	wg.Wait()
	return results
}
