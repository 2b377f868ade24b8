// Package plugin is podjail's runner: it turns a request into containers
// (through the bindings.Runtime interface), watches them and reports what
// happened. Later it holds jobs, the build step, verdicts and the go-plugin
// service; today it runs one program in one fresh container (Runner.Run),
// sweeps what dead instances left behind, and checks the host (Doctor).
package plugin
