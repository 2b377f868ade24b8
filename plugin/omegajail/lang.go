package omegajail

import (
	"errors"
	"fmt"
	"slices"

	"github.com/podjail/podjail/shim"
)

// ErrUnsupportedLanguage is wrapped by LanguageID's error for an omegaUp
// language podjail has no equivalent for (and for a name omegajail does
// not know). The wiring must fail the invocation rather than write a
// .meta, which the Runner would take for a verdict: with no compile .meta
// the Runner reports a judge error, as it does for a name omegajail's own
// parser refuses.
var ErrUnsupportedLanguage = errors.New("unsupported language")

// languages are omegajail's --compile/--run values: the Language enum of
// src/args.rs in clap's kebab case, in its order.
var languages = []string{
	"c", "c11-gcc", "c11-clang",
	"cpp", "cpp03-gcc", "cpp03-clang", "cpp11", "cpp11-gcc", "cpp11-clang",
	"cpp17-gcc", "cpp17-clang", "cpp20-gcc", "cpp20-clang",
	"pas", "lua", "hs", "java", "kt", "py", "py2", "py3", "rb", "cs", "rs",
	"go", "js", "kj", "kp", "rk",
}

// MiB is a mebibyte, the unit of omegajail's memory constants.
const MiB = 1 << 20

// Memory figures of omegajail's src/jail/options.rs (ed10c03).
const (
	// defaultHeadroom is DEFAULT_EXTRA_MEMORY_SIZE_IN_BYTES: C, C++,
	// Pascal, Lua, Haskell, Python and Rust.
	defaultHeadroom = 16 * MiB
	// javaMinHeap is JAVA_MIN_HEAP_SIZE_IN_BYTES: Java's and Kotlin's
	// -Xmx is -m plus this.
	javaMinHeap = 18 * MiB
	// jvmOutsideHeap is podjail's own: omegajail caps a JVM by its heap
	// alone, podjail's cgroup must have a bound, and this leaves the JVM
	// room for its code, metaspace and stacks above the heap.
	jvmOutsideHeap = 128 * MiB
)

// frontLang is how the front serves one omegaUp language.
type frontLang struct {
	// id is podjail's language (plugin/lang), whose image, run line and
	// build limits the front uses; "" when podjail cannot serve it.
	id string
	// refused says why podjail cannot serve it (id "").
	refused string
	// tasks is the rule for new tasks of a run (RunTasks).
	tasks string
	// headroom is what the run's memory limit gets above -m: omegajail's
	// RLIMIT_AS (or, for C#, cgroup) slack for the language.
	headroom int64
	// baseline is taken off the memory a run reports: omegajail's
	// *_VM_MEMORY_SIZE_IN_BYTES, the runtime's own.
	baseline int64
	// javaHeap: the JVM's heap is -Xmx(-m + javaMinHeap), as omegajail's;
	// the run's limit is that plus jvmOutsideHeap (headroom unused).
	javaHeap bool
	// messagesOnStdout: the Runner reads a failed compile's message from
	// -1 (compile.out), not -2 (quark runner/runner.go: Pascal and C#).
	messagesOnStdout bool
	// compile is omegajail's compile line in the table's form (source
	// and artefact as podjail's entry names them), used instead of the
	// table's where the flags differ in what a contestant sees. Nil: the
	// table's.
	compile []string
}

// Task rules, per omegajail's policy for the language (see runTasks).
var (
	threads = shim.TasksThreads
	none    = shim.TasksNone
)

func native(id string) frontLang {
	return frontLang{id: id, tasks: threads, headroom: defaultHeadroom}
}

// front maps every omegajail language name to how the front serves it.
var front = map[string]frontLang{
	"c": native("c11"), "c11-gcc": native("c11"), "c11-clang": native("c11-clang"),
	"cpp03-gcc": native("cpp03"), "cpp03-clang": native("cpp03-clang"),
	"cpp": native("cpp11"), "cpp11": native("cpp11"), "cpp11-gcc": native("cpp11"), "cpp11-clang": native("cpp11-clang"),
	"cpp17-gcc": native("cpp17"), "cpp17-clang": native("cpp17-clang"),
	"cpp20-gcc": native("cpp20"), "cpp20-clang": native("cpp20-clang"),
	"rs": native("rust"),
	// go.policy allows threads; GO_EXTRA_MEMORY_SIZE_IN_BYTES.
	"go": {id: "go", tasks: threads, headroom: 512 * MiB},
	// pas.policy lists no clone. omegajail's fpc flags: Object Pascal
	// mode (Integer is 32-bit), C-like operators, ansistrings; -XS -Xs
	// (static, stripped) are podjail's, as in the table.
	"pas": {id: "pascal", tasks: none, headroom: defaultHeadroom, messagesOnStdout: true,
		compile: []string{"/usr/bin/fpc", "-Tlinux", "-O2", "-Mobjfpc", "-Sc", "-Sh", "-XS", "-Xs", "-omain", "main.pas"}},
	// lua.policy lists no clone.
	"lua": {id: "lua", tasks: none, headroom: defaultHeadroom},
	// hs.policy lists no clone, but trixie's GHC RTS starts a ticker
	// thread: threads, not processes.
	"hs": {id: "haskell", tasks: threads, headroom: defaultHeadroom},
	"py": {id: "python3", tasks: none, headroom: defaultHeadroom}, "py3": {id: "python3", tasks: none, headroom: defaultHeadroom},
	// java.policy; no RLIMIT_AS, the heap at -m + 18 MiB, 47 MiB of JVM.
	"java": {id: "java", tasks: threads, javaHeap: true, baseline: 47 * MiB},
	"kt":   {id: "kotlin", tasks: threads, javaHeap: true, baseline: 47 * MiB},
	// ruby.policy allows threads; 56 MiB above -m, 12 MiB of VM.
	"rb": {id: "ruby", tasks: threads, headroom: 56 * MiB, baseline: 12 * MiB},
	// js.policy; 89 MiB above -m, 31 MiB of VM.
	"js": {id: "javascript", tasks: threads, headroom: 89 * MiB, baseline: 31 * MiB},
	// cs.policy allows threads; a cgroup limit 20 MiB above -m, 20 MiB
	// of CLR. Mono stands in for dotnet (docs/omegajail.md).
	"cs":  {id: "csharp", tasks: threads, headroom: 20 * MiB, baseline: 20 * MiB, messagesOnStdout: true},
	"py2": {refused: "Python 2.7 is not in Debian trixie, whose packages podjail's images are made of; submit as py3"},
	"kj":  {refused: "Karel (omegaUp's karel.js and karel.wasm) is not packaged by Debian, so podjail has no Karel image"},
	"kp":  {refused: "Karel (omegaUp's karel.js and karel.wasm) is not packaged by Debian, so podjail has no Karel image"},
	"rk":  {refused: "ReKarel (omegaUp's karel.js and karel.wasm) is not packaged by Debian, so podjail has no Karel image"},
}

// Languages returns omegajail's language names, the values --compile and
// --run accept.
func Languages() []string { return slices.Clone(languages) }

// LanguageID returns podjail's language ID for an omegaUp language name
// (front's id, e.g. "cpp17" for cpp17-gcc, "cpp17-clang" for
// cpp17-clang, "pascal" for pas). A language podjail cannot serve (py2,
// kj, kp, rk) and a name omegajail does not know are an error wrapping
// ErrUnsupportedLanguage that names it and says why.
func LanguageID(omegaName string) (string, error) {
	f, ok := front[omegaName]
	switch {
	case ok && f.id != "":
		return f.id, nil
	case ok:
		return "", fmt.Errorf("omegajail language %q is not served by podjail: %s: %w", omegaName, f.refused, ErrUnsupportedLanguage)
	}
	return "", fmt.Errorf("%q is not an omegajail language: %w", omegaName, ErrUnsupportedLanguage)
}

// RunTasks returns the rule for new tasks (shim.TasksThreads or
// shim.TasksNone) that a run of omegaName gets; a language LanguageID
// refuses has none (""). The rules follow the seccomp policy omegajail
// runs each language under (src/jail/options.rs picks it,
// policies/NAME.policy holds it; an unlisted system call kills the
// program, its .meta then "signal:SIGSYS" and "syscall:NAME"):
//
//   - cpp.policy (every C and C++; rs.policy includes it), go.policy and
//     ruby.policy: clone only with the thread flags (CLONE_THREAD among
//     them); fork, vfork and clone3 unlisted. TasksThreads.
//   - java.policy (Java, Kotlin), js.policy, cs.policy: clone only with
//     the thread flags, clone3 allowed; fork and vfork unlisted.
//     TasksThreads.
//   - py.policy, pas.policy, lua.policy: neither clone nor clone3, fork
//     nor vfork. TasksNone.
//   - hs.policy lists no clone either, but trixie's GHC runtime starts a
//     ticker thread in every program: TasksThreads (processes still die).
//
// What podjail does not copy: clone3, whose flags no filter can read, is
// ENOSYS under podjail whatever the policy, and libcs fall back to clone,
// judged by the rule (docs/omegajail.md says where that differs).
// Compiles have no rule: omegajail's compiler policies let compilers fork.
func RunTasks(omegaName string) string { return front[omegaName].tasks }

// CompileMessagesOnStdout says the Runner reads a failed compile's
// message from -1 (compile.out) for omegaName: Pascal and C#, whose
// compilers print their errors on stdout (quark runner/runner.go). For
// the rest it reads -2.
func CompileMessagesOnStdout(omegaName string) bool { return front[omegaName].messagesOnStdout }

// RunMemoryLimit is the memory limit in bytes of a run of omegaName under
// -m memoryLimit: -m plus omegajail's headroom for the language (16 MiB
// for most, 56 Ruby, 89 JavaScript, 512 Go, 20 C#), or for Java and
// Kotlin their heap (JavaHeapBytes) plus room for the JVM outside it.
// omegajail's limit is RLIMIT_AS (address space), C#'s a cgroup's, and
// the JVM's its heap alone; podjail's is the run's cgroup for all.
func RunMemoryLimit(omegaName string, memoryLimit int64) int64 {
	f := front[omegaName]
	if f.javaHeap {
		return JavaHeapBytes(memoryLimit) + jvmOutsideHeap
	}
	return memoryLimit + f.headroom
}

// JavaHeapBytes is the JVM's -Xmx under -m memoryLimit, omegajail's:
// the limit plus JAVA_MIN_HEAP_SIZE_IN_BYTES (18 MiB).
func JavaHeapBytes(memoryLimit int64) int64 { return memoryLimit + javaMinHeap }

// ReportedMemory is the "mem" a run of omegaName that peaked at peak
// bytes reports: the runtime's own baseline taken off, as omegajail does
// (47 MiB for Java and Kotlin, 31 JavaScript, 20 C#, 12 Ruby, none for
// the rest), and never below 0.
func ReportedMemory(omegaName string, peak int64) int64 {
	return max(peak-front[omegaName].baseline, 0)
}
