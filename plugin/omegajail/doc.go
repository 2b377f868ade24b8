// Package omegajail holds the pure parts of podjail's omegajail-compatible
// front: the command line as omegajail accepts it (ParseArgs), the mapping
// of omegaUp language names to podjail's (LanguageID), the compile and
// run commands for the Runner's sources, targets and extra flags
// (CompileLanguage, RunCommand), the .meta file
// omegaUp's Runner reads (WriteMeta, ParseMeta), and the Runner's rules
// that turn a .meta into a verdict (RunnerVerdict), so tests can replay
// the Runner against what podjail writes.
//
// Nothing here starts a container: the wiring that runs a Request in
// Podman and writes its Meta lives elsewhere. See docs/omegajail.md.
//
// Sources, read at these commits:
//   - github.com/omegaup/omegajail ed10c03d5446e7f4a93ed149d80456cf648587c5:
//     src/args.rs (the flags, clap 3.1.2 derive), src/jail/options.rs
//     (defaults, derived limits, each language's compile and run argv),
//     src/java_compile.rs, src/jail/mod.rs (the .meta writer),
//     src/omegajail.rs (the exit code).
//   - github.com/omegaup/quark de2cea4456201a264060761acda4694cc79b45ca:
//     runner/sandbox.go (OmegajailSandbox: the argv, parseMetaFile),
//     runner/runner.go (what reaches Compile and Run).
package omegajail
