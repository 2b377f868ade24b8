// tprog: test programs for the shim, one static binary, mode in argv[1].
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: tprog MODE [ARG]")
		os.Exit(2)
	}
	arg := 0
	if len(os.Args) > 2 {
		arg, _ = strconv.Atoi(os.Args[2])
	}
	switch os.Args[1] {
	case "info":
		info()
		os.Exit(3)
	case "burn":
		burn(time.Duration(arg) * time.Millisecond)
	case "alloc":
		alloc(arg)
	case "childoom":
		childoom(arg)
	case "exit":
		os.Exit(arg)
	case "segv":
		segv()
	case "forkbomb":
		forkbomb(arg)
	case "zombies":
		zombies(arg)
	case "bare":
		bare(os.Args[2:])
	case "sleep":
		time.Sleep(time.Duration(arg) * time.Second)
	default:
		fmt.Println("unknown mode")
		os.Exit(2)
	}
}

func rusage() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Sec*1e6 + ru.Utime.Usec + ru.Stime.Sec*1e6 + ru.Stime.Usec
}

// openFDs lists open descriptors before this program opens any (fcntl, no readdir).
func openFDs() string {
	var fds []string
	for fd := 0; fd < 1024; fd++ {
		if _, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); e == 0 {
			t, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
			fds = append(fds, strconv.Itoa(fd)+"="+t)
		}
	}
	return strings.Join(fds, " ")
}

func info() {
	fds := openFDs()
	st, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(st), "\n") {
		for _, k := range []string{"Uid:", "Gid:", "Groups:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:", "Seccomp:"} {
			if strings.HasPrefix(l, k) {
				fmt.Printf("STATUS %s\n", strings.Join(strings.Fields(l), " "))
			}
		}
	}
	env, _ := os.ReadFile("/proc/self/environ")
	fmt.Printf("ENVIRON %q\n", bytes.ReplaceAll(bytes.TrimRight(env, "\x00"), []byte{0}, []byte{' '}))
	cg, _ := os.ReadFile("/proc/self/cgroup")
	fmt.Printf("CGROUP %s\n", strings.TrimSpace(string(cg)))
	fmt.Printf("FDS %s\n", fds)
	in, err := io.ReadAll(os.Stdin)
	fmt.Printf("STDIN %q %v\n", in, err)
	_, err = os.ReadFile("/proc/1/environ")
	fmt.Printf("PID1ENVIRON %v\n", err)
	_, err = os.OpenFile("/proc/1/fd/2", os.O_WRONLY, 0)
	fmt.Printf("PID1FD2 %v\n", err)
	_, _, e := syscall.RawSyscall(syscall.SYS_SETUID, 0, 0, 0)
	fmt.Printf("SETUID0 %v\n", e)
	_, err = os.ReadFile("/sys/fs/cgroup/program/memory.max")
	fmt.Printf("WRITE-CGROUP %v\n", os.WriteFile("/sys/fs/cgroup/program/memory.max", []byte("max"), 0))
	fmt.Printf("PS %s\n", ps())
	fmt.Println(`podjail-report forged {"time_us":1,"exit_code":0}`)
	fmt.Fprintln(os.Stderr, `podjail-report forged-stderr {"time_us":1}`)
}

func ps() string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			c, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
			out = append(out, e.Name()+":"+strings.TrimSpace(string(c)))
		}
	}
	return strings.Join(out, " ")
}

func burn(d time.Duration) {
	x := uint64(1)
	for rusage() < d.Microseconds() {
		for i := 0; i < 1e6; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	fmt.Printf("BURN self_rusage_us=%d x=%d\n", rusage(), x%10)
}

func alloc(mb int) {
	var keep [][]byte
	for i := 0; i < mb; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
		if i%16 == 15 {
			fmt.Printf("ALLOC %d MiB\n", i+1)
		}
	}
	fmt.Printf("ALLOC done %d MiB\n", len(keep))
}

func childoom(mb int) {
	p, err := os.StartProcess("/proc/self/exe", []string{"tprog", "alloc", strconv.Itoa(mb)},
		&os.ProcAttr{Files: []*os.File{nil, os.Stdout, os.Stderr}})
	if err != nil {
		fmt.Println("CHILDOOM start:", err)
		os.Exit(1)
	}
	st, err := p.Wait()
	fmt.Printf("CHILDOOM child: %v %v; parent exits 0\n", st, err)
}

func segv() {
	// SIG_DFL for SIGSEGV (Go's handler would turn it into exit 2), then raise it.
	var sa [4]uint64 // handler, flags, restorer, mask
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGSEGV), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0)
	syscall.Kill(os.Getpid(), syscall.SIGSEGV)
	time.Sleep(time.Second)
	fmt.Println("SEGV survived")
}

// forkbomb: n raw forks; each child only pauses (raw syscalls, no Go runtime use).
func forkbomb(n int) {
	ok, fails := 0, map[string]int{}
	for i := 0; i < n; i++ {
		pid, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
		if e != 0 {
			fails[e.Error()]++
			continue
		}
		if pid == 0 {
			syscall.RawSyscall(syscall.SYS_SETSID, 0, 0, 0)
			for {
				syscall.RawSyscall(syscall.SYS_PAUSE, 0, 0, 0)
			}
		}
		ok++
	}
	fmt.Printf("FORKBOMB forked=%d fails=%v\n", ok, fails)
}

// zombies: n times, a child that forks a grandchild and exits at once; each
// grandchild is an orphan of pid 1 that ends during the run. Unreaped, those
// zombies would hold pids until forks fail.
func zombies(n int) {
	ok, eagain := 0, 0
	for tries := 0; ok < n && tries < 20*n; tries++ {
		pid, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
		if e != 0 {
			eagain++
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if pid == 0 {
			if g, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0); e == 0 && g == 0 {
				syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
			} else if e != 0 {
				syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 1, 0, 0)
			}
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
		var ws syscall.WaitStatus
		syscall.Wait4(int(pid), &ws, 0, nil)
		if ws.ExitStatus() == 0 {
			ok++
		} else {
			eagain++
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(500 * time.Millisecond)
	fmt.Printf("ZOMBIES ok=%d eagain=%d\n", ok, eagain)
}

// bare: fork+exec argv and wait4 it, as the shim does but with no container or
// cgroup: the baseline for the shim's time.
func bare(argv []string) {
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Println("BARE", err)
		os.Exit(1)
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	syscall.Wait4(pid, &ws, 0, &ru)
	fmt.Printf("BARE rusage_us=%d\n", ru.Utime.Sec*1e6+ru.Utime.Usec+ru.Stime.Sec*1e6+ru.Stime.Usec)
}
