package shim

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a helper process instead of running tests.
const helperEnv = "PODJAIL_SHIM_TEST_HELPER"

// coverWarning is what a test binary built with -cover (go test -cover)
// prints on its stderr when it runs without $GOCOVERDIR: the helpers do,
// as each is started with an environment of its own. Their coverage is
// not wanted (some run as another uid, or in a user namespace, where they
// could not write it).
const coverWarning = "warning: GOCOVERDIR not set, no coverage data emitted\n"

// coverDir is "GOCOVERDIR=DIR" for a helper that runs as this test's
// user: under go test -cover, go test's own directory, so that what the
// helper runs counts in the package's coverage; else a directory of the
// test's, so that a binary built with -cover and run by hand still warns
// nowhere.
func coverDir(t *testing.T) string {
	if d := os.Getenv("GOCOVERDIR"); d != "" {
		return "GOCOVERDIR=" + d
	}
	return "GOCOVERDIR=" + t.TempDir()
}

// withoutCoverWarning is a helper's output without coverWarning.
func withoutCoverWarning(out string) string {
	return strings.ReplaceAll(out, coverWarning, "")
}

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == ProbeArg {
		os.Exit(ProbeMain())
	}
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "nonce":
		os.Exit(helperNonce())
	case "env":
		os.Exit(helperEnvList())
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "daemon":
		os.Exit(helperDaemon())
	case "killall":
		os.Exit(helperKillAll())
	case "nsprobe":
		os.Exit(helperNSProbe())
	case "nstasks":
		os.Exit(helperNSTasks())
	case "echo":
		fmt.Println("echo: ok")
		os.Exit(0)
	case "nsfailclosed":
		os.Exit(helperNSFailClosed())
	case "nsgomaxprocs1":
		os.Exit(helperNSGomaxprocs1())
	case "nsaftermath":
		os.Exit(helperNSAftermath())
	case "status":
		os.Exit(helperStatus())
	case "control":
		os.Exit(helperControl())
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// helperNonce takes the nonce and prints what is left of it.
func helperNonce() int {
	nonce, err := TakeNonce()
	env, rerr := os.ReadFile("/proc/self/environ")
	fmt.Printf("nonce=%s err=%v goenv=%q readerr=%v\n", nonce, err, os.Getenv(NonceEnv), rerr)
	os.Stdout.Write(env)
	return 0
}

// spawnHelper starts this binary as a helper; as root it drops to 65534 first.
func spawnHelper(mode string, setsid bool) (int, error) {
	sys := &syscall.SysProcAttr{Setsid: setsid}
	if os.Geteuid() == 0 {
		sys.Credential = nobodyCred()
	}
	return syscall.ForkExec("/proc/self/exe", []string{"helper"}, &syscall.ProcAttr{
		Env:   []string{helperEnv + "=" + mode},
		Files: []uintptr{0, 1, 2},
		Sys:   sys,
	})
}

// helperDaemon leaves a setsid'd grandchild behind and exits.
func helperDaemon() int {
	if _, err := spawnHelper("sleep", true); err != nil {
		fmt.Println("daemon:", err)
		return 1
	}
	return 0
}

// helperKillAll runs as pid 1 of a new pid namespace: it starts three sleepers and a
// daemon as 65534, then killOthers and reapAll must leave nothing.
func helperKillAll() int {
	for i := 0; i < 3; i++ {
		if _, err := spawnHelper("sleep", false); err != nil {
			fmt.Println("spawn:", err)
			return 1
		}
	}
	pid, err := spawnHelper("daemon", false)
	if err != nil {
		fmt.Println("spawn daemon:", err)
		return 1
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
		fmt.Println("daemon parent:", err, ws)
		return 1
	}
	// A process of another uid must survive: kill(-1) is sent without CAP_KILL.
	other, err := syscall.ForkExec("/proc/self/exe", []string{"helper"}, &syscall.ProcAttr{
		Env: []string{helperEnv + "=sleep"}, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 4242, Gid: 4242, Groups: []uint32{}}},
	})
	if err != nil {
		fmt.Println("spawn other:", err)
		return 1
	}
	t0 := time.Now()
	kerr := killOthers(&Cgroups{Program: "/nonexistent/podjail-test"}) // no cgroup.kill: kill(-1) alone
	took := time.Since(t0)
	time.Sleep(100 * time.Millisecond)
	survived := syscall.Kill(other, 0) == nil
	if wpid, _ := syscall.Wait4(other, &ws, syscall.WNOHANG, nil); wpid == other {
		survived = false
	}
	syscall.Kill(other, syscall.SIGKILL)
	syscall.Wait4(other, &ws, 0, nil)
	n, rerr := reapAll(5 * time.Second)
	fmt.Printf("pid=%d euid=%d reaped=%d killerr=%v reaperr=%v other_survived=%v took=%v\n",
		os.Getpid(), os.Geteuid(), n, kerr, rerr, survived, took.Round(time.Millisecond))
	return 0
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
}
