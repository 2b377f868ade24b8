package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// TestInstalledFromRPM judges from the layout podjail's RPM installs
// (contrib/rpm: /usr/bin/podjail, /usr/libexec/podjail/podjail-shim), its
// payload unpacked under a root by `make rpm` and carried by the VM
// payload: podjail finds its shim there by itself (no --shim, no
// $PODJAIL_SHIM), runs under it, and judges as the build tree's podjail.
func TestInstalledFromRPM(t *testing.T) {
	env := hosttest.Podman(t)
	root := filepath.Join(os.Getenv("PODJAIL_PAYLOAD"), "rpmroot")
	installed := env
	installed.Podjail = filepath.Join(root, "usr", "bin", "podjail")
	if _, err := os.Stat(installed.Podjail); err != nil {
		t.Fatalf("no RPM payload in the VM payload (make rpm, then make vm-payload): %v", err)
	}
	if unit, err := os.ReadFile(filepath.Join(root, "usr/lib/systemd/system/podjail.service")); err != nil || !strings.Contains(string(unit), "ExecStart=/usr/bin/podjail serve") {
		t.Errorf("the packaged system unit does not run /usr/bin/podjail: %v\n%s", err, unit)
	}
	r := podjail(t, installed, "run", "--json", "--image", env.Image, "--service", "none", "--", testProgram, "exit", "0")
	if r.code != 0 || !strings.Contains(r.stdout, `"shimmed": true`) {
		t.Fatalf("podjail run from the installed layout: exit %d, not under the shim:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	dir, langs, src := execProblem(t, env, untimed, []string{testProgram + " exit 0", testProgram + " exit 3"})
	res, code := judgeJSON(t, installed, "--service", "none", "--languages", langs, "--lang", "exec", dir, src)
	if code != 3 || len(res.Tests) != 2 || res.Tests[0].Verdict != plugin.AC || res.Tests[1].Verdict != plugin.RTE {
		t.Errorf("judged from the installed layout: exit %d, %+v; want exit 3, AC then RTE", code, res.Tests)
	}
	assertNothingLeft(t, env, "")
}
