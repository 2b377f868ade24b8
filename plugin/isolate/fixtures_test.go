package isolate

import (
	"reflect"
	"testing"
	"time"
)

// CMS: the argv cms/grading/Sandbox.py builds (github.com/cms-dev/cms at
// c3659b810cfd1fab37904f6c6148d460f2854eff): initialize_isolate,
// build_box_options + ["--"] + command in _popen, and cleanup, for a
// Worker of shard 0 and box index 0 (box id 1000), its outer directory
// /var/local/cache/cms/cms-Worker-x1, on a host with /etc/alternatives.
// The limits are those of steps/compilation.py (conf.py defaults: 10 s,
// 512 MiB, 1000 processes) and steps/evaluation.py (a batch task with a
// 1 s and 256 MiB limit, stdin from input.txt, max_file_size 1 GiB).
const cmsOuter = "/var/local/cache/cms/cms-Worker-x1"

var (
	cmsInit = []string{"--box-id=1000", "--cg", "--init"}

	cmsCompile = []string{
		"--cg", "--box-id=1000", "--chdir=/tmp",
		"--dir=/tmp=" + cmsOuter + "/home:rw",
		"--dir=/dev/shm:tmp",
		"--dir=/etc/alternatives=/etc/alternatives",
		"--dir=/etc=/etc",
		"--full-env",
		"--env=HOME=/tmp",
		"--cg-mem=524288",
		"--stdout=/tmp/compilation_stdout_0.txt",
		"--processes=1000",
		"--stderr=/tmp/compilation_stderr_0.txt",
		"--time=10",
		"--wall-time=21",
		"--meta=" + cmsOuter + "/run.meta.0",
		"--run",
		"--", "/usr/bin/g++", "-DEVAL", "-std=gnu++17", "-O2", "-pipe", "-static", "-s", "-o", "batch", "batch.cpp",
	}

	cmsEvaluate = []string{
		"--cg", "--box-id=1000", "--chdir=/tmp",
		"--dir=/tmp=" + cmsOuter + "/home:rw",
		"--dir=/dev/shm:tmp",
		"--dir=/etc/alternatives=/etc/alternatives",
		"--env=HOME=/tmp",
		"--fsize=1048576",
		"--stdin=/tmp/input.txt",
		"--cg-mem=262144",
		"--stdout=/tmp/output.txt",
		"--processes=1",
		"--stderr=/tmp/stderr.txt",
		"--time=1",
		"--wall-time=3",
		"--meta=" + cmsOuter + "/run.meta.1",
		"--run",
		"--", "./batch",
	}

	cmsChmod = []string{
		"--box-id=1000", "--cg", "--dir=/tmp=" + cmsOuter + "/home:rw",
		"--run", "--", "/bin/chmod", "777", "-R", "/tmp",
	}

	cmsCleanup = []string{"--box-id=1000", "--cg", "--cleanup"}
)

// Judge0: the commands app/jobs/isolate_job.rb runs through a shell
// (github.com/judge0/judge0 at 47dfd633b85c69ea382c0a4d16cd4ec175154c78),
// after the shell's word splitting and quote removal, for submission 42
// with the default configuration (app/helpers/config.rb: per-process
// limits off, so "--cg", "--cg-timing" and "--cg-mem="; the submission's
// defaults 5 s, 1 s extra, 10 s wall, 128000 KiB, 64000 KiB stack, 60
// processes, 1024 KiB files; compile with the MAX_ values). The box
// directory is isolate 1.x's /var/local/lib/isolate/42; the redirections
// (< stdin.txt > stdout.txt 2> stderr.txt) are the shell's, not argv.
const j0Box = "/var/local/lib/isolate/42"

var j0Env = []string{
	"-E", "HOME=/tmp",
	"-E", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"-E", "LANG", "-E", "LANGUAGE", "-E", "LC_ALL", "-E", "JUDGE0_HOMEPAGE",
	"-E", "JUDGE0_SOURCE_CODE", "-E", "JUDGE0_MAINTAINER", "-E", "JUDGE0_VERSION",
	"-d", "/etc:noexec",
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var (
	j0Init = []string{"--cg", "-b", "42", "--init"}

	j0Extract = []string{
		"--cg", "-s", "-b", "42", "--stderr-to-stdout", "-t", "2", "-x", "1", "-w", "4",
		"-k", "128000", "-p120", "--cg-timing", "--cg-mem=512000", "-f", "10240",
		"--run", "--", "/usr/bin/unzip", "-n", "-qq", "additional_files.zip",
	}

	j0Compile = concat([]string{
		"--cg", "-s", "-b", "42", "-M", j0Box + "/metadata.txt", "--stderr-to-stdout",
		"-i", "/dev/null", "-t", "15.0", "-x", "0", "-w", "20.0", "-k", "128000",
		"-p120", "--cg-timing", "--cg-mem=512000", "-f", "4096",
	}, j0Env, []string{"--run", "--", "/bin/bash", "compile.sh"})

	j0Run = concat([]string{
		"--cg", "-s", "-b", "42", "-M", j0Box + "/metadata.txt",
		"-t", "5.0", "-x", "1.0", "-w", "10.0", "-k", "64000",
		"-p60", "--cg-timing", "--cg-mem=128000", "-f", "1024",
	}, j0Env, []string{"--run", "--", "/bin/bash", "run.sh"})

	j0Cleanup = []string{"--cg", "-b", "42", "--cleanup"}
)

// base is what ParseArgs fills in when no option says otherwise.
func base(m Mode) Command {
	return Command{Mode: m, OpenFiles: 1024, Processes: 1, AsUID: -1, AsGID: -1, SyscallFlags: -1}
}

func mustParse(t *testing.T, argv []string) Command {
	t.Helper()
	c, err := ParseArgs(argv)
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return c
}

func check(t *testing.T, got, want Command) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestCMS(t *testing.T) {
	home := DirRule{Inside: "tmp", Outside: cmsOuter + "/home", Flags: DirRW}
	shm := DirRule{Inside: "dev/shm", Outside: "./tmp/:dev:shm", Flags: DirTmp | DirRW}
	alt := DirRule{Inside: "etc/alternatives", Outside: "/etc/alternatives"}

	want := base(ModeInit)
	want.BoxID, want.CG = 1000, true
	check(t, mustParse(t, cmsInit), want)

	want = base(ModeRun)
	want.BoxID, want.CG, want.Chdir = 1000, true, "/tmp"
	want.Dirs = []DirRule{home, shm, alt, {Inside: "etc", Outside: "/etc"}}
	want.FullEnv = true
	want.Env = []EnvRule{{Name: "HOME", Value: "/tmp", Set: true}}
	want.CGMemKiB = 524288
	want.Stdout, want.Stderr = "/tmp/compilation_stdout_0.txt", "/tmp/compilation_stderr_0.txt"
	want.Processes = 1000
	want.Time, want.WallTime = 10*time.Second, 21*time.Second
	want.Meta = cmsOuter + "/run.meta.0"
	want.Program = []string{"/usr/bin/g++", "-DEVAL", "-std=gnu++17", "-O2", "-pipe", "-static", "-s", "-o", "batch", "batch.cpp"}
	check(t, mustParse(t, cmsCompile), want)

	want = base(ModeRun)
	want.BoxID, want.CG, want.Chdir = 1000, true, "/tmp"
	want.Dirs = []DirRule{home, shm, alt}
	want.Env = []EnvRule{{Name: "HOME", Value: "/tmp", Set: true}}
	want.FsizeKiB = 1048576
	want.Stdin, want.Stdout, want.Stderr = "/tmp/input.txt", "/tmp/output.txt", "/tmp/stderr.txt"
	want.CGMemKiB = 262144
	want.Time, want.WallTime = time.Second, 3*time.Second
	want.Meta = cmsOuter + "/run.meta.1"
	want.Program = []string{"./batch"}
	check(t, mustParse(t, cmsEvaluate), want)

	want = base(ModeRun)
	want.BoxID, want.CG = 1000, true
	want.Dirs = []DirRule{home}
	want.Program = []string{"/bin/chmod", "777", "-R", "/tmp"}
	check(t, mustParse(t, cmsChmod), want)

	want = base(ModeCleanup)
	want.BoxID, want.CG = 1000, true
	check(t, mustParse(t, cmsCleanup), want)
}

func TestJudge0(t *testing.T) {
	env := []EnvRule{
		{Name: "HOME", Value: "/tmp", Set: true},
		{Name: "PATH", Value: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", Set: true},
		{Name: "LANG"}, {Name: "LANGUAGE"}, {Name: "LC_ALL"}, {Name: "JUDGE0_HOMEPAGE"},
		{Name: "JUDGE0_SOURCE_CODE"}, {Name: "JUDGE0_MAINTAINER"}, {Name: "JUDGE0_VERSION"},
	}
	etc := []DirRule{{Inside: "etc", Outside: "//etc", Flags: DirNoExec}}

	want := base(ModeInit)
	want.BoxID, want.CG = 42, true
	check(t, mustParse(t, j0Init), want)

	want = base(ModeRun)
	want.BoxID, want.CG, want.Silent, want.StderrToStdout = 42, true, 1, true
	want.Time, want.ExtraTime, want.WallTime = 2*time.Second, time.Second, 4*time.Second
	want.StackKiB, want.Processes, want.CGMemKiB, want.FsizeKiB = 128000, 120, 512000, 10240
	want.Ignored = []string{"--cg-timing"}
	want.Program = []string{"/usr/bin/unzip", "-n", "-qq", "additional_files.zip"}
	check(t, mustParse(t, j0Extract), want)

	want = base(ModeRun)
	want.BoxID, want.CG, want.Silent, want.StderrToStdout = 42, true, 1, true
	want.Meta, want.Stdin = j0Box+"/metadata.txt", "/dev/null"
	want.Time, want.ExtraTime, want.WallTime = 15*time.Second, 0, 20*time.Second
	want.StackKiB, want.Processes, want.CGMemKiB, want.FsizeKiB = 128000, 120, 512000, 4096
	want.Ignored = []string{"--cg-timing"}
	want.Env, want.Dirs = env, etc
	want.Program = []string{"/bin/bash", "compile.sh"}
	check(t, mustParse(t, j0Compile), want)

	want = base(ModeRun)
	want.BoxID, want.CG, want.Silent = 42, true, 1
	want.Meta = j0Box + "/metadata.txt"
	want.Time, want.ExtraTime, want.WallTime = 5*time.Second, time.Second, 10*time.Second
	want.StackKiB, want.Processes, want.CGMemKiB, want.FsizeKiB = 64000, 60, 128000, 1024
	want.Ignored = []string{"--cg-timing"}
	want.Env, want.Dirs = env, etc
	want.Program = []string{"/bin/bash", "run.sh"}
	check(t, mustParse(t, j0Run), want)

	want = base(ModeCleanup)
	want.BoxID, want.CG = 42, true
	check(t, mustParse(t, j0Cleanup), want)
}

// Judge0's other branches: per-process limits give "-m 128000" and
// "--no-cg-timing" (or no --cg at all), --share-net with networking.
func TestJudge0Variants(t *testing.T) {
	c := mustParse(t, []string{"--cg", "-s", "-b", "7", "--share-net", "-t", "5.0", "-x", "1.0", "-w", "10.0",
		"-k", "64000", "-p60", "--no-cg-timing", "-m", "128000", "-f", "1024", "--run", "--", "/bin/bash", "run.sh"})
	if c.MemKiB != 128000 || c.CGMemKiB != 0 || !c.ShareNet || !reflect.DeepEqual(c.Ignored, []string{"--no-cg-timing"}) {
		t.Errorf("got %+v", c)
	}
	c = mustParse(t, []string{"-s", "-b", "7", "-t", "5.0", "-p60", "-m", "128000", "--run", "--", "/bin/bash", "run.sh"})
	if c.CG || c.MemKiB != 128000 {
		t.Errorf("got %+v", c)
	}
}
