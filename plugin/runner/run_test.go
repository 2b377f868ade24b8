package runner

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/policy"
	"github.com/podjail/podjail/shim"
)

func TestCheckMakesTheInputPathAbsolute(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	req := RunRequest{Image: "x", Command: []string{"/p"}, InputFile: "in.txt"}
	if err := req.Check(); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "in.txt"); req.InputFile != want {
		t.Fatalf("InputFile = %q, want %q: the Podman service resolves relative paths in its own directory", req.InputFile, want)
	}
	if l := req.Limits; l.Output != DefaultOutputLimit || l.Memory != DefaultMemory || l.Pids != DefaultPids || l.CPUs != DefaultCPUs || req.Output == nil {
		t.Errorf("defaults not filled: %+v", req)
	}
}

func TestCheckRefusesBadRequests(t *testing.T) {
	dir := t.TempDir()
	for name, req := range map[string]RunRequest{
		"no image":       {Command: []string{"/p"}},
		"no command":     {Image: "x"},
		"negative limit": {Image: "x", Command: []string{"/p"}, Limits: Limits{Pids: -1}},
		"missing input":  {Image: "x", Command: []string{"/p"}, InputFile: filepath.Join(dir, "absent")},
		"input is a dir": {Image: "x", Command: []string{"/p"}, InputFile: dir},
		"stderr missing": {Image: "x", Command: []string{"/p"}, StderrFile: filepath.Join(dir, "absent")},
		"stderr both":    {Image: "x", Command: []string{"/p"}, StderrFile: filepath.Join(dir, "absent"), StderrToStdout: true},
	} {
		var reqErr *RequestError
		if err := req.Check(); !errors.As(err, &reqErr) {
			t.Errorf("%s: err = %v, want a RequestError", name, err)
		}
	}
}

// TestSpecFileSizeLimit: a judged run's largest file is the scratch size
// unless the request says otherwise (isolate's --fsize).
func TestSpecFileSizeLimit(t *testing.T) {
	fsize := func(req RunRequest) uint64 {
		t.Helper()
		if err := req.Check(); err != nil {
			t.Fatal(err)
		}
		r := &Runner{}
		spec, _, err := r.spec(req, "x")
		if err != nil {
			t.Fatal(err)
		}
		for _, rl := range spec.Rlimits {
			if rl.Type == "RLIMIT_FSIZE" {
				return rl.Hard
			}
		}
		t.Fatal("no RLIMIT_FSIZE")
		return 0
	}
	req := RunRequest{Image: "img", Command: []string{"/p"}}
	if got, want := fsize(req), uint64(policy.Default().ScratchBytes); got != want {
		t.Errorf("default: %d, want the scratch size %d", got, want)
	}
	req.Limits.FileSize = 1 << 30
	if got := fsize(req); got != 1<<30 {
		t.Errorf("asked 1 GiB: %d", got)
	}
}

// TestSpecStackLimit: a judged run's stack is its memory limit unless the
// request asks for less (isolate's --stack).
func TestSpecStackLimit(t *testing.T) {
	stack := func(req RunRequest) uint64 {
		t.Helper()
		if err := req.Check(); err != nil {
			t.Fatal(err)
		}
		spec, _, err := (&Runner{}).spec(req, "x")
		if err != nil {
			t.Fatal(err)
		}
		for _, rl := range spec.Rlimits {
			if rl.Type == "RLIMIT_STACK" {
				return rl.Hard
			}
		}
		t.Fatal("no RLIMIT_STACK")
		return 0
	}
	req := RunRequest{Image: "img", Command: []string{"/p"}, Limits: Limits{Memory: 64 << 20}}
	if got := stack(req); got != 64<<20 {
		t.Errorf("default: %d, want the memory limit", got)
	}
	req.Limits.Stack = 1 << 20
	if got := stack(req); got != 1<<20 {
		t.Errorf("asked 1 MiB: %d", got)
	}
	req.Limits.Stack = 1 << 30
	if got := stack(req); got != 64<<20 {
		t.Errorf("asked 1 GiB under 64 MiB of memory: %d, want the memory limit", got)
	}
	req.Limits.Stack = -1
	var reqErr *RequestError
	if err := req.Check(); !errors.As(err, &reqErr) {
		t.Errorf("a negative stack: %v", err)
	}
}

// TestSpecStderr: a stderr file is bind-mounted and named to the shim;
// stderr to stdout is a flag of the shim's; without the shim, neither.
func TestSpecStderr(t *testing.T) {
	errFile := filepath.Join(t.TempDir(), "err.txt")
	if err := os.WriteFile(errFile, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	shimmed := &Runner{Shim: "/usr/libexec/podjail-shim"}
	req := RunRequest{Image: "img", Command: []string{"/p"}, StderrFile: errFile}
	if err := req.Check(); err != nil {
		t.Fatal(err)
	}
	spec, _, err := shimmed.spec(req, "x")
	if err != nil || spec.StderrFile != errFile || !slices.Contains(spec.Command, bindings.StderrPath) {
		t.Errorf("stderr file: mount %q, command %v, %v", spec.StderrFile, spec.Command, err)
	}
	req = RunRequest{Image: "img", Command: []string{"/p"}, StderrToStdout: true}
	if err := req.Check(); err != nil {
		t.Fatal(err)
	}
	if spec, _, err = shimmed.spec(req, "x"); err != nil || !slices.Contains(spec.Command, "--stderr-to-stdout") || spec.StderrFile != "" {
		t.Errorf("stderr to stdout: mount %q, command %v, %v", spec.StderrFile, spec.Command, err)
	}
	var reqErr *RequestError
	if _, _, err := (&Runner{}).spec(req, "x"); !errors.As(err, &reqErr) {
		t.Errorf("stderr without the shim: %v, want a RequestError", err)
	}
}

// TestSpecTasks: a rule for new tasks is the shim's --tasks, before the
// program; an unknown rule is refused by Check; without the shim, a rule is
// refused, not dropped.
func TestSpecTasks(t *testing.T) {
	shimmed := &Runner{Shim: "/usr/libexec/podjail-shim"}
	for _, tasks := range []string{shim.TasksThreads, shim.TasksNone} {
		req := RunRequest{Image: "img", Command: []string{"/p", "--tasks"}, Tasks: tasks}
		if err := req.Check(); err != nil {
			t.Fatal(err)
		}
		spec, _, err := shimmed.spec(req, "x")
		if err != nil {
			t.Fatal(err)
		}
		dash := slices.Index(spec.Command, "--")
		i := slices.Index(spec.Command, "--tasks")
		if i < 0 || i > dash || spec.Command[i+1] != tasks {
			t.Errorf("tasks %q: shim command %q, want --tasks %s before --", tasks, spec.Command, tasks)
		}
		var reqErr *RequestError
		if _, _, err := (&Runner{}).spec(req, "x"); !errors.As(err, &reqErr) || reqErr.Field != "tasks" {
			t.Errorf("tasks %q without the shim: %v, want a RequestError of tasks", tasks, err)
		}
	}
	spec, _, err := shimmed.spec(RunRequest{Image: "img", Command: []string{"/p"}}, "x")
	if err != nil || slices.Contains(spec.Command, "--tasks") {
		t.Errorf("no rule: shim command %q, %v; want no --tasks", spec.Command, err)
	}
	bad := RunRequest{Image: "img", Command: []string{"/p"}, Tasks: "processes"}
	var reqErr *RequestError
	if err := bad.Check(); !errors.As(err, &reqErr) || reqErr.Field != "tasks" {
		t.Errorf("tasks \"processes\": %v, want a RequestError of tasks", err)
	}
}
