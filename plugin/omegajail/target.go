package omegajail

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/podjail/podjail/plugin/lang"
)

// ErrUnsupportedRequest is wrapped by CompileLanguage's and RunCommand's
// errors for something omegajail would do that podjail cannot (a source
// in a subdirectory, ASan's flags, a language command the rules below do
// not fit). As for an unsupported language, the wiring fails the
// invocation and writes no .meta.
var ErrUnsupportedRequest = errors.New("not supported by podjail")

// targetKind says what omegajail's --compile-target and --run-target name
// in a language (src/jail/options.rs).
type targetKind int

const (
	// kindBinary: the target is the file the compiler writes ("-o
	// TARGET", fpc's "-oTARGET", mcs's "-out:TARGET.exe"), and the run
	// executes it, or for Lua and C# gives it to the runtime.
	kindBinary targetKind = iota + 1
	// kindScript: the sources themselves are what the run needs, the
	// compile only checks them, and the run interprets TARGET plus the
	// source's extension ("TARGET.py", "TARGET.js", "TARGET.rb").
	kindScript
	// kindClass: the target is the class whose main the run starts; the
	// compile must make TARGET.class, which the Runner looks for (Java),
	// or Kotlin's TARGETKt.class, the class of Main.kt's top level.
	kindClass
)

// targetKinds maps every podjail language LanguageID returns to its kind.
var targetKinds = map[string]targetKind{
	"c11": kindBinary, "cpp03": kindBinary, "cpp11": kindBinary, "cpp17": kindBinary, "cpp20": kindBinary,
	"c11-clang": kindBinary, "cpp03-clang": kindBinary, "cpp11-clang": kindBinary, "cpp17-clang": kindBinary, "cpp20-clang": kindBinary,
	"go": kindBinary, "rust": kindBinary, "pascal": kindBinary, "haskell": kindBinary, "lua": kindBinary, "csharp": kindBinary,
	"python3": kindScript, "javascript": kindScript, "ruby": kindScript,
	"java": kindClass, "kotlin": kindClass,
}

// gccLanguages are the -x values omegajail puts before a gcc or clang
// language's sources, so that every source is compiled as the language
// asked for whatever its extension (add_sources in src/jail/options.rs).
var gccLanguages = map[string]string{"c11": "c", "cpp03": "c++", "cpp11": "c++", "cpp17": "c++", "cpp20": "c++",
	"c11-clang": "c", "cpp03-clang": "c++", "cpp11-clang": "c++", "cpp17-clang": "c++", "cpp20-clang": "c++"}

// CompileLanguage returns l (a language of LanguageID's, from podjail's
// table) with its compile command, artefacts and artefact hint made to do
// what omegajail's --compile does with r's sources, target and extra
// arguments. The table's commands are read by these rules:
//
//   - The argument equal to l.Source is replaced by r.CompileSources, in
//     order (for C and C++ behind "-xc" or "-xc++", and assembler sources
//     behind gcc's assembler -x, as omegajail does), and r.ExtraArgs go
//     at the end of the command, where omegajail puts them.
//   - Binary languages: the one artefact, named by "-o ARTEFACT",
//     "-oARTEFACT" or "-out:ARTEFACT", becomes the target plus the
//     artefact's extension ("T", or "T.exe" for C#).
//   - Script languages: the artefacts are the sources (copied back into
//     the home directory unchanged).
//   - Java: the command is /bin/sh -c SCRIPT; in SCRIPT the word l.Source
//     is replaced by the quoted sources and extra arguments (given to
//     javac after the sources, as omegajail's java-compile does) and the
//     word CLASS.class (CLASS: l.Source without its extension) by
//     TARGET.class, which is also the artefact copied back. Kotlin the
//     same with CLASS the source's name and "Kt" (MainKt.class).
//
// Where omegajail's flags differ from the table's in what a contestant
// sees (Pascal's language mode), the front's own compile line for
// r.Language replaces the table's first.
//
// Sources and the target must be plain file names not starting with "-"
// (the Runner passes them so). An error wraps ErrUnsupportedRequest.
func CompileLanguage(l lang.Language, r Request) (lang.Language, error) {
	target := r.CompileTarget
	if err := checkNames(r.CompileSources, "--compile-target", target); err != nil {
		return lang.Language{}, err
	}
	if err := checkExtraCompileArgs(r.ExtraArgs); err != nil {
		return lang.Language{}, err
	}
	if c := front[r.Language].compile; c != nil {
		l.Compile = slices.Clone(c)
	}
	switch targetKinds[l.ID] {
	case kindBinary:
		return compileBinary(l, r.CompileSources, target, r.ExtraArgs)
	case kindScript:
		return compileScript(l, r.CompileSources, r.ExtraArgs)
	case kindClass:
		return compileClass(l, r.CompileSources, target, r.ExtraArgs)
	}
	return lang.Language{}, unsupported("language %q has no omegajail target rule", l.ID)
}

// RunCommand returns the argv that runs r.RunTarget for l (as in
// omegajail: "./TARGET", "lua5.3 TARGET", "TARGET.py", "TARGET.rb",
// "TARGET.js", "TARGET.exe" for C#, the class TARGET or TARGETKt), with
// r.ExtraArgs appended. The table's run command is read by these rules:
// binary languages name lang.ArtefactDir/ARTEFACT, which becomes
// ArtefactDir/TARGET plus the artefact's extension; script languages
// interpret ArtefactDir/SOURCE, which becomes ArtefactDir/TARGET plus the
// source's extension; Java's and Kotlin's argument CLASS (mainClass)
// becomes TARGET (TARGETKt), and with -m their JVM gets omegajail's
// -Xmx (JavaHeapBytes) after argv[0]. The artefact directory is the home
// directory. An error wraps ErrUnsupportedRequest.
func RunCommand(l lang.Language, r Request) ([]string, error) {
	target := r.RunTarget
	if err := checkNames(nil, "--run-target", target); err != nil {
		return nil, err
	}
	var from, to string
	switch targetKinds[l.ID] {
	case kindBinary:
		if len(l.Artefacts) != 1 {
			return nil, unsupported("language %q has %d artefacts, not one binary", l.ID, len(l.Artefacts))
		}
		from, to = path.Join(lang.ArtefactDir, l.Artefacts[0]), path.Join(lang.ArtefactDir, target+path.Ext(l.Artefacts[0]))
	case kindScript:
		from, to = path.Join(lang.ArtefactDir, l.Source), path.Join(lang.ArtefactDir, target+path.Ext(l.Source))
	case kindClass:
		from, to = mainClass(l, className(l)), mainClass(l, target)
	default:
		return nil, unsupported("language %q has no omegajail target rule", l.ID)
	}
	argv, err := replaceArg(l.Run, from, to)
	if err != nil {
		return nil, unsupported("language %q's run command: %v", l.ID, err)
	}
	if front[r.Language].javaHeap && r.MemoryLimit != nil {
		heap := fmt.Sprintf("-Xmx%d", JavaHeapBytes(int64(*r.MemoryLimit)))
		argv = slices.Insert(argv, 1, heap)
	}
	return append(argv, r.ExtraArgs...), nil
}

func compileBinary(l lang.Language, sources []string, target string, extra []string) (lang.Language, error) {
	if len(l.Artefacts) != 1 {
		return lang.Language{}, unsupported("language %q has %d artefacts, not one binary", l.ID, len(l.Artefacts))
	}
	artefact := l.Artefacts[0]
	out := target + path.Ext(artefact)
	argv, err := nameOutput(l.Compile, artefact, out)
	if err != nil {
		return lang.Language{}, unsupported("language %q's compile command: %v", l.ID, err)
	}
	argv, err = spliceSources(argv, l.Source, sourceArgs(gccLanguages[l.ID], sources))
	if err != nil {
		return lang.Language{}, unsupported("language %q's compile command: %v", l.ID, err)
	}
	l.Compile, l.Artefacts = append(argv, extra...), []string{out}
	return l, nil
}

// nameOutput returns a copy of argv whose output flag naming artefact
// names out instead, in the forms compilers take: gcc's, clang's, ghc's,
// rustc's, go's and luac's "-o FILE", fpc's "-oFILE", mcs's "-out:FILE".
func nameOutput(argv []string, artefact, out string) ([]string, error) {
	argv = slices.Clone(argv)
	for i, a := range argv {
		switch {
		case a == "-o" && i+1 < len(argv) && argv[i+1] == artefact:
			argv[i+1] = out
			return argv, nil
		case a == "-o"+artefact:
			argv[i] = "-o" + out
			return argv, nil
		case a == "-out:"+artefact:
			argv[i] = "-out:" + out
			return argv, nil
		}
	}
	return nil, fmt.Errorf("no \"-o %s\" (or %q, %q) to name the target", artefact, "-o"+artefact, "-out:"+artefact)
}

func compileScript(l lang.Language, sources, extra []string) (lang.Language, error) {
	if !slices.Equal(l.Artefacts, []string{l.Source}) {
		return lang.Language{}, unsupported("language %q's artefacts %q are not its source", l.ID, l.Artefacts)
	}
	argv, err := spliceSources(l.Compile, l.Source, sources)
	if err != nil {
		return lang.Language{}, unsupported("language %q's compile command: %v", l.ID, err)
	}
	l.Compile, l.Artefacts = append(argv, extra...), slices.Clone(sources)
	return l, nil
}

func compileClass(l lang.Language, sources []string, target string, extra []string) (lang.Language, error) {
	class := mainClass(l, className(l)) + ".class"
	if len(l.Compile) != 3 || l.Compile[0] != "/bin/sh" || l.Compile[1] != "-c" || !slices.Contains(l.Artefacts, class) {
		return lang.Language{}, unsupported("language %q's compile is not /bin/sh -c SCRIPT making %s", l.ID, class)
	}
	script, err := replaceWord(l.Compile[2], l.Source, shellQuote(append(slices.Clone(sources), extra...)))
	targetClass := mainClass(l, target) + ".class"
	if err == nil {
		script, err = replaceWord(script, class, shellQuote([]string{targetClass}))
	}
	if err != nil {
		return lang.Language{}, unsupported("language %q's compile script: %v", l.ID, err)
	}
	l.Compile = []string{l.Compile[0], l.Compile[1], script}
	l.Artefacts, _ = replaceArg(l.Artefacts, class, targetClass)
	if l.ArtefactHint != "" && path.Ext(l.Source) == ".java" {
		// The Runner's own words when TARGET.class is missing.
		l.ArtefactHint = fmt.Sprintf("Class `%s` not found. Make sure your class is named `%s` and outside all packages", target, target)
	}
	return l, nil
}

// className is the class a Java source declares: its name without the
// extension ("Main" for Main.java).
func className(l lang.Language) string { return strings.TrimSuffix(l.Source, path.Ext(l.Source)) }

// mainClass is the class whose main the JVM starts for a program named
// name: the name for Java, Kotlin's class of a file's top level for
// Kotlin (name + "Kt", as omegajail runs TARGETKt).
func mainClass(l lang.Language, name string) string {
	if path.Ext(l.Source) == ".kt" {
		return name + "Kt"
	}
	return name
}

// sourceArgs is omegajail's add_sources: gcc's -x before each run of
// sources of one kind (.S and .s as assembler). xlang "" (not a gcc
// language): the sources as they are.
func sourceArgs(xlang string, sources []string) []string {
	if xlang == "" {
		return slices.Clone(sources)
	}
	var args []string
	current := ""
	for _, s := range sources {
		want := xlang
		switch {
		case strings.HasSuffix(s, ".S"):
			want = "assembler-with-cpp"
		case strings.HasSuffix(s, ".s"):
			want = "assembler"
		}
		if want != current {
			args, current = append(args, "-x"+want), want
		}
		args = append(args, s)
	}
	return args
}

// spliceSources replaces the one argument equal to source by args.
func spliceSources(argv []string, source string, args []string) ([]string, error) {
	i := slices.Index(argv, source)
	if i < 0 {
		return nil, fmt.Errorf("no argument %q to put the sources in place of", source)
	}
	return slices.Concat(argv[:i], args, argv[i+1:]), nil
}

// replaceArg returns a copy of argv with its one argument equal to from
// replaced by to.
func replaceArg(argv []string, from, to string) ([]string, error) {
	i := slices.Index(argv, from)
	if i < 0 || slices.Index(argv[i+1:], from) >= 0 {
		return nil, fmt.Errorf("not exactly one argument %q", from)
	}
	out := slices.Clone(argv)
	out[i] = to
	return out, nil
}

// replaceWord replaces the one space-separated word equal to from in a
// shell script by to.
func replaceWord(script, from, to string) (string, error) {
	words := strings.Split(script, " ")
	i := slices.Index(words, from)
	if i < 0 || slices.Index(words[i+1:], from) >= 0 {
		return "", fmt.Errorf("not exactly one word %q", from)
	}
	words[i] = to
	return strings.Join(words, " "), nil
}

// shellQuote quotes each word for sh and joins them with spaces.
func shellQuote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// checkNames refuses sources and a target that are not plain file names
// in the home directory, a name starting with "-" (a compiler would read
// it as an option), and a source given twice.
func checkNames(sources []string, targetFlag, target string) error {
	for i, s := range sources {
		if err := plainName("--compile-source", s); err != nil {
			return err
		}
		if slices.Contains(sources[:i], s) {
			return unsupported("--compile-source %q given twice", s)
		}
	}
	return plainName(targetFlag, target)
}

func plainName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || strings.HasPrefix(name, "-") {
		return unsupported("%s %q: podjail takes plain file names in the home directory only", what, name)
	}
	return nil
}

// checkExtraCompileArgs refuses AddressSanitizer (the Runner's debug
// mode): podjail links C and C++ statically, which gcc cannot do with
// -fsanitize=address.
func checkExtraCompileArgs(extra []string) error {
	for _, a := range extra {
		if strings.HasPrefix(a, "-fsanitize") {
			return unsupported("compile flag %q: podjail links C and C++ statically, which gcc cannot do with a sanitizer", a)
		}
	}
	return nil
}

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrUnsupportedRequest)
}
