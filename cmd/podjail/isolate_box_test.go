package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
)

// TestIsolateBoxIsTheCallersAlone: under a box root every local user can
// enter, as isolate's /var/local/lib/isolate is, another local user
// (nobody) can neither list a box nor read what the judge put there,
// while the program in the sandbox still reads it. Rootful only: the
// other user is started by root.
func TestIsolateBoxIsTheCallersAlone(t *testing.T) {
	env := hosttest.Podman(t)
	if env.Rootless {
		t.Skip("reads the box as another user (nobody), which needs root: the rootful pass runs this test")
	}
	// Reachable by nobody: t.TempDir's parents are root's alone.
	root := openDir(t, "podjail-isolate-", 0o755)
	extra := []string{"PODJAIL_ISOLATE_IMAGE=" + env.Image}
	r := isolateWith(t, env, root, extra, nil, "-b", "5", "--init")
	dir := strings.TrimSpace(r.stdout)
	if r.code != 0 || dir == "" {
		t.Fatalf("init: exit %d", r.code)
	}
	// As Judge0 writes a submission and its input: root's, mode 0644.
	const secret = "a test no one else may read\n"
	input := filepath.Join(dir, "box", "input")
	if err := os.WriteFile(input, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{{"cat", input}, {"ls", filepath.Join(dir, "box")}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err == nil || strings.Contains(string(out), secret) {
			t.Errorf("%s as nobody: %v, want a refusal\n%s", strings.Join(argv, " "), err, out)
		}
	}
	// The test program is Go: its runtime's threads need more than
	// isolate's default of one process.
	r = isolateWith(t, env, root, extra, nil, "-b", "5", "-i", "/box/input", "--processes=64", "--run", "--", testProgram, "cat")
	if r.code != 0 || r.stdout != secret {
		t.Errorf("the program reading its box: exit %d, stdout %q; want 0 and the input", r.code, r.stdout)
	}
	if r := isolateWith(t, env, root, extra, nil, "-b", "5", "--cleanup"); r.code != 0 {
		t.Errorf("cleanup: exit %d", r.code)
	}
	assertNothingLeft(t, env, "")
}
