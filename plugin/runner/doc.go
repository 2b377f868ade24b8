// Package runner is podjail's run mechanism: how to run one program in one
// fresh container and what came of it, with no judging in it. A
// RunRequest (grouped like go-judge's envexec.Cmd: what to run, its
// stdio, Limits, Wait, Copy) goes to a Runner (Run, or Arm and Fire), or
// to a Warm that keeps runs armed ahead for a long-lived service; the
// RunResult holds the facts (Status, KillReason) and the figures
// (Measure), never a verdict. The judging layer (package plugin: limits
// per caller, verdicts, the pipeline, checkers, builds) sits on top and
// imports this package; this package imports nothing of it.
package runner
