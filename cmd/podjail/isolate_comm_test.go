package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
)

// commManager is a Communication task's manager, in the shape CMS gives
// it: its argv is the pipe from the user, then the pipe to the user; it
// opens the one to the user first, since isolate opens the user's stdin
// before its stdout. It asks three questions and prints 1.0 when every
// answer was right. Shell builtins only: CMS runs it with --processes=1.
const commManager = `#!/bin/sh
exec 3>"$2" 4<"$1"
read -r n < input.txt
ok=1
i=1
while [ $i -le 3 ]; do
	x=$((n + i))
	echo "$x" >&3
	if ! read -r answer <&4 || [ "$answer" != "correct $x" ]; then ok=0; break; fi
	i=$((i + 1))
done
echo 0 >&3
if [ $ok = 1 ]; then echo 1.0; else echo 0.0; fi
`

// commUser is the contestant's program: it answers each question on
// stdin until the 0 that ends the exchange.
const commUser = `#!/bin/sh
while read -r x; do
	[ "$x" = 0 ] && exit 0
	echo "correct $x"
done
`

// TestIsolateCMSCommunication plays CMS's Communication task type
// (cms/grading/tasktypes/Communication.py) as CMS runs it: the manager's
// isolate and the user's are started at once with the command lines
// Sandbox.py builds (a fresh box each, the pipes' directory mapped into
// both, the user's -i and -o the pipes, -t 1 -w 3), one evaluation after
// the other (the rootful and rootless passes run at once beside each other),
// in process and through a service, and no evaluation may be lost.
// The user's run waits for the manager's container to start and open its
// ends; that wait may not count against the user's -w of 3 s (issue 27:
// under load it did, and CMS aborted the evaluation as a sandbox error).
func TestIsolateCMSCommunication(t *testing.T) {
	env := hosttest.Podman(t)
	const evaluations = 3
	t.Run("in process", func(t *testing.T) { playCommunication(t, env, nil, evaluations) })
	sock, stop := startService(t, env, "--drain", "2s")
	t.Run("through the service", func(t *testing.T) {
		playCommunication(t, env, []string{"PODJAIL_SERVICE=" + sock}, evaluations)
	})
	if code, log := stop(); code != 0 {
		t.Errorf("service: exit %d\n%s", code, log)
	}
	assertNothingLeft(t, env, "")
}

// playCommunication runs n evaluations and fails on any
// that does not end with both sandboxes OK and the manager's 1.0.
func playCommunication(t *testing.T, env hosttest.Env, extra []string, n int) {
	root := t.TempDir()
	_ = os.Chmod(root, 0o777)
	bin := filepath.Join(t.TempDir(), "isolate")
	if err := os.Symlink(env.Podjail, bin); err != nil {
		t.Fatal(err)
	}
	failures := make([]string, n)
	for i := range n {
		dir := t.TempDir()
		_ = os.Chmod(dir, 0o777)
		failures[i] = communicationEvaluation(bin, root, dir, extra, 2*i)
	}
	lost := 0
	for i, f := range failures {
		if f != "" {
			lost++
			t.Errorf("evaluation %d: %s", i, f)
		}
	}
	t.Logf("%d of %d evaluations right", n-lost, n)
}

// communicationEvaluation is one evaluation in dir with boxes box and
// box+1; "" when it came out right, else what went wrong.
func communicationEvaluation(bin, root, dir string, extra []string, box int) string {
	fifos, mgrHome, userHome := filepath.Join(dir, "fifo"), filepath.Join(dir, "manager"), filepath.Join(dir, "user")
	for _, d := range []string{fifos, mgrHome, userHome} {
		if err := os.Mkdir(d, 0o777); err != nil {
			return err.Error()
		}
		_ = os.Chmod(d, 0o777)
	}
	_ = os.Chmod(fifos, 0o755)
	for _, p := range []string{"u0_to_m", "m_to_u0"} {
		if err := syscall.Mkfifo(filepath.Join(fifos, p), 0o666); err != nil {
			return err.Error()
		}
		_ = os.Chmod(filepath.Join(fifos, p), 0o666)
	}
	files := map[string]string{mgrHome + "/manager": commManager, mgrHome + "/input.txt": "7\n", userHome + "/user": commUser}
	for p, data := range files {
		if err := os.WriteFile(p, []byte(data), 0o777); err != nil {
			return err.Error()
		}
	}
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(append(os.Environ(), "PODJAIL_ISOLATE_ROOT="+root), extra...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		} else if err != nil {
			return -1, err.Error()
		}
		return 0, out.String()
	}
	// Sandbox.py's options, in its order, for a box and its home.
	common := func(id int, home string) []string {
		return []string{"--cg", fmt.Sprintf("--box-id=%d", id), "--chdir=/tmp", "--dir=/tmp=" + home + ":rw", "--dir=/dev/shm:tmp",
			"--dir=/etc/alternatives=/etc/alternatives", "--dir=/fifo0=" + fifos + ":rw", "--env=HOME=/tmp", "--fsize=1048576"}
	}
	for _, id := range []int{box, box + 1} {
		if code, out := run("--cg", fmt.Sprintf("--box-id=%d", id), "--init"); code != 0 {
			return fmt.Sprintf("--init of box %d: exit %d: %s", id, code, out)
		}
	}
	manager := append(common(box, mgrHome), "--stdin=/tmp/input.txt", "--cg-mem=4194304", "--stdout=/tmp/stdout.txt",
		"--processes=1", "--stderr=/tmp/stderr.txt", "--time=10", "--wall-time=21", "--meta="+dir+"/manager.meta", "--run",
		"--", "./manager", "/fifo0/u0_to_m", "/fifo0/m_to_u0")
	user := append(common(box+1, userHome), "--stdin=/fifo0/m_to_u0", "--cg-mem=262144", "--stdout=/fifo0/u0_to_m",
		"--processes=1", "--stderr=/tmp/stderr.txt", "--time=1", "--wall-time=3", "--meta="+dir+"/user.meta", "--run",
		"--", "./user")
	type ended struct {
		code int
		out  string
	}
	mgr, usr := make(chan ended, 1), make(chan ended, 1)
	go func() { c, o := run(manager...); mgr <- ended{c, o} }()
	go func() { c, o := run(user...); usr <- ended{c, o} }()
	m, u := <-mgr, <-usr
	var wrong []string
	if m.code != 0 {
		wrong = append(wrong, fmt.Sprintf("the manager's isolate exited %d: %s", m.code, m.out))
	}
	if u.code != 0 {
		wrong = append(wrong, fmt.Sprintf("the user's isolate exited %d: %s", u.code, u.out))
	}
	for _, name := range []string{"manager.meta", "user.meta"} {
		meta, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || strings.Contains(string(meta), "status:") {
			wrong = append(wrong, fmt.Sprintf("%s: %q %v", name, meta, err))
		}
	}
	if got, _ := os.ReadFile(filepath.Join(mgrHome, "stdout.txt")); string(got) != "1.0\n" {
		wrong = append(wrong, fmt.Sprintf("the manager printed %q, want 1.0", got))
	}
	for _, id := range []int{box, box + 1} {
		if code, out := run("--cg", fmt.Sprintf("--box-id=%d", id), "--cleanup"); code != 0 {
			wrong = append(wrong, fmt.Sprintf("--cleanup of box %d: exit %d: %s", id, code, out))
		}
	}
	return strings.Join(wrong, "; ")
}
