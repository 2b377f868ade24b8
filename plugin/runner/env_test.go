package runner

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/podjail/podjail/shim"
)

// TestRunEnvNotInArgv: the program's environment reaches the shim in its
// own environment, never in its argv (any local user reads a process's
// cmdline), in order and with duplicates as given.
func TestRunEnvNotInArgv(t *testing.T) {
	r := &Runner{Shim: "/usr/libexec/podjail-shim"}
	env := []string{"SECRET=s3cr3t=x", "LANG=C", "SECRET=again", "EMPTY="}
	req := RunRequest{Image: "img", Command: []string{"/bin/prog"}, Env: env}
	spec, _, err := r.spec(req, "podjail-run-test")
	if err != nil {
		t.Fatal(err)
	}
	if cmd := strings.Join(spec.Command, "\x00"); strings.Contains(cmd, "s3cr3t") || slices.Contains(spec.Command, "--env") {
		t.Errorf("the environment is in the shim's argv: %q", spec.Command)
	}
	got, err := shim.DecodeEnv(spec.Env[shim.EnvListEnv])
	if err != nil || !slices.Equal(got, env) {
		t.Errorf("%s decodes to %q, %v; want %q", shim.EnvListEnv, got, err, env)
	}
	if spec.Env[shim.NonceEnv] == "" {
		t.Errorf("no nonce beside the environment: %v", spec.Env)
	}
	req.Env = nil
	if spec, _, err = r.spec(req, "podjail-run-test"); err != nil {
		t.Fatal(err)
	}
	if _, ok := spec.Env[shim.EnvListEnv]; ok {
		t.Errorf("%s set with no environment to add: %v", shim.EnvListEnv, spec.Env)
	}
}

// TestRunEnvRefusedAtTheRequest: an entry the shim would refuse, or more
// than one environment string holds, is the request's error, before any
// container.
func TestRunEnvRefusedAtTheRequest(t *testing.T) {
	r := &Runner{Shim: "/usr/libexec/podjail-shim"}
	for _, env := range [][]string{{"NOEQUALS"}, {"=x"}, {shim.NonceEnv + "=x"}, {"A=" + strings.Repeat("x", 200<<10)}} {
		req := RunRequest{Image: "img", Command: []string{"/bin/prog"}, Env: env}
		_, _, err := r.spec(req, "podjail-run-test")
		var re *RequestError
		if !errors.As(err, &re) || re.Field != "env" {
			t.Errorf("env %.40q: %v, want a RequestError on env", env, err)
		}
	}
}
