package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/policy"
)

// The attacks of docs/security.md. Each is a small static C program of
// testdata/hostile that make vm-payload builds into the test image as
// /hostile/NAME; each test runs one through `podjail run --json` under
// small limits and checks the verdict, the evidence the program printed
// (one "name: ERRNO" line per attempt, "result: ..." at the end) and that
// nothing is left on the host: runArgvJSON registers assertNothingLeft
// (no container, no podjail_* cgroup or unit), runHostile adds that no
// process of the program is left. TestSecurityDocMatchesHostileTests keeps
// the table and these tests together.

// hostile is the path of an attack program in the test image. The drift
// test reads the names given to it, so call it with a literal.
func hostile(name string) string { return "/hostile/" + name }

// hostileFlags are the limits every attack runs under (L = 1 s: processor
// ceiling 3 s, no progress 8 s, absolute cap 15 s), then extra flags; the
// flag package keeps the last value of a repeated flag.
func hostileFlags(extra ...string) []string {
	return append([]string{"--time-limit", "1s", "--memory", "64M", "--output-limit", "1M"}, extra...)
}

// memoryHogFlags are hostileFlags for a program whose point is the memory
// limit: a time limit it does not reach first (a run over its time limit
// is TLE whatever came after, and filling 64 MiB under emulation took 1.1 s
// of system time).
func memoryHogFlags() []string { return hostileFlags("--time-limit", "10s") }

// runHostile runs program with args and logs how it ended. After the test
// it checks that no process of the program is left on the host.
func runHostile(t *testing.T, env hosttest.Env, flags []string, program string, args ...string) (plugin.JudgedRun, []byte) {
	t.Helper()
	start := time.Now()
	res, out := runArgvJSON(t, env, flags, append([]string{program}, args...)...)
	t.Cleanup(func() {
		for _, p := range processesRunning(env, program) {
			t.Errorf("process of %s left behind: pid %d", program, p)
		}
	})
	m := res.Measure
	t.Logf("%s %v: verdict %s (%s); exit %d, signal %q, killed %q; time %v (%s), shim %v; peak %d; wall %v (%v in all); %d bytes of output",
		program, args, res.Verdict, res.VerdictNote, res.ExitCode, res.Signal, res.Killed, m.Time, m.TimeFrom, m.ShimTime,
		m.Peak, res.Wall, time.Since(start).Round(time.Millisecond), res.OutputBytes)
	if res.Report != nil {
		t.Logf("shim report: %+v", *res.Report)
	}
	shown := out
	if len(shown) > 4096 {
		shown = shown[len(shown)-4096:]
	}
	if bytes.ContainsFunc(shown, func(r rune) bool { return r != '\n' && r != '\t' && !unicode.IsPrint(r) }) {
		t.Logf("output (last 4 KiB at most, quoted):\n%q", shown)
	} else {
		t.Logf("output (last 4 KiB at most):\n%s", shown)
	}
	return res, out
}

// wantSyscallNamed checks that an RFE names the call when this user can
// read the kernel log (root; rootless only without dmesg_restrict), and
// says why not otherwise.
func wantSyscallNamed(t *testing.T, res plugin.JudgedRun, call string) {
	t.Helper()
	f, err := os.Open("/dev/kmsg")
	if err == nil {
		f.Close()
		if res.Syscall != call || !strings.Contains(res.VerdictNote, call) {
			t.Errorf("syscall %q (%s), note %q; want %q named", res.Syscall, res.SyscallUnknown, res.VerdictNote, call)
		}
		return
	}
	t.Logf("this user cannot read the kernel log: %v", err)
	if res.Syscall != "" || !strings.Contains(res.VerdictNote, "no log of seccomp kills is readable") {
		t.Errorf("syscall %q, note %q; want it unnamed, saying the log is unreadable", res.Syscall, res.VerdictNote)
	}
}

func wantVerdict(t *testing.T, res plugin.JudgedRun, want plugin.Verdict, note string) {
	t.Helper()
	if res.Verdict != want || !strings.Contains(res.VerdictNote, note) {
		t.Fatalf("verdict %s (%s); want %s with %q (exit %d, signal %q, killed %q)",
			res.Verdict, res.VerdictNote, want, note, res.ExitCode, res.Signal, res.Killed)
	}
}

// wantLines checks that each line is in out, whole.
func wantLines(t *testing.T, out []byte, lines ...string) {
	t.Helper()
	have := strings.Split(string(out), "\n")
	for _, l := range lines {
		if !slices.Contains(have, l) {
			t.Errorf("no line %q in the output", l)
		}
	}
}

// wantLinePrefix checks that some line of out starts with prefix.
func wantLinePrefix(t *testing.T, out []byte, prefix string) {
	t.Helper()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, prefix) {
			return
		}
	}
	t.Errorf("no line starting with %q in the output", prefix)
}

func wantAbsent(t *testing.T, out []byte, text string) {
	t.Helper()
	if bytes.Contains(out, []byte(text)) {
		t.Errorf("the output has %q", text)
	}
}

func wantReport(t *testing.T, res plugin.JudgedRun) {
	t.Helper()
	if res.Report == nil {
		t.Fatalf("no shim report (shimmed %t): the runner must always get one", res.Shimmed)
	}
}

// TestHostileForkBomb: fork fails with EAGAIN at the program cgroup's
// pids.max; the processes spin on the failing fork until the processor
// ceiling. Whatever it ends with, the run ends and nothing is left.
func TestHostileForkBomb(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags("--pids", "32"), hostile("forkbomb"))
	wantVerdict(t, res, plugin.TLE, "processor ceiling")
	wantLines(t, out, "result: fork failed EAGAIN")
	wantReport(t, res)
	if p := res.Report.PidsPeak; p < 2 || p > 32 {
		t.Errorf("pids.peak of the program cgroup %d: want the bomb held at most at --pids 32", p)
	}
}

// TestHostileThreadsBurnCPU: four spinning threads share the one core of
// the CPU quota; the processor ceiling stops them, and the time charged is
// every thread's (one thread alone gets about a quarter of it).
func TestHostileThreadsBurnCPU(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("threads"))
	wantVerdict(t, res, plugin.TLE, "processor ceiling")
	wantLines(t, out, "result: 4 threads spinning")
	if m := res.Measure; m.Time < 1500*time.Millisecond || m.ShimTime < 1500*time.Millisecond {
		t.Errorf("time %v, shim's rusage %v: want both at least 1.5 s, every thread counted", m.Time, m.ShimTime)
	}
}

func TestHostileMallocPastLimit(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, memoryHogFlags(), hostile("mallochog"))
	wantVerdict(t, res, plugin.MLE, "memory.events")
	if res.Signal != "SIGKILL" {
		t.Errorf("signal %q, want SIGKILL from the OOM killer", res.Signal)
	}
	wantLines(t, out, "allocated 32 MiB")
	wantAbsent(t, out, "result:")
}

func TestHostileMmapPastLimit(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, memoryHogFlags(), hostile("mmaphog"))
	wantVerdict(t, res, plugin.MLE, "memory.events")
	if res.Signal != "SIGKILL" {
		t.Errorf("signal %q, want SIGKILL from the OOM killer", res.Signal)
	}
	wantLines(t, out, "mapped 1024 MiB", "touched 32 MiB")
	wantAbsent(t, out, "result:")
}

// TestHostileScratchOneFile: RLIMIT_FSIZE equals the scratch size, and the
// kernel checks the file size limit before it allocates a block: the file
// reaches exactly 16 MiB (the tmpfs is then full) and the next write is
// SIGXFSZ, not ENOSPC.
func TestHostileScratchOneFile(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("filltmp"), "one")
	wantVerdict(t, res, plugin.RTE, "SIGXFSZ")
	mib := policy.Default().ScratchBytes >> 20
	wantLines(t, out, "wrote "+strconv.FormatInt(mib, 10)+" MiB")
	wantAbsent(t, out, "wrote "+strconv.FormatInt(mib+1, 10)+" MiB")
	wantAbsent(t, out, "result:")
}

// TestHostileScratchManyFiles: files under the size limit fill the tmpfs
// (ENOSPC); the next run's scratch is empty again.
func TestHostileScratchManyFiles(t *testing.T) {
	env := hosttest.Podman(t)
	scratch := policy.Default().ScratchBytes
	res, out := runHostile(t, env, hostileFlags(), hostile("filltmp"), "many")
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "result: full ENOSPC after "+strconv.FormatInt(scratch>>20, 10)+" MiB")

	res, out = runHostile(t, env, hostileFlags(), hostile("filltmp"), "check")
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "result: /tmp empty, "+strconv.FormatInt(scratch, 10)+" bytes free")
}

// TestHostileSharedMemory: /dev/shm is read-only (a read-only root without
// read-write tmpfs); memfds are charged to the program's cgroup, so
// filling them is MLE.
func TestHostileSharedMemory(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, memoryHogFlags(), hostile("shm"))
	wantVerdict(t, res, plugin.MLE, "memory.events")
	wantLinePrefix(t, out, "/dev/shm: EROFS")
	wantLines(t, out, "memfd: 32 MiB")
	wantAbsent(t, out, "result:")
}

func TestHostileWriteRoot(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("rofs"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "create /escape: EROFS", "mkdir /hostile/escape: EROFS", "symlink /escape-link: EROFS", "result: blocked")
}

func TestHostileExecFromScratch(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("noexec"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "copied to /tmp/copy", "execve /tmp/copy: EACCES", "mmap PROT_EXEC /tmp/copy: EPERM", "result: blocked")
}

func TestHostileOutputFlood(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("flood"))
	wantVerdict(t, res, plugin.OLE, "bytes of output")
	if res.Killed != runner.KilledOutputLimit || len(out) != 1<<20 {
		t.Errorf("killed %q, %d bytes kept; want %q and exactly 1 MiB", res.Killed, len(out), runner.KilledOutputLimit)
	}
}

// TestHostileStderrFlood: the program's stderr is /dev/null; the flood
// neither reaches the runner nor buries the shim's report.
func TestHostileStderrFlood(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("errflood"))
	wantVerdict(t, res, plugin.AC, "")
	if want := "stderr: /dev/null\nresult: wrote 67108864 bytes to stderr\n"; string(out) != want {
		t.Errorf("output %q, want %q", out, want)
	}
	wantReport(t, res)
}

// TestHostileSleepForever: L = 0.2 s, so no progress fires after 4.8 s.
func TestHostileSleepForever(t *testing.T) {
	env := hosttest.Podman(t)
	res, _ := runHostile(t, env, hostileFlags("--time-limit", "0.2s"), hostile("sleep"))
	wantVerdict(t, res, plugin.TLE, "no progress")
	if res.Killed != runner.KilledIdle {
		t.Errorf("killed %q, want %q", res.Killed, runner.KilledIdle)
	}
}

// TestHostileTick: L = 0.2 s; the tick keeps the processor time growing,
// so no progress (4.8 s) never fires and the absolute cap 5(L+2s) = 11 s
// stops it.
func TestHostileTick(t *testing.T) {
	env := hosttest.Podman(t)
	res, _ := runHostile(t, env, hostileFlags("--time-limit", "0.2s"), hostile("tick"))
	wantVerdict(t, res, plugin.TLE, "absolute cap")
	if res.Killed != runner.KilledWallLimit || !strings.Contains(res.KilledNote, "11s of elapsed time") {
		t.Errorf("killed %q (%s), want %q after 11s", res.Killed, res.KilledNote, runner.KilledWallLimit)
	}
}

func TestHostileSetsidEscape(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("setsid"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "setsid: ENOSYS", "setpgid: ENOSYS", "parent exits")
	wantAbsent(t, out, "escaped")
	wantReport(t, res)
	if res.Report.Reaped < 1 {
		t.Errorf("the shim reaped %d processes: the child was not killed by it", res.Report.Reaped)
	}
}

// TestHostileKillAll: kill(-1, SIGKILL) reaches only the program's own
// child (Linux spares the caller and pid 1); the program then kills its
// own process group, itself, and the shim still reports.
func TestHostileKillAll(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("kill"))
	wantVerdict(t, res, plugin.RTE, "killed by SIGKILL")
	wantReport(t, res)
	if res.Report.Signal != "SIGKILL" {
		t.Errorf("the shim reports signal %q, want SIGKILL", res.Report.Signal)
	}
	wantLines(t, out, "kill(-1): ok", "child: signal 9", "kill(1): EPERM", "result: survived kill(-1)")
	wantAbsent(t, out, "still alive")
}

func TestHostileNetwork(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("net"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out,
		"connect 1.1.1.1:80: ENETUNREACH",
		"connect 10.88.0.1:80: ENETUNREACH",
		"connect 10.0.2.2:80: ENETUNREACH",
		"sendto udp 1.1.1.1:53: ENETUNREACH",
		"result: blocked")
}

func TestHostileProcOfShim(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("procpeek"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "open /proc/1/environ: EACCES", "opendir /proc/1/fd: EACCES", "readlink /proc/1/exe: EACCES", "result: blocked")
}

func TestHostileOpensTheRunsPipes(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("pipes"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out,
		"open /run/podjail/control for reading: EACCES",
		"open /run/podjail/control for writing: EACCES",
		"open /run/podjail/stdout for reading: EACCES",
		"open /run/podjail/stdout for writing: EACCES",
		"open /run/podjail/status for reading: EACCES",
		"open /run/podjail/status for writing: EACCES",
		"result: blocked")
}

func TestHostilePtraceShim(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("ptrace"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "ptrace(PTRACE_ATTACH, 1): EPERM", "ptrace(PTRACE_SEIZE, 1): EPERM", "pidfd_getfd(1, 2): EPERM", "result: blocked")
}

func TestHostileCgroupEscape(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("cgroup"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out,
		"memory.max: "+strconv.Itoa(64<<20),
		"raise memory.max: EACCES",
		"raise pids.max: EACCES",
		"move to the namespace's root cgroup: EACCES",
		"move to the shim's cgroup: EACCES",
		"kill the shim's cgroup: EACCES",
		"make a child cgroup: EACCES",
		"result: blocked")
}

// TestHostileUnshareMount: mount and a new mount namespace need a
// capability the program lacks, and no namespace at all is the program's:
// the shim's namespace filter (shim/doc.go, step nsfilter) answers unshare
// and clone with a CLONE_NEW* flag and setns with EPERM, clone3 with ENOSYS,
// never a kill; threads (glibc's pthread_create tries clone3, then clone)
// and fork still work.
func TestHostileUnshareMount(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("unshare"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out,
		"mount /tmp: EPERM",
		"unshare(CLONE_NEWNS): EPERM",
		"unshare(CLONE_NEWUSER): EPERM",
		"clone(CLONE_NEWUSER): EPERM",
		"setns(/proc/self/ns/user): EPERM",
		"clone3(CLONE_NEWUSER): ENOSYS",
		"pthread_create: ok",
		"fork: ok",
		"unshare(CLONE_NEWUSER|CLONE_NEWNS): EPERM",
		"result: contained")
}

// TestHostileKeyring: the user keyring of 65534 belongs to the user
// namespace, not to the run, so keyctl, add_key and request_key are all
// refused (policy/seccomp.go); a keyring one run could link there must not
// be found by the next.
func TestHostileKeyring(t *testing.T) {
	env := hosttest.Podman(t)
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "podjail-hostile-" + hex.EncodeToString(b)
	res, out := runHostile(t, env, hostileFlags(), hostile("keyring"), "plant", name)
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "add_key: EPERM", "request_key: EPERM", "keyctl(JOIN_SESSION_KEYRING): EPERM")

	res, out = runHostile(t, env, hostileFlags(), hostile("keyring"), "find", name)
	wantVerdict(t, res, plugin.AC, "")
	if bytes.Contains(out, []byte("result: found")) {
		t.Errorf("a keyring linked by one run into 65534's user keyring is found by the next run (docs/security.md)")
	}
	wantLinePrefix(t, out, "result: not found")
}

func TestHostileBPF(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("bpf"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "bpf(BPF_MAP_CREATE): EPERM", "bpf(BPF_PROG_LOAD): EPERM", "result: blocked")
}

func TestHostilePerfEvent(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("perf"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "perf_event_open(self): EPERM", "perf_event_open(1): EPERM", "result: blocked")
}

func TestHostileIOURing(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("iouring"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "io_uring_setup: ENOSYS", "io_uring_enter: ENOSYS", "io_uring_register: ENOSYS", "result: blocked")
}

func TestHostileInt80(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("int80"))
	wantVerdict(t, res, plugin.RFE, "SIGSYS")
	wantSyscallNamed(t, res, "getpid (i386 system call 20)")
	wantLines(t, out, "calling getpid through int 0x80")
	wantAbsent(t, out, "escaped")
}

func TestHostileX32(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("x32"))
	wantVerdict(t, res, plugin.RFE, "SIGSYS")
	wantSyscallNamed(t, res, "getpid (x32 system call 39)")
	wantLines(t, out, "calling getpid through the x32 ABI")
	wantAbsent(t, out, "escaped")
}

func TestHostilePersonality(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("personality"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out,
		"personality(READ_IMPLIES_EXEC): ENOSYS",
		"personality(ADDR_NO_RANDOMIZE): ENOSYS",
		"personality(PER_LINUX32): ok",
		"personality(PER_LINUX32|READ_IMPLIES_EXEC): ENOSYS",
		"personality(PER_LINUX): ok",
		"result: personality now 0")
}

// TestHostileClosedStdout: the shim still holds the container's stdout, so
// the runner sees no end of output; the processor ceiling ends the run.
func TestHostileClosedStdout(t *testing.T) {
	env := hosttest.Podman(t)
	res, out := runHostile(t, env, hostileFlags(), hostile("closeout"))
	wantVerdict(t, res, plugin.TLE, "processor ceiling")
	if string(out) != "result: closing stdout\n" {
		t.Errorf("output %q, want only the line written before closing", out)
	}
}

func TestHostileReadInputTwice(t *testing.T) {
	env := hosttest.Podman(t)
	input := make([]byte, 100<<10)
	_, _ = rand.Read(input)
	copy(input[10:], "\x00\x00\n\r\n\x00")
	in := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(in, input, 0o644); err != nil {
		t.Fatal(err)
	}
	// The Podman service of a rootless user reads the file as that user.
	if err := os.Chmod(filepath.Dir(in), 0o755); err != nil {
		t.Fatal(err)
	}
	res, out := runHostile(t, env, hostileFlags("--input", in), hostile("reread"))
	wantVerdict(t, res, plugin.AC, "")
	wantLines(t, out, "stdin: regular file", "result: both reads equal, "+strconv.Itoa(len(input))+" bytes")
}

func TestHostileHugeLine(t *testing.T) {
	env := hosttest.Podman(t)
	const n = 4<<20 + 1
	res, out := runHostile(t, env, hostileFlags("--output-limit", "8M"), hostile("longline"), strconv.Itoa(n))
	wantVerdict(t, res, plugin.AC, "")
	if res.OutputBytes != n || len(out) != n || !bytes.Equal(out, bytes.Repeat([]byte("x"), n)) {
		t.Errorf("output_bytes %d, %d bytes kept; want exactly %d bytes of 'x' and no newline", res.OutputBytes, len(out), n)
	}
}

func TestHostileBinaryOutput(t *testing.T) {
	env := hosttest.Podman(t)
	want := make([]byte, 65536)
	for i := range want {
		want[i] = byte(i ^ i>>8)
	}
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 16, 0, '\r', '\n', 0x1b, '[', '2', 'J', 0xff, 0xfe, 0)
	res, out := runHostile(t, env, hostileFlags(), hostile("binary"))
	wantVerdict(t, res, plugin.AC, "")
	if !bytes.Equal(out, want) || res.OutputBytes != int64(len(want)) {
		i := 0
		for i < len(out) && i < len(want) && out[i] == want[i] {
			i++
		}
		t.Errorf("output_bytes %d, %d bytes kept, first difference at byte %d; want exactly the %d bytes written", res.OutputBytes, len(out), i, len(want))
	}
}

// securityDoc is docs/security.md from this package's directory.
var securityDoc = filepath.Join("..", "..", "docs", "security.md")

// TestSecurityDocMatchesHostileTests keeps docs/security.md's attack table,
// the tests and the attack programs together: every test the table names is
// a test function of this package, every TestHostile function has a row,
// and every program of testdata/hostile is run by a test and exists.
func TestSecurityDocMatchesHostileTests(t *testing.T) {
	if hosttest.Required() {
		t.Skip("the sources are not in the test VM; this test runs with go test in the repository")
	}
	doc, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := attackTable(string(doc), "attack")
	if err != nil {
		t.Fatalf("%s: %v", securityDoc, err)
	}
	funcs, programs := testFuncs(t)

	inTable := map[string]bool{}
	for _, r := range rows {
		inTable[r.test] = true
		if !funcs[r.test] {
			t.Errorf("%s: the row %q names %s, which is no test function of this package", securityDoc, r.attack, r.test)
		}
	}
	for f := range funcs {
		if strings.HasPrefix(f, "TestHostile") && !inTable[f] {
			t.Errorf("%s has no row for %s", securityDoc, f)
		}
	}

	sources, err := filepath.Glob(filepath.Join("testdata", "hostile", "*.c"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, s := range sources {
		name := strings.TrimSuffix(filepath.Base(s), ".c")
		have[name] = true
		if !programs[name] {
			t.Errorf("%s is run by no test (hostile(%q) appears nowhere)", s, name)
		}
	}
	for p := range programs {
		if !have[p] {
			t.Errorf("hostile(%q) is used, but testdata/hostile/%s.c does not exist", p, p)
		}
	}
}

type attackRow struct{ attack, expected, test string }

// attackTable parses the markdown table whose header is exactly
// "KIND | expected | test" (KIND: attack, fault). The test cell is one
// function name, in backticks or not.
func attackTable(doc, kind string) ([]attackRow, error) {
	lines := strings.Split(doc, "\n")
	cells := func(line string) []string {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
			return nil
		}
		parts := strings.Split(line[1:len(line)-1], "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	start := -1
	for i, l := range lines {
		if c := cells(l); slices.Equal(c, []string{kind, "expected", "test"}) {
			if start >= 0 {
				return nil, fmt.Errorf("two %s tables", kind)
			}
			start = i
		}
	}
	if start < 0 || start+1 >= len(lines) {
		return nil, fmt.Errorf("no table with the header \"| %s | expected | test |\"", kind)
	}
	if sep := cells(lines[start+1]); len(sep) != 3 || !strings.HasPrefix(sep[0], "---") && !strings.HasPrefix(sep[0], ":--") {
		return nil, errors.New("the attack table's header is not followed by its separator line")
	}
	var rows []attackRow
	for n, l := range lines[start+2:] {
		c := cells(l)
		if c == nil {
			break
		}
		if len(c) != 3 {
			return nil, fmt.Errorf("line %d: %d cells in a row of the attack table, want 3 (a | inside a cell?)", start+3+n, len(c))
		}
		test := strings.Trim(c[2], "`")
		if !token.IsIdentifier(test) || c[0] == "" || c[1] == "" {
			return nil, fmt.Errorf("line %d: want an attack, its expected outcome and one test function name, got %q", start+3+n, l)
		}
		rows = append(rows, attackRow{c[0], c[1], test})
	}
	if len(rows) == 0 {
		return nil, errors.New("the attack table has no rows")
	}
	return rows, nil
}

// testFuncs parses this package's _test.go files: the names of its test
// functions, and the literal names passed to hostile().
func testFuncs(t *testing.T) (funcs, programs map[string]bool) {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no _test.go files here (%v)", err)
	}
	funcs, programs = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				funcs[fd.Name.Name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "hostile" {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					programs[s] = true
				}
			} else {
				t.Errorf("%s: hostile() called with a non-literal; the drift test cannot follow it", fset.Position(call.Pos()))
			}
			return true
		})
	}
	return funcs, programs
}
