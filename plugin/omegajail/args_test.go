package omegajail

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The argv vectors below are what omegaUp's Runner builds in
// OmegajailSandbox.Compile and .Run and prefixes in invokeOmegajail
// (github.com/omegaup/quark runner/sandbox.go at commit
// de2cea4456201a264060761acda4694cc79b45ca), with the Runner's default
// configuration (common/context.go: OmegajailRoot /var/lib/omegajail,
// RuntimePath /var/lib/omegaup/runner, CompileTimeLimit 30 s,
// CompileOutputLimit 10 MiB, HardMemoryLimit 640 MiB) and the paths
// runner/runner.go Grade derives for attempt 1 (runRoot
// /var/lib/omegaup/runner/grade/1). argv[0] is dropped, as ParseArgs
// expects.
const (
	runRoot = "/var/lib/omegaup/runner/grade/1"
	ojRoot  = "/var/lib/omegajail"
)

// Compile of a C++17 submission: Main.cpp in Main/bin, no extra flags.
var runnerCompile = []string{
	"--homedir", runRoot + "/Main/bin",
	"--homedir-writable",
	"-1", runRoot + "/Main/compile.out",
	"-2", runRoot + "/Main/compile.err",
	"-M", runRoot + "/Main/compile.meta",
	"-t", "30000",
	"-O", "10485760",
	"--root", ojRoot,
	"--compile", "cpp17-gcc",
	"--compile-target", "Main",
	"--compile-source", "Main.cpp",
}

// Run of case "1" with a 1 s time limit, 256 MiB memory limit (under the
// 640 MiB hard limit), no extra wall time and a 10 KiB output limit.
var runnerRun = []string{
	"--homedir", runRoot + "/Main/bin",
	"-0", "/var/lib/omegaup/input/abc123/cases/1.in",
	"-1", runRoot + "/1.out",
	"-2", runRoot + "/1.err",
	"-M", runRoot + "/1.meta",
	"-m", "268435456",
	"-t", "1000",
	"-w", "0",
	"-O", "10240",
	"--root", ojRoot,
	"--run", "cpp17-gcc",
	"--run-target", "Main",
}

func u64p(n uint64) *uint64 { return &n }

func TestRunnerCompileArgv(t *testing.T) {
	r, err := ParseArgs(runnerCompile)
	if err != nil {
		t.Fatal(err)
	}
	want := Request{
		Mode:            ModeCompile,
		Language:        "cpp17-gcc",
		Root:            ojRoot,
		Homedir:         runRoot + "/Main/bin",
		HomedirWritable: true,
		CompileSources:  []string{"Main.cpp"},
		CompileTarget:   "Main",
		RunTarget:       "Main",
		Stdout:          runRoot + "/Main/compile.out",
		Stderr:          runRoot + "/Main/compile.err",
		Meta:            runRoot + "/Main/compile.meta",
		TimeLimitMs:     u64p(30000),
		ExtraWallTimeMs: 1000,
		OutputLimit:     u64p(10 << 20),
		CgroupPath:      DefaultCgroupPath,
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got  %+v\nwant %+v", r, want)
	}
	if got := r.WallTimeLimit().Milliseconds(); got != 31000 {
		t.Errorf("wall limit %d ms, want 31000", got)
	}
}

func TestRunnerRunArgv(t *testing.T) {
	r, err := ParseArgs(runnerRun)
	if err != nil {
		t.Fatal(err)
	}
	want := Request{
		Mode:            ModeRun,
		Language:        "cpp17-gcc",
		Root:            ojRoot,
		Homedir:         runRoot + "/Main/bin",
		CompileTarget:   "Main",
		RunTarget:       "Main",
		Stdin:           "/var/lib/omegaup/input/abc123/cases/1.in",
		Stdout:          runRoot + "/1.out",
		Stderr:          runRoot + "/1.err",
		Meta:            runRoot + "/1.meta",
		TimeLimitMs:     u64p(1000),
		ExtraWallTimeMs: 0,
		OutputLimit:     u64p(10240),
		MemoryLimit:     u64p(256 << 20),
		CgroupPath:      DefaultCgroupPath,
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got  %+v\nwant %+v", r, want)
	}
	if got := r.WallTimeLimit().Milliseconds(); got != 1000 {
		t.Errorf("wall limit %d ms, want 1000", got)
	}
}

// The Runner's other shapes of the same argv.
func TestRunnerArgvVariants(t *testing.T) {
	replace := func(argv []string, from, to string) []string {
		out := append([]string(nil), argv...)
		for i, a := range out {
			if a == from {
				out[i] = to
			}
		}
		return out
	}
	cases := []struct {
		name  string
		argv  []string
		check func(t *testing.T, r Request)
	}{{
		// invokeOmegajail puts these right after argv[0].
		name: "sigsys fallback and no sandboxing",
		argv: append([]string{"--allow-sigsys-fallback", "--disable-sandboxing"}, runnerRun...),
		check: func(t *testing.T, r Request) {
			if !r.AllowSigsysFallback || !r.DisableSandboxing {
				t.Errorf("flags not set: %+v", r)
			}
		},
	}, {
		// Run: java gets timeLimit += 1000.
		name: "java",
		argv: replace(replace(runnerRun, "cpp17-gcc", "java"), "1000", "2000"),
		check: func(t *testing.T, r Request) {
			if r.Language != "java" || *r.TimeLimitMs != 2000 {
				t.Errorf("got %s %d", r.Language, *r.TimeLimitMs)
			}
		},
	}, {
		// Run: an input of /dev/null becomes root/dev/null.
		name: "no input",
		argv: replace(runnerRun, "/var/lib/omegaup/input/abc123/cases/1.in", ojRoot+"/root/dev/null"),
		check: func(t *testing.T, r Request) {
			if r.Stdin != ojRoot+"/root/dev/null" {
				t.Errorf("stdin %q", r.Stdin)
			}
		},
	}, {
		// Grade: a custom validator gets the case name and language
		// after "--" (runner.go: []string{caseData.Name, run.Language}).
		name: "validator",
		argv: []string{
			"--homedir", runRoot + "/validator/bin",
			"-0", runRoot + "/1.out",
			"-1", runRoot + "/validator/1.out",
			"-2", runRoot + "/validator/1.err",
			"-M", runRoot + "/validator/1.meta",
			"-m", "268435456", "-t", "1000", "-w", "0", "-O", "10240",
			"--root", ojRoot, "--run", "py3", "--run-target", "validator",
			"--", "1", "cpp17-gcc",
		},
		check: func(t *testing.T, r Request) {
			if r.RunTarget != "validator" || !reflect.DeepEqual(r.ExtraArgs, []string{"1", "cpp17-gcc"}) {
				t.Errorf("got %q %q", r.RunTarget, r.ExtraArgs)
			}
		},
	}, {
		// libinteractive: the contestant's side gets its pipes bound.
		name: "interactive",
		argv: append(append([]string(nil), runnerRun...),
			"--bind", runRoot+"/Main_pipes:/home/Main_pipes"),
		check: func(t *testing.T, r Request) {
			want := []Bind{{Source: runRoot + "/Main_pipes", Target: "/home/Main_pipes"}}
			if !reflect.DeepEqual(r.Binds, want) {
				t.Errorf("binds %+v", r.Binds)
			}
		},
	}, {
		// Compile in debug mode: ASan flags after "--".
		name: "asan compile",
		argv: append(replace(runnerCompile, "cpp17-gcc", "cpp11"), "--", "-static-libasan", "-fsanitize=address"),
		check: func(t *testing.T, r Request) {
			if !reflect.DeepEqual(r.ExtraArgs, []string{"-static-libasan", "-fsanitize=address"}) {
				t.Errorf("extra %q", r.ExtraArgs)
			}
		},
	}, {
		// omegajail's own smoketest/test passes --cgroup-path.
		name: "smoketest compile",
		argv: []string{
			"--homedir", "/src/run/c11-gcc", "--homedir-writable",
			"-1", "/src/run/c11-gcc/compile.out", "-2", "/src/run/c11-gcc/compile.err",
			"-M", "/src/run/c11-gcc/compile.meta", "-t", "30000", "-O", "10485100",
			"--root", "/var/lib/omegajail", "--compile", "c11-gcc",
			"--compile-source", "Main.c", "--compile-target", "Main",
			"--cgroup-path", "/sys/fs/cgroup/omegajail",
		},
		check: func(t *testing.T, r Request) {
			if r.CgroupPath != "/sys/fs/cgroup/omegajail" || r.Mode != ModeCompile {
				t.Errorf("got %+v", r)
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseArgs(c.argv)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, r)
		})
	}
}

// The Runner's debug mode sets MemoryLimit to -1 and so passes "-m -1",
// which omegajail's parser rejects: "-1" is not a value there.
func TestRunnerDebugMemoryRejected(t *testing.T) {
	argv := append([]string(nil), runnerRun...)
	for i, a := range argv {
		if a == "268435456" {
			argv[i] = "-1"
		}
	}
	_, err := ParseArgs(argv)
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Flag != "--memory-limit" {
		t.Fatalf("err %v, want an ArgError on --memory-limit", err)
	}
}

func TestValueForms(t *testing.T) {
	base := []string{"--homedir", "/h", "--run", "c"}
	for _, form := range [][]string{
		{"-t", "1500"}, {"-t1500"}, {"-t=1500"}, {"--time-limit", "1500"},
		{"--time-limit=1500"}, {"-t", "+1500"},
	} {
		r, err := ParseArgs(append(append([]string(nil), base...), form...))
		if err != nil {
			t.Errorf("%q: %v", form, err)
			continue
		}
		if r.TimeLimitMs == nil || *r.TimeLimitMs != 1500 {
			t.Errorf("%q: time limit %v", form, r.TimeLimitMs)
		}
	}
	r, err := ParseArgs([]string{"--homedir=/h", "--run=py", "-0-", "--stdout=", "--memory-limit=0"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Homedir != "/h" || r.Language != "py" || r.Stdin != "-" || r.Stdout != "" || *r.MemoryLimit != 0 {
		t.Errorf("got %+v", r)
	}
	// "-" alone is a value.
	if r, err := ParseArgs([]string{"--homedir", "/h", "--run", "c", "-0", "-"}); err != nil || r.Stdin != "-" {
		t.Errorf("-0 -: %+v %v", r, err)
	}
}

func TestDefaults(t *testing.T) {
	r, err := ParseArgs([]string{"--homedir", "/h", "--run", "py3"})
	if err != nil {
		t.Fatal(err)
	}
	want := Request{Mode: ModeRun, Language: "py3", Root: ".", Homedir: "/h",
		CompileTarget: "Main", RunTarget: "Main", ExtraWallTimeMs: 1000, CgroupPath: DefaultCgroupPath}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got  %+v\nwant %+v", r, want)
	}
	if r.WallTimeLimit().Milliseconds() != 1000 {
		t.Errorf("wall limit %v", r.WallTimeLimit())
	}
	// --compile-target has a default, so --compile needs only sources.
	r, err = ParseArgs([]string{"--homedir", "/h", "--compile", "c", "--compile-source", "a.c", "--compile-source", "b.c"})
	if err != nil {
		t.Fatal(err)
	}
	if r.CompileTarget != "Main" || !reflect.DeepEqual(r.CompileSources, []string{"a.c", "b.c"}) {
		t.Errorf("got %+v", r)
	}
}

func TestPositionalStartsExtraArgs(t *testing.T) {
	r, err := ParseArgs([]string{"--homedir", "/h", "--run", "c", "arg", "-t", "5", "--", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if r.TimeLimitMs != nil || !reflect.DeepEqual(r.ExtraArgs, []string{"arg", "-t", "5", "--", "x"}) {
		t.Errorf("got %v %q", r.TimeLimitMs, r.ExtraArgs)
	}
}

func TestArgErrors(t *testing.T) {
	cases := []struct {
		argv []string
		flag string
	}{
		{[]string{"--homedir", "/h", "--run", "c", "--bogus"}, "--bogus"},
		{[]string{"--homedir", "/h", "--run", "c", "-x"}, "-x"},
		{[]string{"--homedir", "/h", "--run", "c", "--cgroup-memory-limit", "5"}, "--cgroup-memory-limit"},
		{[]string{"--homedir", "/h", "--run", "c", "-b"}, "-b"},
		{[]string{"--run", "c"}, "--homedir"},
		{[]string{"--homedir", "/h"}, "--run"},
		{[]string{"--homedir", "/h", "--compile", "c", "--compile-source", "a.c", "--run", "c"}, "--run"},
		{[]string{"--homedir", "/h", "--run", "c", "--compile", "c"}, "--compile"},
		{[]string{"--homedir", "/h", "--compile", "c"}, "--compile-source"},
		{[]string{"--homedir", "/h", "--homedir", "/i", "--run", "c"}, "--homedir"},
		{[]string{"--homedir", "/h", "--run", "c", "-t", "1", "-t", "2"}, "--time-limit"},
		{[]string{"--homedir", "/h", "--run", "c", "--homedir-writable", "--homedir-writable"}, "--homedir-writable"},
		{[]string{"--homedir", "/h", "--run", "cpp14"}, "--run"},
		{[]string{"--homedir", "/h", "--run", "C"}, "--run"},
		{[]string{"--homedir", "/h", "--run", "c", "-t", "1.5"}, "--time-limit"},
		{[]string{"--homedir", "/h", "--run", "c", "-O", ""}, "--output-limit"},
		{[]string{"--homedir", "/h", "--run", "c", "-w", "18446744073709551616"}, "--extra-wall-time-limit"},
		{[]string{"--homedir", "/h", "--run", "c", "-t"}, "--time-limit"},
		{[]string{"--homedir", "--run", "c"}, "--homedir"},
		{[]string{"--homedir", "/h", "--run", "c", "--homedir-writable=yes"}, "--homedir-writable"},
		{[]string{"--homedir", "/h", "--run", "c", "--bind", "/a"}, "--bind"},
		{[]string{"--homedir", "/h", "--run", "c", "--bind", "/a:/b:/c"}, "--bind"},
	}
	for _, c := range cases {
		_, err := ParseArgs(c.argv)
		var ae *ArgError
		if !errors.As(err, &ae) {
			t.Errorf("%q: err %v, want an ArgError", c.argv, err)
			continue
		}
		if ae.Flag != c.flag || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%q: error %q names %q, want %q", c.argv, err, ae.Flag, c.flag)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	for argv, want := range map[string]error{"-h": ErrHelp, "--help": ErrHelp, "-V": ErrVersion, "--version": ErrVersion} {
		if _, err := ParseArgs([]string{argv}); !errors.Is(err, want) {
			t.Errorf("%s: %v", argv, err)
		}
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{ModeNone: "none", ModeCompile: "compile", ModeRun: "run"} {
		if m.String() != want {
			t.Errorf("%d: %q", m, m.String())
		}
	}
}
