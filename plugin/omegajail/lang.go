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
// .meta, which the Runner would take for a verdict.
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

// podjailIDs maps omegaUp names to podjail language IDs. omegajail
// compiles each of these with the same language standard as podjail's
// entry ("c" is gcc -std=c11; "cpp" is -std=c++11, as omegajail's
// options.rs builds it, and what omegaUp compiles its validators and
// libinteractive parents as; "py" is Python 3). The clang variants get gcc:
// same standard, another compiler. Java, Go, Rust and JavaScript get
// podjail's own commands (docs/languages.md); a Java build leaves Main.class
// in the home directory, which the Runner looks for after the compile.
var podjailIDs = map[string]string{
	"c": "c11", "c11-gcc": "c11", "c11-clang": "c11",
	"cpp03-gcc": "cpp03", "cpp03-clang": "cpp03",
	"cpp": "cpp11", "cpp11": "cpp11", "cpp11-gcc": "cpp11", "cpp11-clang": "cpp11",
	"cpp17-gcc": "cpp17", "cpp17-clang": "cpp17",
	"cpp20-gcc": "cpp20", "cpp20-clang": "cpp20",
	"py": "python3", "py3": "python3",
	"java": "java", "go": "go", "rs": "rust", "js": "javascript",
}

// Languages returns omegajail's language names, the values --compile and
// --run accept.
func Languages() []string { return slices.Clone(languages) }

// LanguageID returns podjail's language ID for an omegaUp language name:
// "c11", "cpp03", "cpp11", "cpp17", "cpp20", "python3", "java", "go", "rust"
// or "javascript". Any other name is an error
// wrapping ErrUnsupportedLanguage that names it.
func LanguageID(omegaName string) (string, error) {
	if id, ok := podjailIDs[omegaName]; ok {
		return id, nil
	}
	if slices.Contains(languages, omegaName) {
		return "", fmt.Errorf("omegajail language %q has no podjail equivalent: %w", omegaName, ErrUnsupportedLanguage)
	}
	return "", fmt.Errorf("%q is not an omegajail language: %w", omegaName, ErrUnsupportedLanguage)
}

// runTasks is, per omegaUp language, the rule for the new tasks a run may
// make (runner.RunRequest.Tasks), from the seccomp policy omegajail runs
// the language under (src/jail/options.rs picks it, policies/NAME.policy
// holds it; an unlisted system call kills the program, its .meta then
// "signal:SIGSYS" and "syscall:NAME"):
//
//   - cpp.policy (every C and C++; rs.policy includes it) and go.policy:
//     clone only with the thread flags (CLONE_THREAD among them); fork,
//     vfork and clone3 unlisted. TasksThreads.
//   - java.policy, js.policy: clone only with the thread flags, clone3
//     allowed; fork and vfork unlisted. TasksThreads.
//   - py.policy: neither clone nor clone3, fork nor vfork. TasksNone.
//
// What podjail does not copy: clone3, whose flags no filter can read, is
// ENOSYS under podjail whatever the policy, and libcs fall back to clone,
// judged by the rule (docs/omegajail.md says where that differs).
// Compiles have no rule: omegajail's compiler policies let compilers fork.
var runTasks = map[string]string{
	"c": shim.TasksThreads, "c11-gcc": shim.TasksThreads, "c11-clang": shim.TasksThreads,
	"cpp": shim.TasksThreads, "cpp03-gcc": shim.TasksThreads, "cpp03-clang": shim.TasksThreads,
	"cpp11": shim.TasksThreads, "cpp11-gcc": shim.TasksThreads, "cpp11-clang": shim.TasksThreads,
	"cpp17-gcc": shim.TasksThreads, "cpp17-clang": shim.TasksThreads,
	"cpp20-gcc": shim.TasksThreads, "cpp20-clang": shim.TasksThreads,
	"rs": shim.TasksThreads, "go": shim.TasksThreads,
	"java": shim.TasksThreads, "js": shim.TasksThreads,
	"py": shim.TasksNone, "py3": shim.TasksNone,
}

// RunTasks returns the rule for new tasks (shim.TasksThreads or
// shim.TasksNone) that a run of omegaName gets, as omegajail's policy for
// the language refuses processes: threads only for compiled languages,
// Java and JavaScript, neither threads nor processes for Python. A
// language LanguageID refuses has none ("").
func RunTasks(omegaName string) string { return runTasks[omegaName] }
