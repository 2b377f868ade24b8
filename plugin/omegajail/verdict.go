package omegajail

// RunnerLimits is what the Runner's parseMetaFile knows besides the
// .meta itself. Zero value: a compile's view (no memory limit, a non-zero
// exit is RTE) of a language without special rules.
type RunnerLimits struct {
	// Lang is the omegaUp language name the Runner passed to omegajail.
	Lang string
	// MemoryLimit is the problem's memory limit in bytes (not the
	// clamped -m value). 0 or less: no MLE; the Runner passes no limits
	// for a compile.
	MemoryLimit int64
	// AllowNonZeroExit makes any exit status OK. The Runner sets it for
	// runs of the language named exactly "c", never for compiles.
	AllowNonZeroExit bool
	// JavaOutOfMemory says the program's stderr holds
	// "java.lang.OutOfMemoryError" (the Runner's isJavaMLE); it only
	// counts with Lang "java".
	JavaOutOfMemory bool
}

// ForRun returns the RunnerLimits the Runner uses for a run of lang under
// a problem memory limit in bytes.
func ForRun(lang string, memoryLimit int64) RunnerLimits {
	return RunnerLimits{Lang: lang, MemoryLimit: memoryLimit, AllowNonZeroExit: lang == "c"}
}

// ForCompile returns the RunnerLimits the Runner uses for a compile.
func ForCompile(lang string) RunnerLimits { return RunnerLimits{Lang: lang} }

// RunnerVerdict returns the verdict omegaUp's Runner gives a .meta
// (parseMetaFile, quark runner/sandbox.go), in its order:
//
//   - a signal: SIGSYS is RFE; SIGILL SIGABRT SIGFPE SIGKILL SIGPIPE
//     SIGBUS SIGSEGV are RTE; SIGALRM and SIGXCPU are TLE; SIGXFSZ is OLE;
//     any other is RTE;
//   - else exit status 0 (or any, with AllowNonZeroExit) is OK, anything
//     else, a missing status included, is RTE;
//   - then for Karel ("kj", "kp") exit status 1 is TLE;
//   - then, with a memory limit, memory above it (or Java's own
//     OutOfMemoryError with a non-zero or missing status) is MLE.
//
// The Runner has no rule of its own for time: a TLE is always
// omegajail's SIGXCPU, sent when the processor time limit rounded up to
// whole seconds (RLIMIT_CPU) or the wall time limit is reached. The
// Runner also clamps the reported memory to the limit on MLE and, after a
// Java compile that is OK, makes it CE when no <target>.class appeared.
func RunnerVerdict(m Meta, l RunnerLimits) string {
	status := -1 // the Runner's default when no "status" line came
	if m.ExitStatus != nil {
		status = *m.ExitStatus
	}
	var v string
	switch {
	case m.Signal != "":
		v = signalVerdict(m.Signal)
	case status == 0 || l.AllowNonZeroExit:
		v = "OK"
	default:
		v = "RTE"
	}
	if (l.Lang == "kj" || l.Lang == "kp") && status == 1 {
		v = "TLE"
	}
	if l.MemoryLimit > 0 && (m.MemBytes > l.MemoryLimit ||
		l.Lang == "java" && status != 0 && l.JavaOutOfMemory) {
		v = "MLE"
	}
	return v
}

func signalVerdict(sig string) string {
	switch sig {
	case "SIGSYS":
		return "RFE"
	case "SIGALRM", "SIGXCPU":
		return "TLE"
	case "SIGXFSZ":
		return "OLE"
	}
	return "RTE" // the listed crash signals and any odd one alike
}

// ExitCode is omegajail's own exit status after a run that produced m
// (src/omegajail.rs): 0 when the program exited with status 0, else 1,
// which is also its status for a failure of the jail. A rejected command
// line exits with UsageExitCode instead.
func ExitCode(m Meta) int {
	if m.Signal == "" && m.Syscall == "" && m.ExitStatus != nil && *m.ExitStatus == 0 {
		return 0
	}
	return 1
}
