// Package isolate holds the pure parts of podjail's isolate-compatible
// front: isolate's command line exactly as its getopt_long accepts it
// (ParseArgs), the box directory it prints and works in (BoxDir, InitBox,
// CleanupBox), its meta file (WriteMeta) and its exit status (ExitCode).
//
// Nothing here starts a container: the wiring that runs a Command in
// Podman and writes its Meta lives elsewhere. See docs/isolate.md.
//
// Sources, read at these commits:
//   - github.com/ioi/isolate 6f21dafe1bd2fab64f59925754560baea49842cf
//     (2.6): isolate.c (options, modes, box_keeper's meta lines, exit
//     statuses), rules.c (--dir and --env rules), cg.c (cg-mem,
//     cg-oom-killed), util.c (meta file), isolate.1.txt; and tag v1.10.1
//     for the options 2.0 removed (--cg-timing, --no-cg-timing), which
//     Judge0 still passes.
//   - github.com/cms-dev/cms c3659b810cfd1fab37904f6c6148d460f2854eff:
//     cms/grading/Sandbox.py (IsolateSandbox's argv and meta reading).
//   - github.com/judge0/judge0 47dfd633b85c69ea382c0a4d16cd4ec175154c78:
//     app/jobs/isolate_job.rb (its argv and meta reading).
package isolate
