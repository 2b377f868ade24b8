package isolate

// Usage is isolate's usage text (isolate.c, usage(NULL), at the commit
// doc.go names), which isolate prints on stdout after an error of getopt's
// own, --help among them, before it exits 2. The front prints it then too,
// with FrontNotes after it.
const Usage = "Usage: isolate [<options>] <command>\n" +
	"\n" +
	"Options:\n" +
	"    --as-uid=<uid>\tPerform action on behalf of a given user (requires root)\n" +
	"    --as-gid=<gid>\tPerform action on behalf of a given group (requires root)\n" +
	"-b, --box-id=<id>\tWhen multiple sandboxes are used in parallel, each must get a unique ID\n" +
	"    --cg\t\tEnable use of control groups\n" +
	"    --cg-mem=<size>\tLimit memory usage of the control group to <size> KB\n" +
	"-c, --chdir=<dir>\tChange directory to <dir> before executing the program\n" +
	"    --core=<size>\tLimit core files to <size> KB (default: 0)\n" +
	"-d, --dir=<dir>\t\tMake a directory <dir> visible inside the sandbox\n" +
	"    --dir=<in>=<out>\tMake a directory <out> outside visible as <in> inside\n" +
	"    --dir=<in>=\t\tDelete a previously defined directory rule (even a default one)\n" +
	"    --dir=...:<opt>\tSpecify options for a rule:\n" +
	"\t\t\t\tdev\tAllow access to block/char devices\n" +
	"\t\t\t\tfs\tMount a filesystem (e.g., --dir=/proc:proc:fs)\n" +
	"\t\t\t\tmaybe\tSkip the rule if <out> does not exist\n" +
	"\t\t\t\tnoexec\tDo not allow execution of binaries\n" +
	"\t\t\t\tnorec\tDo not bind the directory recursively\n" +
	"\t\t\t\trw\tAllow read-write access\n" +
	"\t\t\t\ttmp\tCreate as a temporary directory (implies rw)\n" +
	"-D, --no-default-dirs\tDo not add default directory rules\n" +
	"-f, --fsize=<size>\tMax size (in KB) of files that can be created\n" +
	"-E, --env=<var>\t\tInherit the environment variable <var> from the parent process\n" +
	"-E, --env=<var>=<val>\tSet the environment variable <var> to <val>; unset it if <var> is empty\n" +
	"-x, --extra-time=<time>\tSet extra timeout, before which a timing-out program is not yet killed,\n" +
	"\t\t\tso that its real execution time is reported (seconds, fractions allowed)\n" +
	"-e, --full-env\t\tInherit full environment of the parent process\n" +
	"    --inherit-fds\tInherit all file descriptors of the parent process\n" +
	"-m, --mem=<size>\tLimit address space to <size> KB\n" +
	"-M, --meta=<file>\tOutput process information to <file> (name:value)\n" +
	"-n, --open-files=<max>\tLimit number of open files to <max> (default: 1024, 0=unlimited)\n" +
	"-q, --quota=<blk>,<ino>\tSet disk quota to <blk> blocks and <ino> inodes\n" +
	"    --share-net\t\tShare network namespace with the parent process\n" +
	"-s, --silent\t\tDo not print status messages except for fatal errors\n" +
	"    --special-files\tKeep non-regular files (symlinks etc.) produced inside sandbox\n" +
	"-k, --stack=<size>\tLimit stack size to <size> KB (default: 0=unlimited)\n" +
	"-r, --stderr=<file>\tRedirect stderr to <file>\n" +
	"    --stderr-to-stdout\tRedirect stderr to stdout\n" +
	"-i, --stdin=<file>\tRedirect stdin from <file>\n" +
	"-o, --stdout=<file>\tRedirect stdout to <file>\n" +
	"-p, --processes[=<max>]\tEnable multiple processes (at most <max> of them); needs --cg\n" +
	"    --syscalls=<flags>\tSet syscall_flags (see \"System call restrictions\" in man isolate)\n" +
	"-t, --time=<time>\tSet run time limit (seconds, fractions allowed)\n" +
	"    --tty-hack\t\tAllow interactive programs in the sandbox (see man for caveats)\n" +
	"-v, --verbose\t\tBe verbose (use multiple times for even more verbosity)\n" +
	"    --wait\t\tIf the sandbox is currently busy, wait instead of refusing to run\n" +
	"-w, --wall-time=<time>\tSet wall clock time limit (seconds, fractions allowed)\n" +
	"\n" +
	"Commands:\n" +
	"    --init\t\tInitialize sandbox (and its control group when --cg is used)\n" +
	"    --run -- <cmd> ...\tRun given command within sandbox\n" +
	"    --cleanup\t\tClean up sandbox\n" +
	"    --check-config\tCheck configuration file and exit\n" +
	"    --print-cg-root\tPrint the root of cgroup hierarchy\n" +
	"    --version\t\tDisplay program version and configuration\n"

// FrontNotes follow Usage: what podjail's front does otherwise
// (docs/isolate.md).
const FrontNotes = "\n" +
	"podjail's isolate front: each --run is a fresh Podman container, the box mounted at /box.\n" +
	"Ignored: -D, -n, -q, -v, --core, --wait, --share-net, --as-uid, --as-gid, --syscalls,\n" +
	"--inherit-fds, --tty-hack, --special-files, and isolate 1.x's --cg-timing, --no-cg-timing.\n" +
	"Not supported (exit 2): --check-config, --print-cg-root. See podjail's docs/isolate.md.\n"
