package main

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
)

// judge0Image serves Judge0's languages: in the test VM, podjail-cms tagged
// again, with Judge0's paths linked by hack/testvm/prepare-cms.sh; on a
// host, contrib/images/judge0.Containerfile.
const judge0Image = "localhost/podjail-judge0:latest"

// judge0Row is one of Judge0's languages (judge0/judge0 db/languages/active.rb
// at 47dfd633b85c69ea382c0a4d16cd4ec175154c78): its source file name,
// compile_cmd ("" for none; %s is the submission's compiler options) and
// run_cmd, which app/jobs/isolate_job.rb writes into compile.sh and run.sh.
type judge0Row struct {
	id           int
	name, source string
	compile, run string
	src          string // the A+B, in testdata/judge/aplusb
}

// judge0Rows are the rows the test VM's image proves.
var judge0Rows = []judge0Row{
	{id: 43, name: "Plain Text", source: "text.txt", run: "/bin/cat text.txt"},
	{id: 46, name: "Bash (5.0.0)", source: "script.sh", run: "/usr/local/bash-5.0/bin/bash script.sh"},
	{id: 50, name: "C (GCC 9.2.0)", source: "main.c", compile: "/usr/local/gcc-9.2.0/bin/gcc %s main.c", run: "./a.out", src: "aplusb.c"},
	{id: 51, name: "C# (Mono 6.6.0.161)", source: "Main.cs", compile: "/usr/local/mono-6.6.0.161/bin/mcs %s Main.cs",
		run: "/usr/local/mono-6.6.0.161/bin/mono Main.exe", src: "aplusb.cs"},
	{id: 54, name: "C++ (GCC 9.2.0)", source: "main.cpp", compile: "/usr/local/gcc-9.2.0/bin/g++ %s main.cpp",
		run: "LD_LIBRARY_PATH=/usr/local/gcc-9.2.0/lib64 ./a.out", src: "aplusb.cpp"},
	{id: 61, name: "Haskell (GHC 8.8.1)", source: "main.hs", compile: "/usr/local/ghc-8.8.1/bin/ghc %s main.hs", run: "./main", src: "aplusb.hs"},
	{id: 62, name: "Java (OpenJDK 13.0.1)", source: "Main.java", compile: "/usr/local/openjdk13/bin/javac %s Main.java",
		run: "/usr/local/openjdk13/bin/java Main", src: "Main.java"},
	{id: 67, name: "Pascal (FPC 3.0.4)", source: "main.pas", compile: "/usr/local/fpc-3.0.4/bin/fpc %s main.pas", run: "./main", src: "aplusb.pas"},
	{id: 68, name: "PHP (7.4.1)", source: "script.php", run: "/usr/local/php-7.4.1/bin/php script.php", src: "aplusb.php"},
	{id: 71, name: "Python (3.8.1)", source: "script.py", run: "/usr/local/python-3.8.1/bin/python3 script.py", src: "aplusb.py"},
	{id: 72, name: "Ruby (2.7.0)", source: "script.rb", run: "/usr/local/ruby-2.7.0/bin/ruby script.rb", src: "aplusb.rb"},
	{id: 73, name: "Rust (1.40.0)", source: "main.rs", compile: "/usr/local/rust-1.40.0/bin/rustc %s main.rs", run: "./main", src: "aplusb.rs"},
	{id: 85, name: "Perl (5.28.1)", source: "script.pl", run: "/usr/bin/perl script.pl", src: "aplusb.pl"},
}

// judge0Inline are the programs of the rows without one in testdata.
var judge0Inline = map[int]string{43: "42\n", 46: "read -r a b\necho $((a + b))\n"}

// TestIsolateJudge0Languages runs A+B in each of judge0Rows as Judge0's
// isolate_job.rb does, through the front with podjail-judge0: compile.sh
// (compile_cmd with no options) and run.sh (run_cmd) through /bin/bash,
// with Judge0's limits; each must print 42. Two rows at once: their
// compiles wait on the VM's two processors.
func TestIsolateJudge0Languages(t *testing.T) {
	env := hosttest.Podman(t)
	_, src := judgeFiles(t, env)
	t.Run("each", func(t *testing.T) {
		for i, row := range judge0Rows {
			t.Run(row.name, func(t *testing.T) {
				t.Parallel()
				judge0APlusB(t, env, src, row, 60+i)
			})
		}
	})
	assertNothingLeft(t, env, "")
}

// judge0APlusB is one submission of row in box id: init, compile, run,
// cleanup. The limits are Judge0's defaults (app/helpers/config.rb) but
// two: the run's time is a submission's that asks for 10 s (Judge0 allows
// up to 15; its default 5 is too close to a JVM's start under the VM's
// emulation), and the compile's files may have 16 MiB, judge0.conf's
// MAX_MAX_FILE_SIZE=16384 that docs/judge0.md asks for (GHC's and rustc's
// A+B are 10 and 11 MB, above the default 4 MiB).
func judge0APlusB(t *testing.T, env hosttest.Env, src string, row judge0Row, id int) {
	root := t.TempDir()
	_ = os.Chmod(root, 0o777)
	extra := []string{"PODJAIL_ISOLATE_IMAGE=" + judge0Image}
	b := strconv.Itoa(id)
	r := isolateWith(t, env, root, extra, nil, "--cg", "-b", b, "--init")
	box := filepath.Join(strings.TrimSpace(r.stdout), "box")
	if r.code != 0 {
		t.Fatalf("init: exit %d", r.code)
	}
	program := []byte(judge0Inline[row.id])
	if row.src != "" {
		var err error
		if program, err = os.ReadFile(filepath.Join(src, "aplusb", row.src)); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{row.source: string(program), "run.sh": row.run}
	if row.compile != "" {
		files["compile.sh"] = strings.ReplaceAll(row.compile, "%s", "")
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(box, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	env0 := []string{"-E", "HOME=/tmp", "-E", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"-E", "LANG", "-E", "LANGUAGE", "-E", "LC_ALL", "-d", "/etc:noexec"}
	meta := filepath.Join(t.TempDir(), "metadata.txt")
	if row.compile != "" {
		args := append([]string{"--cg", "-s", "-b", b, "-M", meta, "--stderr-to-stdout", "-i", "/dev/null", "-t", "30.0", "-x", "0",
			"-w", "60.0", "-k", "128000", "-p120", "--cg-timing", "--cg-mem=512000", "-f", "16384"}, env0...)
		if r := isolateWith(t, env, root, extra, nil, append(args, "--run", "--", "/bin/bash", "compile.sh")...); r.code != 0 {
			t.Fatalf("compile: exit %d, meta %v, output %q", r.code, readMeta(t, meta), r.stdout)
		}
	}
	args := append([]string{"--cg", "-s", "-b", b, "-M", meta, "-t", "10.0", "-x", "1.0", "-w", "20.0",
		"-k", "64000", "-p60", "--cg-timing", "--cg-mem=128000", "-f", "1024"}, env0...)
	r = isolateWith(t, env, root, extra, []byte("19 23\n"), append(args, "--run", "--", "/bin/bash", "run.sh")...)
	if m := readMeta(t, meta); r.code != 0 || r.stdout != "42\n" || m["exitcode"] != "0" {
		t.Errorf("run: exit %d, stdout %q, stderr %q, meta %v; want 42", r.code, r.stdout, r.stderr, m)
	}
	if r := isolateWith(t, env, root, extra, nil, "--cg", "-b", b, "--cleanup"); r.code != 0 {
		t.Errorf("cleanup: exit %d", r.code)
	}
}

// linkLine is a link the judge0 image makes: "link PROGRAM PATH".
var linkLine = regexp.MustCompile(`(?m)^\s*link (\S+) (\S+?);?\s*(?:\\)?$`)

// links are the Judge0 paths file links, with their programs.
func links(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range linkLine.FindAllStringSubmatch(string(data), -1) {
		out[m[2]] = m[1]
	}
	if len(out) == 0 {
		t.Fatalf("%s makes no links", file)
	}
	return out
}

// TestJudge0Links: the test VM's image links what Judge0's rows above
// name, and each of its links is contrib/images/judge0.Containerfile's.
func TestJudge0Links(t *testing.T) {
	if hosttest.Required() {
		t.Skip("the sources are not in the test VM; this test runs with go test in the repository")
	}
	vm := links(t, "../../hack/testvm/prepare-cms.sh")
	host := links(t, "../../contrib/images/judge0.Containerfile")
	for path, prog := range vm {
		if host[path] != prog {
			t.Errorf("prepare-cms.sh links %s to %s, judge0.Containerfile to %q", path, prog, host[path])
		}
	}
	for _, row := range judge0Rows {
		for _, word := range strings.Fields(row.compile + " " + row.run) {
			path := word
			if _, v, ok := strings.Cut(word, "="); ok { // LD_LIBRARY_PATH=...
				path = v
			}
			if !strings.HasPrefix(path, "/usr/local/") || strings.HasSuffix(path, "/lib64") {
				continue // a missing LD_LIBRARY_PATH directory is skipped
			}
			linked := slices.ContainsFunc(slices.Collect(maps.Keys(vm)), func(l string) bool {
				return path == l || strings.HasPrefix(path, l+"/")
			})
			if !linked {
				t.Errorf("%s: %s is not linked by prepare-cms.sh", row.name, path)
			}
		}
	}
}

// TestLanguageDocsNameTheTests keeps docs/cms.md's and docs/judge0.md's
// tables naming the VM subtest of every language the tests above run.
func TestLanguageDocsNameTheTests(t *testing.T) {
	if hosttest.Required() {
		t.Skip("the sources are not in the test VM; this test runs with go test in the repository")
	}
	sub := func(name string) string { return strings.ReplaceAll(name, " ", "_") } // as go test names it
	for file, names := range map[string][]string{
		"cms.md":    cmsTestNames(),
		"judge0.md": judge0TestNames(),
	} {
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !strings.Contains(string(doc), "/"+sub(n)+"`") {
				t.Errorf("docs/%s names no test of %q", file, n)
			}
		}
	}
}

func cmsTestNames() (out []string) {
	for _, l := range cmsLangs {
		out = append(out, l.testName())
	}
	return out
}

func judge0TestNames() (out []string) {
	for _, r := range judge0Rows {
		out = append(out, r.name)
	}
	return out
}
