package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/selinux/go-selinux"

	"github.com/podjail/podjail/internal/hosttest"
)

// scriptlets splits `rpm -qp --scripts`'s text into its scriptlets by
// name ("postinstall", "postuninstall").
func scriptlets(text string) map[string]string {
	out := map[string]string{}
	name := ""
	for _, l := range strings.SplitAfter(text, "\n") {
		if n, _, ok := strings.Cut(l, " scriptlet (using /bin/sh):"); ok && !strings.ContainsAny(n, " \t") {
			name = n
			continue
		}
		if name != "" {
			out[name] += l
		}
	}
	return out
}

// TestSELinuxRPMScriptlets: podjail-selinux's %post and %postun, run as rpm
// runs them (/bin/sh, $1 the count left) on Fedora's enforcing policy,
// with the package's files in place: the module goes in at priority 200
// (beside the pass's own install, priority 400, which stays), the boolean
// is on, podjail, its plugin and its shim get the module's labels; %postun
// of the last package removes its module again.
func TestSELinuxRPMScriptlets(t *testing.T) {
	env := hosttest.SELinux(t)
	if env.Rootless {
		t.Skip("runs a package's scriptlets, as rpm does: the rootful run of this test does it")
	}
	if policyType(t) != "targeted" {
		t.Skip("podjail-selinux is built for Fedora's targeted policy; this is the refpolicy's boot")
	}
	payload := os.Getenv("PODJAIL_PAYLOAD")
	text, err := os.ReadFile(filepath.Join(payload, "rpmselinux.scripts"))
	if err != nil {
		t.Fatalf("no podjail-selinux scriptlets in the payload (make rpm, then make vm-payload): %v", err)
	}
	s := scriptlets(string(text))
	if s["postinstall"] == "" || s["postuninstall"] == "" {
		t.Fatalf("scriptlets %q: want postinstall and postuninstall", text)
	}
	// The two packages' files, where rpm would put them (the shim is the
	// pass's own install already, in use by the rootless pass).
	place := func(root, rel string) {
		t.Helper()
		dst := "/" + rel
		if _, err := os.Stat(dst); err == nil {
			return
		}
		b, err := os.ReadFile(filepath.Join(payload, root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Remove(dst) })
	}
	place("rpmselinux", "usr/share/selinux/packages/targeted/podjail.pp.bz2")
	place("rpmroot", "usr/bin/podjail")
	place("rpmroot", "usr/libexec/podjail/podjail-plugin")
	place("rpmroot", "usr/libexec/podjail/podjail-shim")

	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command("/bin/sh", append([]string{"-c", s[name], name}, args...)...)
		out, err := cmd.CombinedOutput()
		t.Logf("%%%s %v: %v\n%s", name, args, err, out)
		if err != nil || bytes.Contains(out, []byte("rror")) {
			t.Fatalf("%%%s: %v", name, err)
		}
	}
	modules := func() string {
		t.Helper()
		out, err := exec.Command("semodule", "--list-modules=full").Output()
		if err != nil {
			t.Fatalf("semodule --list-modules=full: %v", err)
		}
		var ours []string
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[1] == "podjail" {
				ours = append(ours, f[0])
			}
		}
		return strings.Join(ours, " ")
	}
	before := modules()
	run("postinstall", "1")
	t.Cleanup(func() { _ = exec.Command("semodule", "-X", "200", "-r", "podjail").Run() })
	if got := modules(); !strings.Contains(" "+got+" ", " 200 ") {
		t.Errorf("after %%post podjail's module is at priorities %q, want 200 among them (before: %q)", got, before)
	}
	if b, _ := os.ReadFile("/sys/fs/selinux/booleans/container_manage_cgroup"); !bytes.HasPrefix(b, []byte("1")) {
		t.Errorf("container_manage_cgroup after %%post: %q, want on", b)
	}
	for path, typ := range map[string]string{
		"/usr/bin/podjail":                    ":bin_t:",
		"/usr/libexec/podjail/podjail-plugin": ":bin_t:",
		"/usr/libexec/podjail/podjail-shim":   ":container_ro_file_t:",
	} {
		if l, err := selinux.FileLabel(path); err != nil || !strings.Contains(l, typ) {
			t.Errorf("%s after %%post: %q (%v), want %s", path, l, err, typ)
		}
	}
	run("postuninstall", "0")
	if got := modules(); got != before {
		t.Errorf("after %%postun podjail's module is at priorities %q, want %q as before", got, before)
	}
}

func TestScriptletsSplit(t *testing.T) {
	text := "postinstall scriptlet (using /bin/sh):\nsemodule -i x\nif a; then\n\tb\nfi\npostuninstall scriptlet (using /bin/sh):\nsemodule -r x || :\n"
	s := scriptlets(text)
	if s["postinstall"] != "semodule -i x\nif a; then\n\tb\nfi\n" || s["postuninstall"] != "semodule -r x || :\n" || len(s) != 2 {
		t.Errorf("scriptlets: %q", s)
	}
}
