package shim

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func requireAmd64(t *testing.T) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the namespace filter is written for amd64 only")
	}
}

func TestSeccompStructSizes(t *testing.T) {
	if s := unsafe.Sizeof(seccompData{}); s != 64 {
		t.Errorf("seccomp_data is %d bytes, want 64", s)
	}
	// The ioctl numbers carry the sizes (80 and 24).
	if s, want := unsafe.Sizeof(seccompNotif{}), uintptr(unix.SECCOMP_IOCTL_NOTIF_RECV>>16&0x3fff); s != want {
		t.Errorf("seccomp_notif is %d bytes, want %d", s, want)
	}
	if s, want := unsafe.Sizeof(seccompNotifResp{}), uintptr(unix.SECCOMP_IOCTL_NOTIF_SEND>>16&0x3fff); s != want {
		t.Errorf("seccomp_notif_resp is %d bytes, want %d", s, want)
	}
}

// testCgroup makes a cgroup for one test under this process's cgroup2 directory
// and returns it open, as the shim's program/ is; -1 and "" if there is none.
func testCgroup(t *testing.T) (int, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return -1, ""
	}
	mnt := cgroup2Mount()
	own, err := ownCgroup()
	if mnt == "" || err != nil {
		t.Logf("no cgroup2 here (mount %q, %v): the child is forked with clone, not clone3", mnt, err)
		return -1, ""
	}
	rel := filepath.Join(own, fmt.Sprintf("podjail-nsfilter-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	dir := filepath.Join(mnt, rel)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Logf("cannot make a test cgroup: %v: the child is forked with clone, not clone3", err)
		return -1, ""
	}
	f, err := os.Open(dir)
	if err != nil {
		os.Remove(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		for i := 0; i < 100 && os.Remove(dir) != nil; i++ { // a reaped child may linger a moment
			time.Sleep(10 * time.Millisecond)
		}
	})
	return int(f.Fd()), rel
}

// cgroup2Mount is where cgroup2 is mounted (/sys/fs/cgroup, or a hybrid host's
// /sys/fs/cgroup/unified), or "".
func cgroup2Mount() string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if f := strings.Fields(pre); ok && len(f) >= 5 && strings.HasPrefix(post, "cgroup2 ") {
			return f[4]
		}
	}
	return ""
}

// filtered starts argv under the namespace filter exactly as the shim starts the
// program (spawnFiltered), with cred and, if cgroupFD >= 0, clone3 into that
// cgroup, and returns its stdout and stderr and its wait status.
func filtered(t *testing.T, argv []string, env []string, cred *syscall.Credential, cgroupFD int) (string, syscall.WaitStatus) {
	t.Helper()
	return filteredTasks(t, argv, env, cred, cgroupFD, TasksAny)
}

// filteredTasks is filtered with the rule tasks for new tasks.
func filteredTasks(t *testing.T, argv []string, env []string, cred *syscall.Credential, cgroupFD int, tasks string) (string, syscall.WaitStatus) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	sys := &syscall.SysProcAttr{Credential: cred}
	if cgroupFD >= 0 {
		sys.UseCgroupFD, sys.CgroupFD = true, cgroupFD
	}
	pid, err := spawnFiltered(argv[0], argv, &syscall.ProcAttr{Env: env, Files: []uintptr{null.Fd(), w.Fd(), w.Fd()}, Sys: sys}, tasks)
	w.Close()
	if err != nil {
		t.Fatalf("spawnFiltered: %v", err)
	}
	out, _ := io.ReadAll(r)
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	return withoutCoverWarning(string(out)), ws
}

// nsProbeWant is what helperNSProbe must print, in order; its "info" lines are
// only logged.
var nsProbeWant = []string{
	"unshare(CLONE_NEWNS): EPERM",
	"unshare(CLONE_NEWCGROUP): EPERM",
	"unshare(CLONE_NEWUTS): EPERM",
	"unshare(CLONE_NEWIPC): EPERM",
	"unshare(CLONE_NEWUSER): EPERM",
	"unshare(CLONE_NEWPID): EPERM",
	"unshare(CLONE_NEWNET): EPERM",
	"unshare(CLONE_NEWTIME): EPERM",
	"unshare(CLONE_NEWUSER|CLONE_NEWNS): EPERM",
	"unshare(0): ok",
	"clone(CLONE_NEWUSER|SIGCHLD): EPERM",
	"clone(CLONE_NEWNET|SIGCHLD): EPERM",
	"clone(CLONE_NEWPID|SIGCHLD): EPERM",
	"setns(/proc/self/ns/uts, CLONE_NEWUTS): EPERM",
	"setns(/proc/self/ns/user, 0): EPERM",
	"clone3(NULL, 0): ENOSYS",
	"clone3({exit_signal SIGCHLD}): ENOSYS",
	"clone3({CLONE_NEWUSER, exit_signal SIGCHLD}): ENOSYS",
	"fork: ok",
	"threads: ok",
	"exec: echo: ok",
	"listener: none",
}

// TestNSFilterChild starts the test binary under the filter, as the shim starts a
// program, and checks what it may and may not do. As 65534 it is the shim's way
// exactly; as root the kernel would have granted every namespace, so every
// EPERM there is the filter's.
func TestNSFilterChild(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	for _, who := range []struct {
		name string
		cred *syscall.Credential
	}{{"nobody", nobodyCred()}, {"root", nil}} {
		t.Run(who.name, func(t *testing.T) {
			fd, cg := testCgroup(t)
			out, ws := filtered(t, []string{"/proc/self/exe", "helper"}, []string{helperEnv + "=nsprobe"}, who.cred, fd)
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.HasPrefix(l, "info ") {
					t.Log(l)
					continue
				}
				got = append(got, l)
			}
			if !slices.Equal(got, nsProbeWant) {
				t.Errorf("the child said:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(nsProbeWant, "\n"))
			}
			if ws.ExitStatus() != 0 {
				t.Errorf("the child ended with %v", ws)
			}
			if cg != "" && !strings.Contains(out, "info cgroup: 0::"+cg+"\n") {
				t.Errorf("the child is not in %s (clone3 into the cgroup): %s", cg, out)
			}
		})
	}
}

// helperNSProbe is the child of TestNSFilterChild.
func helperNSProbe() int {
	say := func(what string, e syscall.Errno) { fmt.Printf("%s: %s\n", what, errnoOK(e)) }
	for _, f := range []struct {
		name string
		flag uintptr
	}{
		{"CLONE_NEWNS", unix.CLONE_NEWNS}, {"CLONE_NEWCGROUP", unix.CLONE_NEWCGROUP},
		{"CLONE_NEWUTS", unix.CLONE_NEWUTS}, {"CLONE_NEWIPC", unix.CLONE_NEWIPC},
		{"CLONE_NEWUSER", unix.CLONE_NEWUSER}, {"CLONE_NEWPID", unix.CLONE_NEWPID},
		{"CLONE_NEWNET", unix.CLONE_NEWNET}, {"CLONE_NEWTIME", unix.CLONE_NEWTIME},
	} {
		say("unshare("+f.name+")", raw(unix.SYS_UNSHARE, f.flag, 0, 0))
	}
	say("unshare(CLONE_NEWUSER|CLONE_NEWNS)", raw(unix.SYS_UNSHARE, unix.CLONE_NEWUSER|unix.CLONE_NEWNS, 0, 0))
	say("unshare(0)", raw(unix.SYS_UNSHARE, 0, 0, 0))
	say("clone(CLONE_NEWUSER|SIGCHLD)", rawFork(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD), 0))
	say("clone(CLONE_NEWNET|SIGCHLD)", rawFork(unix.SYS_CLONE, unix.CLONE_NEWNET|uintptr(unix.SIGCHLD), 0))
	say("clone(CLONE_NEWPID|SIGCHLD)", rawFork(unix.SYS_CLONE, unix.CLONE_NEWPID|uintptr(unix.SIGCHLD), 0))
	for _, ns := range []struct {
		file string
		flag uintptr
		name string
	}{{"uts", unix.CLONE_NEWUTS, "CLONE_NEWUTS"}, {"user", 0, "0"}} {
		fd, err := unix.Open("/proc/self/ns/"+ns.file, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			fmt.Printf("open /proc/self/ns/%s: %v\n", ns.file, err)
			continue
		}
		say(fmt.Sprintf("setns(/proc/self/ns/%s, %s)", ns.file, ns.name), raw(unix.SYS_SETNS, uintptr(fd), ns.flag, 0))
		unix.Close(fd)
	}
	say("clone3(NULL, 0)", raw(unix.SYS_CLONE3, 0, 0, 0))
	for _, c := range []struct {
		name  string
		flags uint64
	}{{"{exit_signal SIGCHLD}", 0}, {"{CLONE_NEWUSER, exit_signal SIGCHLD}", unix.CLONE_NEWUSER}} {
		args := cloneArgs{flags: c.flags, exitSignal: uint64(unix.SIGCHLD)}
		say("clone3("+c.name+")", rawFork(unix.SYS_CLONE3, uintptr(unsafe.Pointer(&args)), unsafe.Sizeof(args)))
	}

	// A plain fork (what glibc's fork does: clone with SIGCHLD); the child exits 7.
	pid, _, e := unix.RawSyscall6(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
	if e == 0 && pid == 0 {
		unix.RawSyscall(unix.SYS_EXIT_GROUP, 7, 0, 0)
	}
	if e != 0 {
		fmt.Printf("fork: %s\n", errnoText(e))
	} else {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(int(pid), &ws, 0, nil)
		if err != nil || ws.ExitStatus() != 7 {
			fmt.Printf("fork: child %v %v\n", ws, err)
		} else {
			fmt.Println("fork: ok")
		}
	}

	fmt.Println("threads:", goWorkload())

	cmd := exec.Command("/proc/self/exe", "helper")
	cmd.Env = []string{helperEnv + "=echo"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		fmt.Printf("exec: %v %q\n", err, out)
	} else {
		fmt.Printf("exec: %s", out)
	}

	listener := "none"
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, ent := range ents {
		target, _ := os.Readlink("/proc/self/fd/" + ent.Name())
		fmt.Printf("info fd %s: %s\n", ent.Name(), target)
		if strings.Contains(target, "seccomp") {
			listener = "fd " + ent.Name() + " " + target
		}
	}
	fmt.Println("listener:", listener)

	st, _ := os.ReadFile("/proc/self/status")
	s := parseStatus(st)
	fmt.Printf("info status: uid %q NoNewPrivs %s Seccomp %s Seccomp_filters %s Threads %s\n",
		s["Uid"], s["NoNewPrivs"], s["Seccomp"], s["Seccomp_filters"], s["Threads"])
	if cg, err := ownCgroup(); err == nil {
		fmt.Printf("info cgroup: 0::%s\n", cg)
	}
	return 0
}

// cloneArgs is struct clone_args of linux/sched.h, version 0 (64 bytes).
type cloneArgs struct {
	flags, pidfd, childTID, parentTID, exitSignal, stack, stackSize, tls uint64
}

func errnoOK(e syscall.Errno) string {
	if e == 0 {
		return "ok"
	}
	return unix.ErrnoName(e)
}

// rawFork makes a clone or clone3 call that, if it ever succeeded, would give a
// child: the child exits at once.
func rawFork(nr, a1, a2 uintptr) syscall.Errno {
	pid, _, e := unix.RawSyscall6(nr, a1, a2, 0, 0, 0, 0)
	if e == 0 && pid == 0 {
		unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
	}
	if e == 0 {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(int(pid), &ws, 0, nil)
	}
	return e
}

// goWorkload makes the Go runtime start threads (goroutines locked to threads,
// goroutines in blocking system calls, busy ones) and says "ok" if it did.
func goWorkload() string {
	const locked = 16
	var started, done sync.WaitGroup
	release := make(chan struct{})
	for i := 0; i < locked; i++ {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with it
			started.Done()
			<-release
		}()
	}
	for i := 0; i < 64; i++ {
		done.Add(1)
		go func(i int) {
			defer done.Done()
			ts := unix.Timespec{Nsec: 1e6}
			_ = unix.Nanosleep(&ts, nil) // a blocking system call
			x := uint64(i)
			for j := 0; j < 100000; j++ {
				x = x*6364136223846793005 + 1442695040888963407
			}
			_ = x
		}(i)
	}
	started.Wait()
	st, _ := os.ReadFile("/proc/self/status")
	threads, _ := strconv.Atoi(parseStatus(st)["Threads"])
	close(release)
	done.Wait()
	if threads <= locked {
		return fmt.Sprintf("only %d threads", threads)
	}
	return "ok"
}

// TestNSFilterStartFails: a program that cannot be executed is reported as the
// start's failure (ForkExec's error), not the filter's, and nothing hangs.
func TestNSFilterStartFails(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	fd, _ := testCgroup(t)
	sys := &syscall.SysProcAttr{Credential: nobodyCred()}
	if fd >= 0 {
		sys.UseCgroupFD, sys.CgroupFD = true, fd
	}
	_, err := spawnFiltered("/nonexistent/program", []string{"/nonexistent/program"}, &syscall.ProcAttr{Files: []uintptr{0, 1, 2}, Sys: sys}, TasksAny)
	if !errors.Is(err, syscall.ENOENT) || stepOf(err) != "" {
		t.Fatalf("err = %v (step %q), want ENOENT from ForkExec", err, stepOf(err))
	}
}

// cProgram: threads through pthread_create (glibc tries clone3 first, then clone),
// fork, and the namespace calls, in C.
const cProgram = `#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *outcome(long r) { return r < 0 ? strerrorname_np(errno) : "ok"; }

static void *work(void *arg) {
	volatile unsigned long x = (unsigned long)arg;
	for (int i = 0; i < 100000; i++) x = x * 6364136223846793005UL + 1;
	return arg;
}

int main(void) {
	printf("unshare(CLONE_NEWUSER): %s\n", outcome(unshare(CLONE_NEWUSER)));
	printf("unshare(CLONE_NEWNS): %s\n", outcome(unshare(CLONE_NEWNS)));
	printf("clone3: %s\n", outcome(syscall(SYS_clone3, NULL, 0)));
	pthread_t th[8];
	int ok = 1;
	for (long i = 0; i < 8; i++)
		if (pthread_create(&th[i], NULL, work, (void *)i) != 0) ok = 0;
	for (long i = 0; i < 8 && ok; i++) {
		void *r;
		if (pthread_join(th[i], &r) != 0 || r != (void *)i) ok = 0;
	}
	printf("pthread_create: %s\n", ok ? "ok" : "failed");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) _exit(7);
	int st = 0;
	if (pid < 0) printf("fork: %s\n", strerrorname_np(errno));
	else printf("fork: %s\n", waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7 ? "ok" : "bad status");
	return 0;
}
`

// cProgramBinary builds cProgram static with gcc where 65534 can run it
// (the test is skipped without gcc).
func cProgramBinary(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc: the C test (gcc -static -pthread) is skipped")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "prog.c"), filepath.Join(dir, "prog")
	if err := os.WriteFile(src, []byte(cProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-static", "-pthread", "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	// t.TempDir's directories are 0700; 65534 must reach the binary.
	for d := dir; d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// TestNSFilterC runs a static C program (glibc) under the filter as 65534.
func TestNSFilterC(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	bin := cProgramBinary(t)
	fd, _ := testCgroup(t)
	out, ws := filtered(t, []string{bin}, nil, nobodyCred(), fd)
	want := "unshare(CLONE_NEWUSER): EPERM\nunshare(CLONE_NEWNS): EPERM\nclone3: ENOSYS\npthread_create: ok\nfork: ok\n"
	if out != want || ws.ExitStatus() != 0 {
		t.Fatalf("the C program said (%v):\n%s\nwant:\n%s", ws, out, want)
	}
}

// TestNSFilterFailsClosed: a process whose filters refuse seccomp() (as a
// container profile could) gets a SetupError of StepNSFilter and no child.
func TestNSFilterFailsClosed(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	out := runHelper(t, "nsfailclosed", nil)
	want := "step=nsfilter errno=EACCES children=none"
	if !strings.Contains(out, want) {
		t.Fatalf("helper said %q, want %q", out, want)
	}
}

// helperNSFailClosed refuses seccomp() to every thread of this process, then
// starts a child as the shim does.
func helperNSFailClosed() int {
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_SECCOMP, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Println("prctl:", err)
		return 1
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		fmt.Println("seccomp:", e)
		return 1
	}
	_, err := spawnFiltered("/proc/self/exe", []string{"helper"}, &syscall.ProcAttr{
		Env: []string{helperEnv + "=echo"}, Files: []uintptr{0, 1, 2}}, TasksAny)
	var errno syscall.Errno
	errors.As(err, &errno)
	children := "none"
	if _, werr := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); werr != syscall.ECHILD {
		children = fmt.Sprintf("some (wait4: %v)", werr)
	}
	fmt.Printf("err=%v step=%s errno=%s children=%s\n", err, stepOf(err), unix.ErrnoName(errno), children)
	return 0
}

// TestNSFilterOneProcessor: with GOMAXPROCS=1 the forking thread holds the only P
// while it waits in clone3 for the listener's answer; spawnFiltered must still
// get through (holdScheduler) and not hang.
func TestNSFilterOneProcessor(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	fd, _ := testCgroup(t)
	if fd < 0 {
		t.Skip("no cgroup to clone3 into: the shim's own clone3 cannot be exercised")
	}
	out := runHelper(t, "nsgomaxprocs1", []*os.File{os.NewFile(uintptr(fd), "cgroup")})
	if !strings.Contains(out, "gomaxprocs=1 child=echo: ok err=<nil> after=1") {
		t.Fatalf("helper said %q", out)
	}
}

// helperNSGomaxprocs1 starts 20 children under the filter with GOMAXPROCS=1, into
// the cgroup open on fd 3.
func helperNSGomaxprocs1() int {
	runtime.GOMAXPROCS(1)
	var last string
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		var r, w *os.File
		if r, w, err = os.Pipe(); err != nil {
			break
		}
		var pid int
		pid, err = spawnFiltered("/proc/self/exe", []string{"helper"}, &syscall.ProcAttr{
			Env: []string{helperEnv + "=echo"}, Files: []uintptr{0, w.Fd(), 2},
			Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: 3}}, TasksAny)
		w.Close()
		if err == nil {
			line, _ := bufio.NewReader(r).ReadString('\n')
			last = strings.TrimSpace(line)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
		r.Close()
	}
	fmt.Printf("gomaxprocs=%d child=%s err=%v after=%d\n", runtime.GOMAXPROCS(0), last, err, runtime.GOMAXPROCS(0))
	return 0
}

// TestNSFilterAftermath: once spawnFiltered is done, no thread of the shim that
// runs Go code holds the filter (the locked thread ended; if it was the main
// thread, Go wedged it for good), and the shim's later setresuid, which Go makes
// on every thread, still works.
func TestNSFilterAftermath(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	fd, _ := testCgroup(t)
	var extra []*os.File
	if fd >= 0 {
		extra = []*os.File{os.NewFile(uintptr(fd), "cgroup")}
	}
	out := runHelper(t, "nsaftermath", extra)
	if !strings.Contains(out, "filtered threads: none; setresuid: ok") &&
		!strings.Contains(out, "filtered threads: none but a wedged main thread; setresuid: ok") {
		t.Fatalf("helper said %q", out)
	}
}

// helperNSAftermath starts a child under the filter from the main goroutine, as
// the shim does (into the cgroup on fd 3 if there is one), then looks at its own
// threads and changes its effective uid back and forth.
func helperNSAftermath() int {
	sys := &syscall.SysProcAttr{}
	if _, err := unix.FcntlInt(3, unix.F_GETFD, 0); err == nil {
		sys.UseCgroupFD, sys.CgroupFD = true, 3
	}
	pid, err := spawnFiltered("/proc/self/exe", []string{"helper"}, &syscall.ProcAttr{
		Env: []string{helperEnv + "=echo"}, Files: []uintptr{0, 2, 2}, Sys: sys}, TasksAny)
	if err != nil {
		fmt.Println("spawn:", err)
		return 1
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, 0, nil)
	time.Sleep(50 * time.Millisecond) // the locked thread's exit
	filteredThreads := "none"
	wedged := false
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		st, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue
		}
		if parseStatus(st)["Seccomp_filters"] != "0" {
			if task.Name() == strconv.Itoa(os.Getpid()) {
				wedged = true
			} else {
				filteredThreads = "thread " + task.Name()
			}
		}
	}
	if filteredThreads == "none" && wedged {
		filteredThreads = "none but a wedged main thread"
	}
	setres := "ok"
	if err := syscall.Setresuid(-1, Nobody, -1); err != nil {
		setres = err.Error()
	} else if err := syscall.Setresuid(-1, 0, -1); err != nil {
		setres = err.Error()
	}
	fmt.Printf("child %v; filtered threads: %s; setresuid: %s\n", ws, filteredThreads, setres)
	return 0
}

// runHelper runs this test binary as helper mode (as root) with extra files from
// fd 3, and gives its output; a helper that hangs fails the test after 30 s.
func runHelper(t *testing.T, mode string, extra []*os.File) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/proc/self/exe", "helper")
	cmd.Env = []string{helperEnv + "=" + mode, coverDir(t)}
	cmd.ExtraFiles = extra
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("helper %s hung: %s", mode, out.String())
	}
	if err != nil {
		t.Fatalf("helper %s: %v: %s", mode, err, out.String())
	}
	t.Log(strings.TrimSpace(out.String()))
	return withoutCoverWarning(out.String())
}

// TestNSFilterTasksC runs the static C program of TestNSFilterC as 65534 under
// each rule for new tasks: with TasksThreads its threads (pthread_create: clone3
// fails with ENOSYS, glibc falls back to clone with CLONE_THREAD) run and its fork
// kills it with SIGSYS; with TasksNone its first thread kills it.
func TestNSFilterTasksC(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	bin := cProgramBinary(t)
	for _, c := range []struct{ tasks, want string }{
		{TasksThreads, "unshare(CLONE_NEWUSER): EPERM\nunshare(CLONE_NEWNS): EPERM\nclone3: ENOSYS\npthread_create: ok\n"},
		{TasksNone, "unshare(CLONE_NEWUSER): EPERM\nunshare(CLONE_NEWNS): EPERM\nclone3: ENOSYS\n"},
	} {
		t.Run(c.tasks, func(t *testing.T) {
			fd, _ := testCgroup(t)
			if fd < 0 {
				t.Skip("no cgroup to clone3 into, which a rule for new tasks needs")
			}
			// stdout is a pipe: printf buffers, so what the program said before the
			// kill is what it flushed (it flushes before fork).
			out, ws := filteredTasks(t, []string{bin}, nil, nobodyCred(), fd, c.tasks)
			if !ws.Signaled() || ws.Signal() != unix.SIGSYS {
				t.Errorf("the C program ended with %v, want killed by SIGSYS", ws)
			}
			if c.tasks == TasksThreads && out != c.want {
				t.Errorf("the C program said:\n%s\nwant:\n%s", out, c.want)
			}
			if c.tasks == TasksNone && strings.Contains(out, "pthread_create") {
				t.Errorf("the C program made threads under %q:\n%s", c.tasks, out)
			}
		})
	}
}

// TestNSFilterTasksCalls makes each call the rules judge from a helper, one run
// each (a refused call kills the whole helper), as 65534 in a cgroup: the call
// answers as wanted, or SIGSYS ends the helper before it says anything after it.
func TestNSFilterTasksCalls(t *testing.T) {
	requireRoot(t)
	requireAmd64(t)
	for _, c := range []struct {
		tasks, call string
		killed      bool
	}{
		{TasksThreads, "fork", true},
		{TasksThreads, "vfork", true},
		{TasksThreads, "clone-sigchld", true},
		{TasksThreads, "clone3", false},
		{TasksThreads, "threads", false},
		{TasksAny, "fork", false},
		{TasksAny, "vfork", false},
		{TasksAny, "clone-sigchld", false},
	} {
		t.Run(c.tasks+"/"+c.call, func(t *testing.T) {
			fd, _ := testCgroup(t)
			if fd < 0 {
				t.Skip("no cgroup to clone3 into, which a rule for new tasks needs")
			}
			out, ws := filteredTasks(t, []string{"/proc/self/exe", "helper"},
				[]string{helperEnv + "=nstasks", "PODJAIL_SHIM_TEST_CALL=" + c.call}, nobodyCred(), fd, c.tasks)
			switch {
			case c.killed && (!ws.Signaled() || ws.Signal() != unix.SIGSYS):
				t.Errorf("%s ended the helper with %v (said %q), want killed by SIGSYS", c.call, ws, out)
			case c.killed && strings.Contains(out, c.call+":"):
				t.Errorf("%s returned before the kill: %q", c.call, out)
			case !c.killed && (ws.ExitStatus() != 0 || out != c.call+": ok\n"):
				t.Errorf("%s: the helper said %q and ended with %v, want %q and status 0", c.call, out, ws, c.call+": ok\n")
			}
		})
	}
}

// helperNSTasks makes the call named by PODJAIL_SHIM_TEST_CALL and says how it
// went ("ok" for clone3 is its ENOSYS, the answer every program gets).
func helperNSTasks() int {
	call := os.Getenv("PODJAIL_SHIM_TEST_CALL")
	var got string
	switch call {
	case "fork":
		got = errnoOK(rawFork(unix.SYS_FORK, 0, 0))
	case "vfork":
		got = errnoOK(rawFork(unix.SYS_VFORK, 0, 0))
	case "clone-sigchld":
		got = errnoOK(rawFork(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0))
	case "clone3":
		args := cloneArgs{exitSignal: uint64(unix.SIGCHLD)}
		if e := rawFork(unix.SYS_CLONE3, uintptr(unsafe.Pointer(&args)), unsafe.Sizeof(args)); e == unix.ENOSYS {
			got = "ok"
		} else {
			got = errnoOK(e)
		}
	case "threads":
		got = goWorkload()
	default:
		got = "unknown call " + call
	}
	fmt.Printf("%s: %s\n", call, got)
	return 0
}

// TestNSFilterTasksNeedClone3: a rule for new tasks without the start by clone3
// (which the rule would kill the shim's fork by clone for) is refused, no child.
func TestNSFilterTasksNeedClone3(t *testing.T) {
	requireAmd64(t)
	_, err := spawnFiltered("/proc/self/exe", []string{"helper"}, &syscall.ProcAttr{
		Env: []string{helperEnv + "=echo"}, Files: []uintptr{0, 1, 2}}, TasksThreads)
	var se *SetupError
	if !errors.As(err, &se) || se.Step != StepNSFilter {
		t.Fatalf("spawnFiltered with tasks %q and no cgroup: %v, want a SetupError of step %s", TasksThreads, err, StepNSFilter)
	}
}
