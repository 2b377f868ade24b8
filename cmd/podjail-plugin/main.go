// Command podjail-plugin serves podjail to a judge as a hashicorp/go-plugin
// gRPC plugin (protocol: plugin/sandbox/proto/podjail/v1/sandbox.proto; Go
// client: plugin/sandbox). The judge starts it; run by hand it refuses.
//
// Usage (the judge's command line): podjail-plugin [--url URL]
// [--shim PATH|none] [--languages FILE] [--tmp DIR] [--service PATH|none].
// When a podjail service answers (--service, $PODJAIL_SERVICE, else the
// default socket if none of the other flags is given) it passes every call
// on to it instead of running its own runner. It connects to Podman
// at its first call, or at start when it can; stdout belongs to go-plugin's
// handshake, so it logs JSON to stderr, which the host's logger shows
// ($PODJAIL_LOG_LEVEL: trace, debug, info (default), warn, error).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/sandbox"
	"github.com/podjail/podjail/plugin/sandbox/engine"
	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

// closeGrace bounds the cleanup after the host closed the plugin: go-plugin
// kills it 2 s after asking it to stop.
const closeGrace = 1500 * time.Millisecond

// termGrace bounds the cleanup after SIGTERM, time for calls under way to
// remove their containers.
const termGrace = 30 * time.Second

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("podjail-plugin", flag.ContinueOnError)
	fs.SetOutput(os.Stderr) // never stdout: it carries the handshake
	url := fs.String("url", "", "Podman API `URL` (default: $CONTAINER_HOST, else the user's socket, else /run/podman/podman.sock)")
	shimFlag := fs.String("shim", "", "host `path` of podjail-shim, or \"none\" (default: $PODJAIL_SHIM, else podjail-shim beside this binary)")
	langFile := fs.String("languages", "", "YAML `file` adding to or overriding the built-in language table")
	tmpDir := fs.String("tmp", "", "`directory` for artefacts and inputs, readable by the Podman service (default: $TMPDIR or /tmp)")
	service := fs.String("service", "", "Unix socket `path` of a podjail service to pass every call on to, or \"none\" (default: $PODJAIL_SERVICE, else the default socket when a service answers there and no flag above is given, else this process)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	// Checked before anything touches Podman: run by hand, the binary
	// only says what it is (go-plugin's message) and exits 1.
	if os.Getenv(sandbox.Handshake.MagicCookieKey) != sandbox.Handshake.MagicCookieValue {
		goplugin.Serve(&goplugin.ServeConfig{HandshakeConfig: sandbox.Handshake})
		return 1
	}

	level := hclog.LevelFromString(os.Getenv("PODJAIL_LOG_LEVEL"))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	// JSON on stderr is what go-plugin's host parses and relays.
	log := hclog.New(&hclog.LoggerOptions{Name: "podjail-plugin", Output: os.Stderr, JSONFormat: true, Level: level})
	removeSocketDir, err := privateSocketDir()
	if err != nil {
		log.Error("cannot make a private directory for the plugin's socket (set PLUGIN_UNIX_SOCKET_DIR to a directory of yours)", "error", err)
		return 1
	}
	defer removeSocketDir()

	// Flags for this process's own runner mean this process, unless a
	// service is named.
	if *service == "" && os.Getenv("PODJAIL_SERVICE") == "" && (*url != "" || *shimFlag != "" || *langFile != "" || *tmpDir != "") {
		*service = "none"
	}
	if code, ok := forward(*service, log, removeSocketDir); ok {
		return code
	}

	shimPath, err := engine.FindShim(*shimFlag)
	if err != nil {
		log.Error("bad --shim", "error", err)
		return 2
	}
	table := lang.Default()
	if *langFile != "" {
		if table, err = lang.Load(*langFile); err != nil {
			log.Error("bad --languages", "error", err)
			return 2
		}
	}
	ceiling, err := plugin.MemoryCeilingFromEnv()
	if err != nil {
		log.Error("bad memory ceiling", "error", err)
		return 2
	}
	eng := engine.NewLazy(engine.Options{URL: *url, ShimPath: shimPath, Languages: table, TmpDir: *tmpDir, Log: log, MemoryCeiling: ceiling})
	srv, err := sandbox.NewServer(eng, sandbox.ServerOptions{TmpDir: *tmpDir, Log: log})
	if err != nil {
		log.Error("cannot make the artefact directory", "error", err)
		return 1
	}

	// Connect now, so that a Podman problem shows in the host's log at
	// once; calls retry while it lasts.
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := eng.Connect(ctx); err != nil {
			log.Error("podjail cannot serve yet; every call tries again", "error", err)
			return
		}
		log.Info("connected to Podman", "shim", shimPath != "")
	}()

	// go-plugin ignores SIGINT (the host's terminal sends it to the whole
	// group; the host stops the plugin). SIGTERM ends the calls under way,
	// lets them remove their containers, and exits.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		log.Info("SIGTERM: ending the calls under way")
		ctx, cancel := context.WithTimeout(context.Background(), termGrace)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			log.Warn("cleanup incomplete", "error", err)
		}
		removeSocketDir()
		os.Exit(143)
	}()

	serve(srv, log)

	// The host closed the plugin.
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		log.Warn("cleanup incomplete", "error", err)
	}
	return 0
}

func serve(impl pb.SandboxServer, log hclog.Logger) {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: sandbox.Handshake,
		Plugins:         goplugin.PluginSet{sandbox.PluginName: &sandbox.GRPCPlugin{Impl: impl}},
		GRPCServer:      sandbox.NewGRPCServer,
		Logger:          log,
	})
}

// forward serves the judge by passing every call on to a podjail service
// when one answers (see sandbox.DialService); ok false: none does, and the
// plugin runs its own. A service named but not answering is an error.
// atExit runs before SIGTERM's exit.
func forward(service string, log hclog.Logger, atExit func()) (code int, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, closeSvc, err := sandbox.DialService(ctx, service, log)
	if err != nil {
		log.Error("the podjail service does not answer", "error", err)
		return 1, true
	}
	if svc == nil {
		return 0, false
	}
	defer closeSvc()
	fwd := sandbox.NewForward(svc)
	log.Info("passing every call on to the podjail service", "service", cmp.Or(service, os.Getenv("PODJAIL_SERVICE"), sandbox.DefaultSocket()))
	release := func(grace time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		if err := fwd.Close(ctx); err != nil {
			log.Warn("handles not released in the service", "error", err)
		}
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		release(closeGrace)
		atExit()
		os.Exit(143)
	}()
	serve(fwd, log)
	release(closeGrace)
	return 0, true
}
