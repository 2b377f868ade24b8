package omegajail

import (
	"errors"
	"fmt"
	"slices"
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
