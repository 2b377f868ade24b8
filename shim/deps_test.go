package shim

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the shim small and static: the binary and this package (which the
// runner imports for ParseReport) may use the standard library and golang.org/x/sys only.
func TestDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, pkg := range []string{"github.com/podjail/podjail/cmd/podjail-shim", "github.com/podjail/podjail/shim"} {
		cmd := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			switch {
			case dep == pkg, strings.HasPrefix(dep, "github.com/podjail/podjail/shim"),
				dep == "golang.org/x/sys" || strings.HasPrefix(dep, "golang.org/x/sys/"):
			default:
				t.Errorf("%s depends on %s: only the standard library and golang.org/x/sys are allowed", pkg, dep)
			}
		}
	}
}
