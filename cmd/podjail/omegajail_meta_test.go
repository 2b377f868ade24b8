package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/shim"
)

// An RFE reaches omegaUp's Runner as omegajail writes it: signal SIGSYS,
// and the call's name when the kernel log gave it.
func TestOmegajailMetaNamesTheSyscall(t *testing.T) {
	for _, c := range []struct {
		name, want string
	}{
		{"getpid", "signal:SIGSYS\nsyscall:getpid\n"},
		{"", "signal:SIGSYS\n"},
	} {
		m := omegajailMeta(plugin.JudgedRun{Verdict: plugin.RFE, RunResult: runner.RunResult{Signal: "SIGSYS", SyscallName: c.name}}, "cpp17-gcc", 64<<20, 0)
		var b bytes.Buffer
		if err := omegajail.WriteMeta(&b, m); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), c.want) {
			t.Errorf("syscall %q: meta\n%s\nwant it to end %q", c.name, b.String(), c.want)
		}
	}
}

// A run's working directory is the home directory at /home, with
// HOME=/home, as omegajail's: omegaUp's validators open data.in there.
func TestOmegajailRunIsInHome(t *testing.T) {
	l, err := lang.Default().Lookup("cpp17")
	if err != nil {
		t.Fatal(err)
	}
	run := omegajailRunRequest(omegajail.Request{}, l, "/var/grade/1/Main/bin", l.Run)
	home := false
	for _, b := range run.Binds {
		home = home || (b.Source == "/var/grade/1/Main/bin" && b.Destination == "/home" && !b.Writable)
	}
	if !home || run.WorkDir != "/home" || !slices.Contains(run.Env, "HOME=/home") {
		t.Errorf("binds %+v, work dir %q, env %q: want the home directory read-only at /home, the working directory, HOME", run.Binds, run.WorkDir, run.Env)
	}
}

// libinteractive's --bind pipes are mounted where omegaUp says.
func TestOmegajailRunMountsBinds(t *testing.T) {
	l, err := lang.Default().Lookup("cpp17")
	if err != nil {
		t.Fatal(err)
	}
	req := omegajail.Request{Binds: []omegajail.Bind{{Source: "/var/grade/1/Main_pipes", Target: "/home/Main_pipes"}}}
	run := omegajailRunRequest(req, l, "/var/grade/1/Main/bin", l.Run)
	if !slices.Contains(run.Binds, bindings.Bind{Source: "/var/grade/1/Main_pipes", Destination: "/home/Main_pipes"}) {
		t.Errorf("binds %+v: want /var/grade/1/Main_pipes read-only at /home/Main_pipes", run.Binds)
	}
}

// What podjail cannot do as omegajail does fails before any container,
// with exit 2, a message naming it and no .meta (the Runner then reports
// a judge error, never a verdict).
func TestOmegajailRefusesWithoutMeta(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "compile.meta")
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"--compile", "cpp11", "--compile-source", "Main.cpp", "--", "-static-libasan", "-fsanitize=address"}, "-fsanitize=address"},
		{[]string{"--compile", "cpp11", "--compile-source", "sub/Main.cpp"}, "sub/Main.cpp"},
		{[]string{"--run", "cpp11", "--run-target", "../Main"}, "--run-target"},
	} {
		var stderr bytes.Buffer
		argv := append([]string{"--homedir", dir, "-M", meta}, c.argv...)
		code := omegajailCommand(context.Background(), argv, &stderr, hclog.NewNullLogger())
		if code != omegajail.UsageExitCode || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %s", c.argv, code, stderr.String(), omegajail.UsageExitCode, c.want)
		}
		if _, err := os.Stat(meta); err == nil {
			t.Errorf("%v: a .meta was written", c.argv)
		}
	}
}

// runRequestOf is the run request the front makes of args, for podjail's
// language id, its home directory homedir.
func runRequestOf(t *testing.T, id, homedir string, args ...string) runner.RunRequest {
	t.Helper()
	l, err := lang.Default().Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	req, err := omegajail.ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	argv, err := omegajail.RunCommand(l, req)
	if err != nil {
		t.Fatal(err)
	}
	return omegajailRunRequest(req, l, homedir, argv)
}

// A run executes the run target's command from omegajail.RunCommand.
func TestOmegajailRunExecutesTheTarget(t *testing.T) {
	run := runRequestOf(t, "cpp11", "/var/grade/1/validator/bin", "--homedir", "h", "--run", "cpp11", "--run-target", "validator", "--", "1", "cpp")
	if want := []string{"/run/podjail/artefact/validator", "1", "cpp"}; !slices.Equal(run.Command, want) {
		t.Errorf("command %q, want %q", run.Command, want)
	}
}

// The compile's status is the compiler's, as omegajail's: a compiler that
// succeeded without making the target's class is status 0, the Runner's
// to find (it writes its own "Class `Main` not found"), and -2 holds only
// the compiler's output then. A failed build that printed nothing says why
// on -2.
func TestOmegajailCompileStatusAndMessages(t *testing.T) {
	for _, c := range []struct {
		b      plugin.BuildResult
		status int
		want   string
	}{
		{plugin.BuildResult{OK: true}, 0, ""},
		{plugin.BuildResult{Output: "Main.cpp:1: error\n", Note: "the compiler exited with code 1"}, 1, "Main.cpp:1: error\n"},
		{plugin.BuildResult{Note: "the build made no Main.class: Class `Main` not found", Missing: "Main.class"}, 0, ""},
		{plugin.BuildResult{Output: "Note: Main.java uses unchecked operations.\n", Note: "the build made no Main.class: …", Missing: "Main.class"}, 0, "Note: Main.java uses unchecked operations.\n"},
		{plugin.BuildResult{Note: "compilation stopped: processor time limit exceeded (30s)"}, 1, "compilation stopped: processor time limit exceeded (30s)\n"},
	} {
		status := compileStatus(c.b)
		if got := compileMessages(c.b, status); status != c.status || got != c.want {
			t.Errorf("%+v: status %d, -2 %q; want %d, %q", c.b, status, got, c.status, c.want)
		}
	}
}

// Copying the artefacts back leaves out one the build did not make (a
// compile of status 0 without Main.class: the Runner finds it missing).
func TestOmegajailCopyArtefactsLeavesOutMissing(t *testing.T) {
	from, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(from, "Other.class"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := copyArtefacts(from, home, []string{"main.jar", "Main.class", "Other.class"}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(home)
	if len(ents) != 1 || ents[0].Name() != "Other.class" {
		t.Errorf("home holds %v, want Other.class only", ents)
	}
}

// A run gets omegajail's rule for new tasks for its language (threads only
// for C++ and Java, nothing for Python) and -t as its time limit, with no
// extra time for Java: omegajail adds none.
func TestOmegajailRunPolicyAndTime(t *testing.T) {
	for _, c := range []struct{ omega, id, tasks string }{
		{"cpp17-gcc", "cpp17", shim.TasksThreads}, {"java", "java", shim.TasksThreads}, {"py3", "python3", shim.TasksNone},
	} {
		l, err := lang.Default().Lookup(c.id)
		if err != nil {
			t.Fatal(err)
		}
		req, err := omegajail.ParseArgs([]string{"--homedir", "h", "-t", "1000", "-w", "0", "--run", c.omega})
		if err != nil {
			t.Fatal(err)
		}
		run := omegajailRunRequest(req, l, "/var/grade/1/Main/bin", l.Run)
		if run.Tasks != c.tasks || run.Limits.Time != time.Second || run.Wait.Wall != time.Second {
			t.Errorf("%s: tasks %q, time limit %v, wall %v; want %q, 1s, 1s", c.omega, run.Tasks, run.Limits.Time, run.Wait.Wall, c.tasks)
		}
	}
}

// A run's memory limit is -m plus omegajail's headroom for the language,
// and the JVM's heap is omegajail's -Xmx (-m + 18 MiB).
func TestOmegajailRunMemory(t *testing.T) {
	const m = 64 << 20
	for _, c := range []struct {
		omega string
		limit int64
	}{
		{"cpp17-gcc", m + 16<<20}, {"rb", m + 56<<20}, {"js", m + 89<<20}, {"cs", m + 20<<20}, {"go", m + 512<<20},
		{"kt", omegajail.RunMemoryLimit("kt", m)},
	} {
		id, err := omegajail.LanguageID(c.omega)
		if err != nil {
			t.Fatal(err)
		}
		run := runRequestOf(t, id, "/var/grade/1/Main/bin", "--homedir", "h", "-m", "67108864", "--run", c.omega)
		if run.Limits.Memory != c.limit {
			t.Errorf("%s: memory limit %d, want %d", c.omega, run.Limits.Memory, c.limit)
		}
		if heap := "-Xmx" + strconv.Itoa(m+18<<20); (c.omega == "kt") != slices.Contains(run.Command, heap) {
			t.Errorf("%s: command %q; want %s for the JVM only", c.omega, run.Command, heap)
		}
	}
}

// The reported memory is the peak less the runtime's baseline; an MLE
// still reports more than -m, the Runner's MLE.
func TestOmegajailMetaMemory(t *testing.T) {
	ok := plugin.JudgedRun{Verdict: plugin.AC, RunResult: runner.RunResult{Measure: runner.Measure{Peak: 60 << 20, ContainerPeak: 70 << 20}}}
	if m := omegajailMeta(ok, "java", 64<<20, 0); m.MemBytes != 13<<20 {
		t.Errorf("java at 60 MiB: mem %d, want 13 MiB (47 MiB of JVM off)", m.MemBytes)
	}
	if m := omegajailMeta(ok, "cpp17-gcc", 64<<20, 0); m.MemBytes != 60<<20 {
		t.Errorf("C++ at 60 MiB: mem %d, want all of it", m.MemBytes)
	}
	mle := plugin.JudgedRun{Verdict: plugin.MLE, RunResult: runner.RunResult{Measure: runner.Measure{Peak: 80 << 20, ContainerPeak: 84 << 20}}}
	m := omegajailMeta(mle, "cs", 64<<20, 0)
	if v := omegajail.RunnerVerdict(m, omegajail.ForRun("cs", 64<<20)); v != "MLE" || m.MemBytes != 64<<20+1 {
		t.Errorf("C# stopped at 84 MiB: meta %+v, verdict %s; want MLE, mem just over -m (84 - 20 MiB is not)", m, v)
	}
}

// Pascal's and C#'s compile messages go to -1, which the Runner reads for
// them; every other language's to -2.
func TestOmegajailCompileMessagesFile(t *testing.T) {
	dir := t.TempDir()
	for omega, want := range map[string]string{"pas": "out", "cs": "out", "hs": "err", "cpp17-clang": "err"} {
		req := omegajail.Request{Language: omega, Stdout: filepath.Join(dir, "compile.out"), Stderr: filepath.Join(dir, "compile.err")}
		if err := writeCompileMessages(req, "Main.x:1: error\n"); err != nil {
			t.Fatal(err)
		}
		out, _ := os.ReadFile(req.Stdout)
		errOut, _ := os.ReadFile(req.Stderr)
		got := map[bool]string{true: "out", false: "err"}[len(out) > 0]
		if got != want || len(out)+len(errOut) != len("Main.x:1: error\n") {
			t.Errorf("%s: compile.out %q, compile.err %q; want the message in compile.%s only", omega, out, errOut, want)
		}
	}
}

// Time as omegajail judges it: SIGXCPU where its RLIMIT_CPU (-t rounded up
// to whole seconds) or its wall limit stops the program, whatever it did
// after; over -t but short of the rlimit, the program ends as it did. The
// figures split user and system time as the charged reading does.
func TestOmegajailMetaTime(t *testing.T) {
	ms := uint64(1500)
	limit := omegajail.Request{TimeLimitMs: &ms}.CPUTimeLimit()
	if limit != 2*time.Second {
		t.Fatalf("RLIMIT_CPU of -t 1500: %v, want 2s", limit)
	}
	orphans := &shim.Report{TimeUs: 5000, UserUs: 4000, SysUs: 1000, CgroupUs: 2_500_000, CgroupUserUs: 2_400_000, CgroupSysUs: 100_000}
	run := func(v plugin.Verdict, cpu time.Duration, killed runner.KillReason, signal string, code int32, rep *shim.Report) plugin.JudgedRun {
		m := runner.Measure{Time: cpu, ShimTime: -1, ProgramCPU: -1}
		if rep != nil {
			m.ShimTime, m.ProgramCPU = time.Duration(rep.TimeUs)*time.Microsecond, time.Duration(rep.CgroupUs)*time.Microsecond
		}
		return plugin.JudgedRun{Verdict: v, RunResult: runner.RunResult{Killed: killed, Signal: signal, ExitCode: code, Report: rep, Measure: m}}
	}
	for _, c := range []struct {
		name    string
		res     plugin.JudgedRun
		signal  string
		verdict string
	}{
		{"a child never waited for, past the rlimit", run(plugin.TLE, 2500*time.Millisecond, 0, "", 0, orphans), "SIGXCPU", "TLE"},
		{"past the rlimit, then SIGSEGV", run(plugin.TLE, 2100*time.Millisecond, 0, "SIGSEGV", 139, nil), "SIGXCPU", "TLE"},
		{"stopped at the processor ceiling", run(plugin.TLE, 1990*time.Millisecond, runner.KilledCPULimit, "SIGKILL", 137, nil), "SIGXCPU", "TLE"},
		{"over -t, short of the rlimit, then SIGSEGV", run(plugin.TLE, 1700*time.Millisecond, 0, "SIGSEGV", 139, nil), "SIGSEGV", "RTE"},
		{"over -t, short of the rlimit, exit 0", run(plugin.TLE, 1700*time.Millisecond, 0, "", 0, nil), "", "OK"},
	} {
		m := omegajailMeta(c.res, "cpp17-gcc", 64<<20, limit)
		if v := omegajail.RunnerVerdict(m, omegajail.ForRun("cpp17-gcc", 64<<20)); m.Signal != c.signal || v != c.verdict {
			t.Errorf("%s: meta %+v, verdict %s; want signal %q, %s", c.name, m, v, c.signal, c.verdict)
		}
	}
	m := omegajailMeta(run(plugin.TLE, 2500*time.Millisecond, 0, "", 0, orphans), "cpp17-gcc", 64<<20, limit)
	if m.TimeUs != 2_400_000 || m.SysTimeUs != 100_000 {
		t.Errorf("charged from the program's cgroup: time %d, time-sys %d; want its cpu.stat's user and system", m.TimeUs, m.SysTimeUs)
	}
}
