// Package sandbox is podjail as a hashicorp/go-plugin gRPC plugin: the
// protocol shared by the podjail-plugin binary and the judges that load
// it.
//
// A judge written in Go imports this package (it does not pull in
// Podman's bindings: no build tags needed) and opens the binary:
//
//	sb, kill, err := sandbox.Open(ctx, "/usr/libexec/podjail/podjail-plugin", logger)
//	if err != nil { ... }
//	defer kill()
//	res, err := sb.Judge(ctx, sandbox.JudgeRequest{ProblemDir: dir, Language: "c11", Source: src},
//		func(t sandbox.TestResult) { fmt.Println(t.Name, t.Verdict) })
//
// The parts, in go-plugin's idiom:
//
//   - Handshake and PluginMap, shared by both sides;
//   - Sandbox, the Go interface a judge uses, implemented over gRPC by
//     Client (what Open and GRPCPlugin.GRPCClient return);
//   - Server, the gRPC service over an Engine, which keeps the artefact
//     handles; the real Engine, over podjail's Runner, is in the engine
//     subpackage, used by cmd/podjail-plugin;
//   - the protocol, proto/podjail/v1/sandbox.proto (package podjail.v1),
//     and its generated code (see generate.go to regenerate it).
//
// Errors: a submission's fate is a value (a failed build, a verdict, how a
// run ended). A failure of the infrastructure crosses the wire as a gRPC
// status code and comes back as an *Error matching one of
// ErrUnavailable, ErrFailedPrecondition, ErrInvalidArgument,
// ErrPermissionDenied, ErrResourceExhausted and ErrInternal (errors.Is), or context.Canceled and
// context.DeadlineExceeded. See docs/plugin.md.
package sandbox
