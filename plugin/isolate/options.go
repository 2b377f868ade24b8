package isolate

// Codes of the long-only options (isolate.c enum opt_code).
const (
	optInit = 256 + iota
	optRun
	optCleanup
	optVersion
	optCG
	optCGMem
	optShareNet
	optInheritFDs
	optStderrToStdout
	optTTYHack
	optCore
	optSpecialFiles
	optWait
	optAsUID
	optAsGID
	optPrintCgRoot
	optCheckConfig
	optSyscallFlags
	optCGTiming   // isolate 1.x only
	optNoCGTiming // isolate 1.x only
)

// shortOpts is isolate.c's short_opts.
const shortOpts = "b:c:d:DeE:f:i:k:m:M:n:o:p::q:r:st:vw:x:"

// longOpts is isolate 2.6's long_opts, in its order (which is the order
// an ambiguity lists its candidates in), plus cg-timing and no-cg-timing
// where 1.x had them: Judge0 still passes them.
var longOpts = []longOption{
	{"as-uid", requiredArg, optAsUID},
	{"as-gid", requiredArg, optAsGID},
	{"box-id", requiredArg, 'b'},
	{"chdir", requiredArg, 'c'},
	{"cg", noArg, optCG},
	{"cg-mem", requiredArg, optCGMem},
	{"cg-timing", noArg, optCGTiming},
	{"check-config", noArg, optCheckConfig},
	{"cleanup", noArg, optCleanup},
	{"core", requiredArg, optCore},
	{"dir", requiredArg, 'd'},
	{"no-cg-timing", noArg, optNoCGTiming},
	{"no-default-dirs", noArg, 'D'},
	{"fsize", requiredArg, 'f'},
	{"env", requiredArg, 'E'},
	{"extra-time", requiredArg, 'x'},
	{"full-env", noArg, 'e'},
	{"inherit-fds", noArg, optInheritFDs},
	{"init", noArg, optInit},
	{"mem", requiredArg, 'm'},
	{"meta", requiredArg, 'M'},
	{"processes", optionalArg, 'p'},
	{"quota", requiredArg, 'q'},
	{"run", noArg, optRun},
	{"share-net", noArg, optShareNet},
	{"silent", noArg, 's'},
	{"stack", requiredArg, 'k'},
	{"open-files", requiredArg, 'n'},
	{"print-cg-root", noArg, optPrintCgRoot},
	{"special-files", noArg, optSpecialFiles},
	{"stderr", requiredArg, 'r'},
	{"stderr-to-stdout", noArg, optStderrToStdout},
	{"stdin", requiredArg, 'i'},
	{"stdout", requiredArg, 'o'},
	{"syscalls", requiredArg, optSyscallFlags},
	{"time", requiredArg, 't'},
	{"tty-hack", noArg, optTTYHack},
	{"verbose", noArg, 'v'},
	{"version", noArg, optVersion},
	{"wait", noArg, optWait},
	{"wall-time", requiredArg, 'w'},
}

// modeOf maps the command options to their Mode.
var modeOf = map[int]Mode{
	optInit:        ModeInit,
	optRun:         ModeRun,
	optCleanup:     ModeCleanup,
	optVersion:     ModeVersion,
	optPrintCgRoot: ModePrintCgRoot,
	optCheckConfig: ModeCheckConfig,
}
