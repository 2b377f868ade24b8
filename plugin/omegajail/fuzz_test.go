package omegajail

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseArgs holds that ParseArgs never panics; that what it refuses is
// ErrHelp, ErrVersion or an *ArgError naming the flag at fault (a flag
// omegajail knows, or one of the words given) with a reason; that what it
// accepts is a Request omegajail could run (exactly one mode, a language
// it knows, sources for a compile, binds with a target); and that parse →
// format → parse gives the same Request (formatArgs, here only, writes a
// Request back as a command line). argv is NUL-separated, capped at 64
// words of 256 bytes.
func FuzzParseArgs(f *testing.F) {
	for _, argv := range [][]string{
		runnerCompile, runnerRun,
		{"--homedir=/h", "--run=py3", "-t=5", "-m1000", "--", "a", "-b"},
		{"--homedir", "/h", "--compile", "java", "--compile-source", "A.java", "--compile-source", "B.java", "x", "--y"},
		{"--homedir", "/h", "--run", "cpp17-gcc", "--bind", "/tmp/p:/home/Main_pipes", "-w", "+0", "-O", "18446744073709551615"},
		{"--homedir", "/h", "--run", "c11-gcc", "--disable-sandboxing", "--allow-sigsys-fallback", "--cgroup-path=/x"},
		{"-h"}, {"--version"}, {"--homedir", "/h", "--run", "x"}, {"--homedir", "/h", "--compile", "c11-gcc"},
		{"--homedir", "/h", "--run", "c11-gcc", "-t", "-1"}, {"--run", "c11-gcc", "--run", "c11-gcc", "--homedir", "/h"},
	} {
		f.Add(strings.Join(argv, "\x00"))
	}
	f.Fuzz(func(t *testing.T, in string) {
		argv := strings.Split(in, "\x00")
		if len(argv) > 64 || len(in) > 64*256 {
			return
		}
		r, err := ParseArgs(argv)
		if err != nil {
			checkArgErr(t, argv, err)
			return
		}
		checkRequest(t, argv, r)
		again, err := ParseArgs(formatArgs(r))
		if err != nil {
			t.Fatalf("ParseArgs(%q) = %+v, whose canonical form %q is refused: %v", argv, r, formatArgs(r), err)
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("ParseArgs(%q):\n %+v\nformatted %q, parsed again:\n %+v", argv, r, formatArgs(r), again)
		}
	})
}

func checkArgErr(t *testing.T, argv []string, err error) {
	t.Helper()
	if errors.Is(err, ErrHelp) || errors.Is(err, ErrVersion) {
		return
	}
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Reason == "" {
		t.Fatalf("ParseArgs(%q): %T %v, want an *ArgError with a reason", argv, err, err)
	}
	named := strings.HasPrefix(ae.Flag, "--") && lookupLong(ae.Flag[2:]) != nil
	for _, a := range argv {
		named = named || ae.Flag != "" && strings.HasPrefix(a, ae.Flag)
	}
	if !named {
		t.Fatalf("ParseArgs(%q): %v names neither a flag nor a word given", argv, err)
	}
}

func checkRequest(t *testing.T, argv []string, r Request) {
	t.Helper()
	bad := func(why string) { t.Fatalf("ParseArgs(%q) = %+v: %s", argv, r, why) }
	switch {
	case r.Mode != ModeCompile && r.Mode != ModeRun:
		bad("no mode")
	case !slices.Contains(Languages(), r.Language):
		bad("a language omegajail does not know")
	case r.Mode == ModeCompile && len(r.CompileSources) == 0:
		bad("a compile without sources")
	}
	for _, b := range r.Binds {
		if b.Target == "" || strings.Contains(b.Source+b.Target, ":") {
			bad("a bind omegajail would refuse")
		}
	}
}

// formatArgs writes r as a command line: long flags with "=", the extra
// arguments after "--".
func formatArgs(r Request) []string {
	a := []string{"--" + r.Mode.String() + "=" + r.Language, "--homedir=" + r.Homedir, "--root=" + r.Root,
		"--compile-target=" + r.CompileTarget, "--run-target=" + r.RunTarget, "--cgroup-path=" + r.CgroupPath,
		"--extra-wall-time-limit=" + strconv.FormatUint(r.ExtraWallTimeMs, 10)}
	for _, s := range r.CompileSources {
		a = append(a, "--compile-source="+s)
	}
	for name, v := range map[string]string{"stdin": r.Stdin, "stdout": r.Stdout, "stderr": r.Stderr, "meta": r.Meta} {
		if v != "" {
			a = append(a, "--"+name+"="+v)
		}
	}
	for name, v := range map[string]*uint64{"time-limit": r.TimeLimitMs, "output-limit": r.OutputLimit, "memory-limit": r.MemoryLimit} {
		if v != nil {
			a = append(a, "--"+name+"="+strconv.FormatUint(*v, 10))
		}
	}
	for name, on := range map[string]bool{"homedir-writable": r.HomedirWritable, "disable-sandboxing": r.DisableSandboxing,
		"allow-sigsys-fallback": r.AllowSigsysFallback} {
		if on {
			a = append(a, "--"+name)
		}
	}
	for _, b := range r.Binds {
		a = append(a, "--bind="+b.Source+":"+b.Target)
	}
	return append(append(a, "--"), r.ExtraArgs...)
}

// FuzzMeta holds that ParseMeta never panics on any .meta text (capped at
// 4 KiB) and that WriteMeta → ParseMeta is the identity on every Meta
// WriteMeta accepts (Syscall then implies Signal SIGSYS), and that what
// WriteMeta refuses is refused before anything is written, with a reason.
// Times stay under 2^53 µs (285 years): the Runner reads them as float64,
// as ParseMeta does.
func FuzzMeta(f *testing.F) {
	f.Add("status:0\ntime:1500000.9\ntime-wall:abc\nmem:5\ninvalid:field\nsignal_number:11\nsyscall_number:41", int64(12345), int64(678), int64(20000), int64(1<<20), 0, byte(0), "", "")
	f.Add("status:x\nsignal:SIGSEGV\nsignal:SIGKILL\n", int64(1000000), int64(0), int64(0), int64(0), 0, byte(1), "SIGXCPU", "")
	f.Add("status:0\n\n", int64(0), int64(0), int64(0), int64(0), 0, byte(2), "", "socket")
	f.Add("time:1e30\n", int64(0), int64(0), int64(0), int64(0), 0, byte(2), "SIGSYS", "#451")
	f.Fuzz(func(t *testing.T, raw string, tu, su, wu, mem int64, status int, end byte, signal, syscall string) {
		if len(raw) > 4096 || len(signal)+len(syscall) > 1024 {
			return
		}
		_, _ = ParseMeta(strings.NewReader(raw))
		const maxUs = 1 << 53
		m := Meta{TimeUs: tu % maxUs, SysTimeUs: su % maxUs, WallTimeUs: wu % maxUs, MemBytes: mem}
		switch end % 3 {
		case 0:
			m.ExitStatus = &status
		case 1:
			m.Signal = signal
		case 2:
			m.Signal, m.Syscall = signal, syscall
		}
		var b bytes.Buffer
		if err := WriteMeta(&b, m); err != nil {
			if b.Len() != 0 || !strings.HasPrefix(err.Error(), "omegajail meta: ") {
				t.Fatalf("WriteMeta(%+v) refused (%v) after writing %q", m, err, b.String())
			}
			return
		}
		text := b.String()
		back, err := ParseMeta(&b)
		if err != nil {
			t.Fatalf("ParseMeta(%q), as WriteMeta(%+v) wrote it: %v", text, m, err)
		}
		if m.Syscall != "" {
			m.Signal = "SIGSYS"
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("WriteMeta(%+v) wrote %q, read back as %+v", m, text, back)
		}
	})
}
