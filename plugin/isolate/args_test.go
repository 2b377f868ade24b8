package isolate

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOptionForms(t *testing.T) {
	cases := []struct {
		argv  []string
		check func(c Command) bool
	}{
		{[]string{"-p10", "--run", "x"}, func(c Command) bool { return c.Processes == 10 }},
		{[]string{"-p", "--run", "x"}, func(c Command) bool { return c.Processes == 0 }},
		// An optional argument must be attached: "10" is an operand.
		{[]string{"-p", "10", "--run", "x"}, func(c Command) bool {
			return c.Processes == 0 && reflect.DeepEqual(c.Program, []string{"10", "x"})
		}},
		{[]string{"--processes=5", "--run", "x"}, func(c Command) bool { return c.Processes == 5 }},
		{[]string{"--processes", "5", "--run", "x"}, func(c Command) bool {
			return c.Processes == 0 && reflect.DeepEqual(c.Program, []string{"5", "x"})
		}},
		{[]string{"-m262144", "--run", "x"}, func(c Command) bool { return c.MemKiB == 262144 }},
		{[]string{"-m", "262144", "--run", "x"}, func(c Command) bool { return c.MemKiB == 262144 }},
		{[]string{"--mem=262144", "--run", "x"}, func(c Command) bool { return c.MemKiB == 262144 }},
		{[]string{"--mem", "262144", "--run", "x"}, func(c Command) bool { return c.MemKiB == 262144 }},
		// Clusters, and a required argument in the same word or the next.
		{[]string{"-seb3", "--run", "x"}, func(c Command) bool { return c.Silent == 1 && c.FullEnv && c.BoxID == 3 }},
		{[]string{"-svvb", "4", "--run", "x"}, func(c Command) bool { return c.Verbose == 2 && c.BoxID == 4 }},
		// The next word is the argument whatever it looks like.
		{[]string{"-M", "--", "--run", "x"}, func(c Command) bool { return c.Meta == "--" }},
		{[]string{"--meta", "-v", "--run", "x"}, func(c Command) bool { return c.Meta == "-v" && c.Verbose == 0 }},
		{[]string{"-M-", "--run", "x"}, func(c Command) bool { return c.Meta == "-" }},
		// Unambiguous prefixes of long options.
		{[]string{"--box=5", "--ru", "x"}, func(c Command) bool { return c.BoxID == 5 && c.Mode == ModeRun }},
		{[]string{"--cg", "--cg-m=100", "--ini"}, func(c Command) bool { return c.CGMemKiB == 100 && c.Mode == ModeInit }},
		{[]string{"--stderr", "e", "--run", "x"}, func(c Command) bool { return c.Stderr == "e" }}, // exact beats prefix
		// "--wai" is --wait, which takes no argument: "3" is an operand.
		{[]string{"--wai", "3", "--run", "x"}, func(c Command) bool {
			return c.Wait && reflect.DeepEqual(c.Program, []string{"3", "x"})
		}},
		// Options after operands are still options (permutation);
		// after "--" nothing is.
		{[]string{"prog", "--run", "-b2", "--", "-b3", "--x"}, func(c Command) bool {
			return c.BoxID == 2 && reflect.DeepEqual(c.Program, []string{"prog", "-b3", "--x"})
		}},
		{[]string{"--run", "/bin/echo", "hi"}, func(c Command) bool {
			return reflect.DeepEqual(c.Program, []string{"/bin/echo", "hi"})
		}},
		{[]string{"--run", "-", "--"}, func(c Command) bool { return reflect.DeepEqual(c.Program, []string{"-"}) }},
		// Later wins between -r and --stderr-to-stdout.
		{[]string{"-r", "e", "--stderr-to-stdout", "--run", "x"}, func(c Command) bool { return c.Stderr == "" && c.StderrToStdout }},
		{[]string{"--stderr-to-stdout", "-r", "e", "--run", "x"}, func(c Command) bool { return c.Stderr == "e" && !c.StderrToStdout }},
		// The same command twice is fine.
		{[]string{"--run", "--run", "x"}, func(c Command) bool { return c.Mode == ModeRun }},
		// Times: atof's prefix, then truncated milliseconds.
		{[]string{"-t", "1.5", "-w", "2.0005", "-x", "1.001", "--run", "x"}, func(c Command) bool {
			// 1000*1.001 is 1000.9999999999999 in doubles, as in C.
			return c.Time == 1500*time.Millisecond && c.WallTime == 2000*time.Millisecond && c.ExtraTime == 1000*time.Millisecond
		}},
		{[]string{"-t", " 2s", "-w", "abc", "-x", "1e1", "--run", "x"}, func(c Command) bool {
			return c.Time == 2*time.Second && c.WallTime == 0 && c.ExtraTime == 10*time.Second
		}},
		{[]string{"-t", "-1", "--run", "x"}, func(c Command) bool { return c.Time == -time.Second }},
		// opt_uint: blanks and a sign before the digits.
		{[]string{"-b", " +7", "-k", "-0", "--run", "x"}, func(c Command) bool { return c.BoxID == 7 && c.StackKiB == 0 }},
		{[]string{"-q", "100,20", "--init"}, func(c Command) bool { return *c.Quota == Quota{100, 20} }},
		{[]string{"--as-uid=1000", "--as-gid=1001", "--syscalls=0", "-n0", "--core=5", "--run", "x"}, func(c Command) bool {
			return c.AsUID == 1000 && c.AsGID == 1001 && c.SyscallFlags == 0 && c.OpenFiles == 0 && c.CoreKiB == 5
		}},
		{[]string{"-D", "--wait", "--inherit-fds", "--tty-hack", "--special-files", "-c", "/box/sub", "--run", "x"}, func(c Command) bool {
			return c.NoDefaultDirs && c.Wait && c.InheritFDs && c.TTYHack && c.SpecialFiles && c.Chdir == "/box/sub"
		}},
		// Env rules: inherit, set, unset.
		{[]string{"-E", "A", "-EB=1", "--env=C=", "--run", "x"}, func(c Command) bool {
			return reflect.DeepEqual(c.Env, []EnvRule{{Name: "A"}, {Name: "B", Value: "1", Set: true}, {Name: "C", Set: true}})
		}},
		// Version and check-config stop before the other checks.
		{[]string{"--version", "--cg-mem=5"}, func(c Command) bool { return c.Mode == ModeVersion }},
		{[]string{"--check-config", "x"}, func(c Command) bool { return c.Mode == ModeCheckConfig }},
		{[]string{"--print-cg-root"}, func(c Command) bool { return c.Mode == ModePrintCgRoot && c.CG }},
	}
	for _, tc := range cases {
		c, err := ParseArgs(tc.argv)
		if err != nil {
			t.Errorf("%q: %v", tc.argv, err)
			continue
		}
		if !tc.check(c) {
			t.Errorf("%q: got %+v", tc.argv, c)
		}
	}
}

func TestDirRules(t *testing.T) {
	c := mustParse(t, []string{
		"-d", "/usr/include", "-d", "a=/x:rw:dev", "-d", "proc=proc:fs", "-d", "w:tmp:norec",
		"-d", "b=./rel:maybe:noexec", "-d", "/a=/y", "-d", "gone=", "--run", "x",
	})
	want := []DirRule{
		{Inside: "usr/include", Outside: "//usr/include"},
		{Inside: "a", Outside: "/y"}, // replaced in place
		{Inside: "proc", Outside: "proc", Flags: DirFS},
		{Inside: "w", Outside: "./tmp/w", Flags: DirTmp | DirNoRec | DirRW},
		{Inside: "b", Outside: "./rel", Flags: DirMaybe | DirNoExec},
		{Inside: "gone", Remove: true},
	}
	if !reflect.DeepEqual(c.Dirs, want) {
		t.Errorf("got  %+v\nwant %+v", c.Dirs, want)
	}
	if s := (DirRW | DirDev | DirNoRec).String(); s != "rw:dev:norec" {
		t.Errorf("flags %q", s)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		argv []string
		msg  string
		help bool
	}{
		{[]string{"--run", "x", "--bogus"}, "isolate: unrecognized option '--bogus'\n", true},
		{[]string{"--bogus=1", "--run", "x"}, "isolate: unrecognized option '--bogus=1'\n", true},
		{[]string{"--help"}, "isolate: unrecognized option '--help'\n", true},
		{[]string{"-z", "--run", "x"}, "isolate: invalid option -- 'z'\n", true},
		{[]string{"-:", "--run", "x"}, "isolate: invalid option -- ':'\n", true},
		{[]string{"--run", "-b"}, "isolate: option requires an argument -- 'b'\n", true},
		{[]string{"--run", "--meta"}, "isolate: option '--meta' requires an argument\n", true},
		{[]string{"--cg=1", "--run", "x"}, "isolate: option '--cg' doesn't allow an argument\n", true},
		{[]string{"--ru=1", "x"}, "isolate: option '--run' doesn't allow an argument\n", true},
		{[]string{"--in", "--run", "y"}, "isolate: option '--in' is ambiguous; possibilities: '--inherit-fds' '--init'\n", true},
		{[]string{"--std=x", "--run", "y"}, "isolate: option '--std=x' is ambiguous; possibilities: '--stderr' '--stderr-to-stdout' '--stdin' '--stdout'\n", true},
		{[]string{"--c", "--run", "y"}, "isolate: option '--c' is ambiguous; possibilities: '--chdir' '--cg' '--cg-mem' '--cg-timing' '--check-config' '--cleanup' '--core'\n", true},
		// A program's own options without "--" are isolate's.
		{[]string{"--run", "/bin/ls", "-l"}, "isolate: invalid option -- 'l'\n", true},
		{[]string{"-b", "x", "--run", "y"}, "Invalid numeric parameter: x\n" + tryHelp, false},
		{[]string{"-b", "5x", "--run", "y"}, "Invalid numeric parameter: 5x\n" + tryHelp, false},
		{[]string{"-b", "", "--run", "y"}, "Invalid numeric parameter: \n" + tryHelp, false},
		{[]string{"-b", "-1", "--run", "y"}, "Numeric parameter out of range: -1\n" + tryHelp, false},
		{[]string{"-m", "2147483648", "--run", "y"}, "Numeric parameter out of range: 2147483648\n" + tryHelp, false},
		{[]string{"-m", "99999999999999999999", "--run", "y"}, "Invalid numeric parameter: 99999999999999999999\n" + tryHelp, false},
		{[]string{"-p", "--run", "y", "-px"}, "Invalid numeric parameter: x\n" + tryHelp, false},
		{[]string{"-q", "100", "--init"}, "Invalid quota specified: 100\n" + tryHelp, false},
		{[]string{"-q", "100,x", "--init"}, "Invalid numeric parameter: x\n" + tryHelp, false},
		{[]string{"-E", "=x", "--run", "y"}, "Invalid environment specified: =x\n" + tryHelp, false},
		{[]string{"-d", "a:bogus", "--run", "y"}, "Invalid directory rule 'a:bogus': Unknown option 'bogus'\n" + tryHelp, false},
		{[]string{"-d", "a:", "--run", "y"}, "Invalid directory rule 'a:': Unknown option ''\n" + tryHelp, false},
		{[]string{"-d", "a=x:fs", "--run", "y"}, "Invalid directory rule 'a=x:fs': This filesystem is not supported\n" + tryHelp, false},
		{[]string{"-d", "a:fs", "--run", "y"}, "Invalid directory rule 'a:fs': Missing filesystem name\n" + tryHelp, false},
		{[]string{"-d", "a:fs:tmp", "--run", "y"}, "Invalid directory rule 'a:fs:tmp': Flags 'fs' and 'tmp' are mutually exclusive\n" + tryHelp, false},
		{[]string{"-d", "a=/b:tmp", "--run", "y"}, "Invalid directory rule 'a=/b:tmp': Temporary directory mounts do not have a right-hand side\n" + tryHelp, false},
		{[]string{"-d", "a=b", "--run", "y"}, "Invalid directory rule 'a=b': Right-hand side must start with '/' or './'\n" + tryHelp, false},
		{[]string{"-d", "../etc", "--run", "y"}, "Invalid directory rule '../etc': Invalid path\n" + tryHelp, false},
		{[]string{"-d", "/=/x", "--run", "y"}, "Invalid directory rule '/=/x': Invalid path\n" + tryHelp, false},
		{[]string{"--init", "--run", "y"}, "Only one command is allowed.\n" + tryHelp, false},
		{[]string{"-b", "1"}, "Please specify an isolate command (e.g. --init, --run).\n" + tryHelp, false},
		{[]string{}, "Please specify an isolate command (e.g. --init, --run).\n" + tryHelp, false},
		{[]string{"--cg-mem=100", "--run", "y"}, "Options related to control groups require --cg to be set.\n" + tryHelp, false},
		{[]string{"--cg-timing", "--run", "y"}, "Options related to control groups require --cg to be set.\n" + tryHelp, false},
		{[]string{"--init", "x"}, "--init mode takes no parameters\n" + tryHelp, false},
		{[]string{"--run"}, "--run mode requires a command to run\n" + tryHelp, false},
		{[]string{"--run", "--"}, "--run mode requires a command to run\n" + tryHelp, false},
		{[]string{"--cleanup", "--", "x"}, "--cleanup mode takes no parameters\n" + tryHelp, false},
		// The first error wins, in argv order.
		{[]string{"-b", "x", "--bogus"}, "Invalid numeric parameter: x\n" + tryHelp, false},
	}
	for _, tc := range cases {
		_, err := ParseArgs(tc.argv)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: err %v, want a UsageError", tc.argv, err)
			continue
		}
		if ue.Message != tc.msg || ue.Help != tc.help {
			t.Errorf("%q:\ngot  %q %v\nwant %q %v", tc.argv, ue.Message, ue.Help, tc.msg, tc.help)
		}
		if err.Error() != strings.TrimSuffix(strings.SplitN(tc.msg, "\n", 2)[0], "\n") {
			t.Errorf("%q: Error() %q", tc.argv, err.Error())
		}
	}
}

func TestModeString(t *testing.T) {
	for m, want := range map[Mode]string{ModeNone: "none", ModeInit: "init", ModeRun: "run", ModeCleanup: "cleanup",
		ModeVersion: "version", ModePrintCgRoot: "print-cg-root", ModeCheckConfig: "check-config", Mode(99): "none"} {
		if m.String() != want {
			t.Errorf("%d: %q", m, m.String())
		}
	}
}

func TestProgramEnv(t *testing.T) {
	environ := []string{"PATH=/caller/bin", "LANG=C.UTF-8", "SECRET=x", "=junk"}
	rules := []EnvRule{{Name: "HOME", Value: "/tmp", Set: true}, {Name: "LANG"}, {Name: "NOPE"}, {Name: "SECRET", Set: true}}
	if got, want := ProgramEnv(rules, false, environ), []string{"HOME=/tmp", "LANG=C.UTF-8"}; !slices.Equal(got, want) {
		t.Errorf("rules only: %q, want %q", got, want)
	}
	// --full-env: the caller's whole environment, then the rules ("SECRET=" removes).
	if got, want := ProgramEnv(rules, true, environ), []string{"PATH=/caller/bin", "LANG=C.UTF-8", "HOME=/tmp"}; !slices.Equal(got, want) {
		t.Errorf("full env: %q, want %q", got, want)
	}
}
