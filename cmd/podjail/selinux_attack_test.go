package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/selinux/go-selinux"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/policy"
)

// selinuxAttack is the program of TestSELinuxAttacks's runs:
//
//	selinux-attack write PATH   makes PATH (mode 0666) and holds until stdin ends
//	selinux-attack read PATH    waits for a line on stdin, then reads PATH
//	selinux-attack append PATH  opens PATH for writing at once
//
// Each first prints its own label. An attempt the kernel refuses prints
// "denied: ERROR" and exits 0 (the run is then judged as any other); one
// that succeeds prints "got through" and exits 3.
func selinuxAttack(args []string) int {
	if len(args) != 2 {
		fmt.Println("usage: selinux-attack write|read|append PATH")
		return 2
	}
	self, _ := os.ReadFile("/proc/self/attr/current")
	fmt.Printf("label %s\n", strings.TrimRight(string(self), "\x00\n"))
	mode, path := args[0], args[1]
	var err error
	switch mode {
	case "write":
		if err = os.WriteFile(path, []byte("a secret of another run\n"), 0o666); err == nil {
			err = os.Chmod(path, 0o666)
		}
		if err != nil {
			fmt.Printf("error: %v\n", err)
			return 4
		}
		fmt.Println("written")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "read":
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		_, err = os.ReadFile(path)
	case "append":
		var f *os.File
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = f.WriteString("written by the run\n")
			f.Close()
		}
	}
	switch {
	case err == nil:
		fmt.Println("got through")
		return 3
	case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EROFS):
		fmt.Printf("denied: %v\n", err)
		return 0
	}
	fmt.Printf("error: %v\n", err)
	return 4
}

// attackRun is one isolate run of selinux-attack, live: its stdin a pipe
// the test holds, its stdout read line by line.
type attackRun struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	out   strings.Builder
	done  chan error
}

func startAttack(t *testing.T, env hosttest.Env, root string, args ...string) *attackRun {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "isolate")
	if err := os.Symlink(env.Podjail, bin); err != nil {
		t.Fatal(err)
	}
	a := &attackRun{cmd: exec.Command(bin, args...), lines: make(chan string, 16), done: make(chan error, 1)}
	a.cmd.Env = append(os.Environ(), "PODJAIL_ISOLATE_ROOT="+root, "PODJAIL_ISOLATE_IMAGE="+env.Image)
	var err error
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a.cmd.Stderr = &a.out
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			a.lines <- sc.Text()
		}
		close(a.lines)
		a.done <- a.cmd.Wait()
	}()
	t.Cleanup(func() { _ = a.cmd.Process.Kill() })
	return a
}

// next is the run's next line of output, or what went wrong.
func (a *attackRun) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-a.lines:
		if !ok {
			t.Fatalf("the run ended without the line awaited; isolate's stderr:\n%s", a.out.String())
		}
		return l
	case <-time.After(3 * time.Minute):
		t.Fatalf("no line from the run in 3 minutes; isolate's stderr:\n%s", a.out.String())
	}
	return ""
}

// end closes the run's stdin and returns isolate's exit code.
func (a *attackRun) end(t *testing.T) int {
	t.Helper()
	_ = a.stdin.Close()
	for range a.lines {
	}
	err := <-a.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// expectDenial records a denial the test provokes, for the pass's check
// that every AVC denial of the boot is explained (guest-run.sh, which reads
// every avc-provoked-UID.txt): the subject's level and the target context.
func expectDenial(t *testing.T, level, tcontext, why string) {
	t.Helper()
	out := os.Getenv("PODJAIL_OUT")
	if out == "" {
		return
	}
	// A file per pass: the rootful and rootless passes run at once, and
	// the one made first would be the other's to append to (umask 022).
	f, err := os.OpenFile(filepath.Join(out, fmt.Sprintf("avc-provoked-%d.txt", os.Getuid())), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s|%s|%s\n", level, tcontext, why)
}

// TestSELinuxAttacks: what SELinux itself denies a run, with the other
// walls left open on purpose. Two live isolate boxes share a writable
// directory, as a CMS Communication task's manager and user do (Podman
// relabels it shared, s0, when each run mounts it, and what a run makes
// there is s0 too):
//   - a file of the other live run's level put there may not be read
//     (MCS);
//   - a host file put there with a host label (user_home_t, the caller's
//     own files) may not be read either (type enforcement);
//   - a run may not write its read-only input (the mount says EROFS
//     first: Podman's shared label, container_file_t:s0, is writable by
//     every container, so SELinux is not the wall there).
//
// Each attempt fails with EACCES (EROFS for the input), the run's verdict
// is its own (exit 0, isolate's OK), and the rootful run finds the two
// AVC denials at the attacking run's level in the kernel log.
func TestSELinuxAttacks(t *testing.T) {
	env := hosttest.SELinux(t)
	if policy.SELinuxState() != "enforcing" {
		t.Skip("SELinux is permissive here: it logs what it would deny and denies nothing (the Fedora pass is enforcing)")
	}
	root, shared := t.TempDir(), t.TempDir()
	for _, d := range []string{root, shared} {
		_ = os.Chmod(d, 0o777)
	}
	for _, box := range []string{"61", "62"} {
		if r := isolateAs(t, env, root, nil, "--cg", "-b", box, "--init"); r.code != 0 {
			t.Fatalf("--init of box %s: exit %d", box, r.code)
		}
	}
	run := func(box string, args ...string) *attackRun {
		return startAttack(t, env, root, append([]string{"--cg", "-b", box, "-s", "-p", "--dir=/shared=" + shared + ":rw",
			"-w", "600", "--run", "--", testProgram, "selinux-attack"}, args...)...)
	}
	// Two live runs. A file the writer makes in the shared directory gets
	// the directory's level (s0: shared, as a Communication task's pipes
	// must be), so the file of the writer's level is put there by the
	// test, as the writer's own files are labelled in its private storage.
	reader := run("62", "read", "/shared/secret")
	readerLabel := strings.TrimPrefix(reader.next(t), "label ")
	writer := run("61", "write", "/shared/own")
	writerLabel := strings.TrimPrefix(writer.next(t), "label ")
	if l := writer.next(t); l != "written" {
		t.Fatalf("the writer: %q", l)
	}
	own, err := selinux.FileLabel(filepath.Join(shared, "own"))
	t.Logf("reader %s, writer %s; the file the writer made in the shared directory: %s (%v)", readerLabel, writerLabel, own, err)
	if levelOf(readerLabel) == levelOf(writerLabel) || !strings.Contains(levelOf(writerLabel), ":c") {
		t.Fatalf("the two live runs' labels %q and %q: want two levels with categories", readerLabel, writerLabel)
	}
	secret := filepath.Join(shared, "secret")
	if err := os.WriteFile(secret, []byte("a secret of another run\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(secret, 0o666)
	secretLabel := "system_u:object_r:container_file_t:" + levelOf(writerLabel)
	if err := selinux.SetFileLabel(secret, secretLabel); err != nil {
		t.Fatalf("label %s %s: %v", secret, secretLabel, err)
	}
	expectDenial(t, levelOf(readerLabel), secretLabel, "TestSELinuxAttacks: reading another live run's file")
	fmt.Fprintln(reader.stdin, "go")
	got := reader.next(t)
	if !strings.HasPrefix(got, "denied: ") || !strings.Contains(got, "permission denied") {
		t.Errorf("a run reading another live run's file: %q, want permission denied", got)
	}
	if code := reader.end(t); code != 0 {
		t.Errorf("the reader's isolate: exit %d, want 0 (the program's own OK)", code)
	}
	if code := writer.end(t); code != 0 {
		t.Errorf("the writer's isolate: exit %d", code)
	}

	// A host file, with the host's label, in the shared directory after
	// the run mounted it.
	reader = run("62", "read", "/shared/host")
	hostReaderLabel := strings.TrimPrefix(reader.next(t), "label ")
	host := filepath.Join(shared, "host")
	if err := os.WriteFile(host, []byte("the host's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const hostLabel = "unconfined_u:object_r:user_home_t:s0"
	if err := selinux.SetFileLabel(host, hostLabel); err != nil {
		t.Fatalf("label %s %s: %v", host, hostLabel, err)
	}
	expectDenial(t, levelOf(hostReaderLabel), hostLabel, "TestSELinuxAttacks: reading a host file")
	fmt.Fprintln(reader.stdin, "go")
	got = reader.next(t)
	if !strings.HasPrefix(got, "denied: ") || !strings.Contains(got, "permission denied") {
		t.Errorf("a run reading a host file (%s): %q, want permission denied", hostLabel, got)
	}
	if code := reader.end(t); code != 0 {
		t.Errorf("the reader's isolate: exit %d, want 0", code)
	}

	// Its read-only input.
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(in, []byte("the input\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := podjail(t, env, "run", "--image", env.Image, "--input", in, "--output", out, "--", testProgram, "selinux-attack", "append", bindings.InputPath)
	o, _ := os.ReadFile(out)
	data, _ := os.ReadFile(in)
	if r.code != 0 || !strings.Contains(string(o), "denied: ") || string(data) != "the input\n" {
		t.Errorf("a run writing its input: exit %d, output %q, the input now %q; want exit 0, denied, unchanged\n%s", r.code, o, data, r.stderr)
	}
	t.Logf("writing the input: %s", strings.TrimSpace(string(o)))

	for _, box := range []string{"61", "62"} {
		if r := isolateAs(t, env, root, nil, "--cg", "-b", box, "--cleanup"); r.code != 0 {
			t.Errorf("--cleanup of box %s: exit %d", box, r.code)
		}
	}
	assertNothingLeft(t, env, "")
	if env.Rootless {
		return // the kernel log is root's; guest-run.sh matches the records
	}
	for _, c := range []struct{ level, tcontext, what string }{
		{levelOf(readerLabel), "tcontext=system_u:object_r:container_file_t:" + levelOf(writerLabel) + " ", "another run's file"},
		{levelOf(hostReaderLabel), "tcontext=" + hostLabel + " ", "the host file"},
	} {
		found := ""
		for _, d := range denialsOf(t, c.level) {
			if strings.Contains(d, c.tcontext) && strings.Contains(d, "tclass=file") {
				found = d
			}
		}
		if found == "" {
			t.Errorf("no AVC denial of %s to the run at %s in the kernel log", c.what, c.level)
		} else {
			t.Logf("denied, as it should be: %s", found)
		}
	}
}
