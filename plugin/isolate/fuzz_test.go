package isolate

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are command lines the tests and judges use, NUL-separated.
var fuzzSeeds = [][]string{
	{"-p10", "--run", "x"}, {"-p", "10", "--run", "x"}, {"--processes=5", "--run", "x"},
	{"-seb3", "--run", "x"}, {"-svvb", "4", "--run", "x"}, {"-M", "--", "--run", "x"},
	{"--box=5", "--ru", "x"}, {"--cg", "--cg-m=100", "--ini"}, {"--wai", "3", "--run", "x"},
	{"prog", "--run", "-b2", "--", "-b3", "--x"}, {"--run", "-", "--"},
	{"-r", "e", "--stderr-to-stdout", "--run", "x"},
	{"-t", "1.5", "-w", "2.0005", "-x", "1.001", "--run", "x"}, {"-t", " 2s", "-w", "abc", "-x", "1e1", "--run", "x"},
	{"-b", " +7", "-k", "-0", "--run", "x"}, {"-q", "100,20", "--init"},
	{"--as-uid=1000", "--as-gid=1001", "--syscalls=0", "-n0", "--core=5", "--run", "x"},
	{"-D", "--wait", "--inherit-fds", "--tty-hack", "--special-files", "-c", "/box/sub", "--run", "x"},
	{"-E", "A", "-EB=1", "--env=C=", "--run", "x"},
	{"-d", "/etc", "-d", "a=/b:rw:noexec", "-d", "proc=proc:fs", "-d", "/dev/shm:tmp", "-d", "box=", "--run", "x"},
	{"--version", "--cg-mem=5"}, {"--check-config", "x"}, {"--print-cg-root"}, {"--cg-timing", "--run", "y"},
	{"-d", "a:fs:tmp", "--run", "y"}, {"-m", "2147483648", "--run", "y"}, {"--std=x", "--run", "y"},
	// Judge0's and CMS's invocations.
	{"--cg", "-s", "-b", "7", "-M", "/box/meta", "-t", "5", "-x", "1", "-w", "10", "-k", "64000", "-p60",
		"-f", "1024", "--cg-mem=128000", "-E", "HOME=/tmp", "-E", "PATH=/usr/bin", "-d", "/etc:noexec",
		"--run", "--", "/bin/bash", "run", "<", "/dev/null"},
	{"--cg", "--box-id=0", "--init"}, {"--box-id=0", "--cleanup"},
}

// FuzzParseArgs holds that ParseArgs never panics, that everything it
// refuses is a *UsageError whose message is isolate's (a first line that
// says what is wrong, ending in a newline, and the "Try" line unless
// getopt printed the usage), that what it accepts is a self-consistent
// Command (a command; a program exactly for --run; --dir rules with a
// non-empty Inside free of "..", each Inside once, tmp implying rw), and
// that parse → format → parse gives the same Command (formatArgs is a
// canonical writer of a Command, here only). Arguments are capped at 64
// words of 256 bytes.
func FuzzParseArgs(f *testing.F) {
	for _, argv := range fuzzSeeds {
		f.Add(strings.Join(argv, "\x00"))
	}
	f.Fuzz(func(t *testing.T, in string) {
		argv := strings.Split(in, "\x00")
		if len(argv) > 64 || len(in) > 64*256 {
			return
		}
		c, err := ParseArgs(argv)
		if err != nil {
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("ParseArgs(%q): %T %v, want a *UsageError", argv, err, err)
			}
			if err.Error() == "" || !strings.HasSuffix(ue.Message, "\n") || !ue.Help && !strings.HasSuffix(ue.Message, tryHelp) {
				t.Fatalf("ParseArgs(%q): message %q is not isolate's", argv, ue.Message)
			}
			return
		}
		checkCommand(t, argv, c)
		again, err := ParseArgs(formatArgs(c))
		if err != nil {
			t.Fatalf("ParseArgs(%q) = %+v, whose canonical form %q is refused: %v", argv, c, formatArgs(c), err)
		}
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("ParseArgs(%q):\n %+v\nformatted %q, parsed again:\n %+v", argv, c, formatArgs(c), again)
		}
	})
}

func checkCommand(t *testing.T, argv []string, c Command) {
	t.Helper()
	bad := func(why string) { t.Fatalf("ParseArgs(%q) = %+v: %s", argv, c, why) }
	switch {
	case c.Mode == ModeNone:
		bad("no command")
	case (c.Mode == ModeRun) != (len(c.Program) > 0):
		bad("a program exactly when running")
	case c.Mode == ModePrintCgRoot && !c.CG:
		bad("--print-cg-root without cg")
	case c.Mode != ModeVersion && c.Mode != ModeCheckConfig && (c.CGMemKiB > 0 || len(c.Ignored) > 0) && !c.CG:
		bad("control group options without --cg")
	case c.Stderr != "" && c.StderrToStdout:
		bad("stderr both to a file and to stdout")
	}
	seen := map[string]bool{}
	for _, d := range c.Dirs {
		switch {
		case d.Inside == "" || strings.HasPrefix(d.Inside, "/") || seen[d.Inside]:
			bad("dir rule with an empty, absolute or repeated inside")
		case strings.Contains("/"+d.Inside+"/", "/../"):
			bad("dir rule leading out of the box")
		case d.Flags.Has(DirTmp) && !d.Flags.Has(DirRW):
			bad("tmp without rw")
		case d.Remove != (d.Outside == ""):
			bad("a removal exactly when there is no outside")
		}
		seen[d.Inside] = true
	}
	for _, e := range c.Env {
		if strings.Contains(e.Name, "=") || e.Set && e.Name == "" {
			bad("env rule with a bad name")
		}
	}
}

// formatArgs writes c as a canonical command line: long options with
// attached values, the program after "--".
func formatArgs(c Command) []string {
	var a []string
	opt := func(name string, v any) { a = append(a, fmt.Sprintf("--%s=%v", name, v)) }
	flag := func(name string, on bool) {
		if on {
			a = append(a, "--"+name)
		}
	}
	a = append(a, "--"+c.Mode.String())
	opt("box-id", c.BoxID)
	flag("cg", c.CG)
	if c.CGMemKiB != 0 {
		opt("cg-mem", c.CGMemKiB)
	}
	for _, n := range c.Ignored {
		a = append(a, n)
	}
	for name, v := range map[string]string{"meta": c.Meta, "stdin": c.Stdin, "stdout": c.Stdout, "stderr": c.Stderr, "chdir": c.Chdir} {
		if v != "" {
			opt(name, v)
		}
	}
	flag("stderr-to-stdout", c.StderrToStdout)
	for name, d := range map[string]time.Duration{"time": c.Time, "wall-time": c.WallTime, "extra-time": c.ExtraTime} {
		if d != 0 {
			opt(name, secondsText(d))
		}
	}
	for name, n := range map[string]int{"mem": c.MemKiB, "stack": c.StackKiB, "fsize": c.FsizeKiB, "core": c.CoreKiB,
		"open-files": c.OpenFiles, "processes": c.Processes, "as-uid": c.AsUID, "as-gid": c.AsGID, "syscalls": c.SyscallFlags} {
		if n >= 0 {
			opt(name, n)
		}
	}
	if c.Quota != nil {
		opt("quota", strconv.Itoa(c.Quota.Blocks)+","+strconv.Itoa(c.Quota.Inodes))
	}
	for _, e := range c.Env {
		if e.Set {
			opt("env", e.Name+"="+e.Value)
		} else {
			opt("env", e.Name)
		}
	}
	flag("full-env", c.FullEnv)
	for _, d := range c.Dirs {
		opt("dir", dirText(d))
	}
	flag("no-default-dirs", c.NoDefaultDirs)
	for range c.Silent {
		a = append(a, "--silent")
	}
	for range c.Verbose {
		a = append(a, "--verbose")
	}
	flag("wait", c.Wait)
	flag("share-net", c.ShareNet)
	flag("inherit-fds", c.InheritFDs)
	flag("tty-hack", c.TTYHack)
	flag("special-files", c.SpecialFiles)
	return append(append(a, "--"), c.Program...)
}

// secondsText is d (whole milliseconds) as atof reads it back: half a
// millisecond more, so that 1000*x truncates to the same count.
func secondsText(d time.Duration) string {
	ms := d.Milliseconds()
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	return fmt.Sprintf("%s%d.%03d5", sign, ms/1000, ms%1000)
}

// dirText is a --dir argument giving rule d.
func dirText(d DirRule) string {
	in := d.Inside
	switch {
	case d.Remove:
		in += "="
	case d.Flags.Has(DirTmp):
		in = strings.ReplaceAll(strings.TrimPrefix(d.Outside, "./tmp/"), ":", "/")
	default:
		in += "=" + d.Outside
	}
	if d.Flags != 0 {
		in += ":" + d.Flags.String()
	}
	return in
}
