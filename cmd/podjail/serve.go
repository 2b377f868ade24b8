package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"strconv"
	"time"

	"github.com/coreos/go-systemd/v22/activation"
	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/podjail/podjail/internal/metrics"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
	"github.com/podjail/podjail/plugin/sandbox/engine"
)

// serveFlags are podjail serve's flags.
type serveFlags struct {
	url, listen, group, shim, langFile, tmpDir, metricsAddr *string
	drain                                                   *time.Duration
	shapes                                                  *int
	limits                                                  *serveLimits
}

func newServeCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "serve judges on a Unix socket; judge goes through it (docs/service.md)",
		Long:  "Serves podjail's protocol (plugin/sandbox) on a Unix socket: the socket systemd hands over\n(socket activation), else --listen's.",
		Args:  noArgs,
	}
	fs := cmd.Flags()
	var f serveFlags
	f.url = urlFlag(fs)
	// The default is said, not shown: it is the caller's, and the man
	// pages are written once for every user.
	f.listen = fs.String("listen", "", "Unix socket `path` to listen on when systemd hands over none (default: /run/podjail/podjail.sock for root, else $XDG_RUNTIME_DIR/podjail/podjail.sock)")
	f.group = fs.String("group", "", "`group` (a name, or a number: in a container without the host's /etc/group) whose members may call too (socket mode 0660); default: only root and this user")
	f.shim = fs.String("shim", "", shimUsage)
	f.langFile = fs.String("languages", "", languagesUsage)
	f.drain = fs.Duration("drain", 30*time.Second, "how long a stopping service (SIGTERM, SIGINT) waits for the calls under way before it ends them (IE, never a verdict) and removes their containers")
	f.tmpDir = fs.String("tmp", "", "`directory` for artefacts and inputs, readable by the Podman service (default: $TMPDIR or /tmp)")
	f.shapes = fs.Int("warm-shapes", runner.DefaultWarmShapes, "how many shapes of run (a language's build, a front's run) are kept armed ahead at once, one container each; the least recently used gives way")
	f.metricsAddr = fs.String("metrics", "", "serve Prometheus metrics at /metrics on `ADDR`: a TCP address on localhost (127.0.0.1:9464), or a Unix socket path (one with a '/': mode 0600, 0660 with --group); default: none")
	f.limits = limitFlags(fs)
	cmd.RunE = c.onHost(func(ctx context.Context, _ []string, log hclog.Logger) int {
		return serve(ctx, f, c.stdout, c.stderr, log)
	})
	return cmd
}

// serve is podjail serve once its flags are read.
func serve(ctx context.Context, f serveFlags, stdout, stderr io.Writer, log hclog.Logger) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "podjail serve: %v\n", err)
		return code
	}
	if *f.shapes < 1 {
		return fail(exitUsage, fmt.Errorf("--warm-shapes %d: want at least 1", *f.shapes))
	}
	if err := f.limits.check(); err != nil {
		return fail(exitUsage, err)
	}
	if *f.metricsAddr != "" {
		if err := checkMetricsAddr(*f.metricsAddr); err != nil {
			return fail(exitUsage, err)
		}
	}
	gid, err := groupID(*f.group)
	if err != nil {
		return fail(exitUsage, err)
	}
	shimPath, err := findShim(*f.shim)
	if err != nil {
		return fail(exitUsage, err)
	}
	if shimPath == "" {
		return fail(exitUsage, errors.New("the service judges, which needs podjail-shim: put it beside podjail or pass --shim"))
	}
	table := lang.Default()
	if *f.langFile != "" {
		if table, err = lang.Load(*f.langFile); err != nil {
			return fail(exitUsage, err)
		}
	}
	ceiling, err := plugin.MemoryCeilingFromEnv()
	if err != nil {
		return fail(exitUsage, err)
	}
	lis, where, err := serviceListener(cmp.Or(*f.listen, sandbox.DefaultSocket()), gid)
	if err != nil {
		return fail(exitFailure, err)
	}
	var metricsLis net.Listener
	if *f.metricsAddr != "" {
		if metricsLis, err = listenMetrics(*f.metricsAddr, gid); err != nil {
			_ = lis.Close()
			return fail(exitFailure, err)
		}
	}
	work, err := workDir(ctx, *f.tmpDir, log)
	if err != nil {
		_ = lis.Close()
		if metricsLis != nil {
			_ = metricsLis.Close()
		}
		return fail(exitFailure, err)
	}
	defer func() {
		if err := os.RemoveAll(work); err != nil {
			log.Warn("could not remove the service's directory", "dir", work, "error", err)
		}
	}()
	// The metrics read the engine at each scrape; it is made before the
	// first.
	var eng *engine.Lazy
	var obs plugin.Observer
	var reg *prometheus.Registry
	if metricsLis != nil {
		reg = metrics.NewRegistry()
		m, err := metrics.New(reg, metrics.Sources{
			Version:       engine.BuildVersion(),
			ArmedReady:    func() int { return eng.ArmedReady() },
			BusReconnects: func() uint64 { return eng.BusReconnects() },
		})
		if err != nil {
			_ = lis.Close()
			_ = metricsLis.Close()
			return fail(exitFailure, err)
		}
		obs = m
	}
	eng = engine.NewLazy(engine.Options{URL: *f.url, ShimPath: shimPath, Languages: table, TmpDir: work, Log: log, MemoryCeiling: ceiling, Warm: true, WarmShapes: *f.shapes, Observer: obs,
		Bounds: f.limits.bounds})
	srv, err := sandbox.NewServer(eng, sandbox.ServerOptions{TmpDir: work, Log: log, MaxUpload: f.limits.maxUpload, MaxProblemBytes: f.limits.maxProblem,
		Bounds: f.limits.bounds, Images: append(engine.Images(table), f.limits.images...)})
	if err != nil {
		_ = lis.Close()
		if metricsLis != nil {
			_ = metricsLis.Close()
		}
		return fail(exitFailure, err)
	}
	// Set up now (connect, sweep, seccomp profile), not at the first call;
	// calls try again while Podman is down.
	if _, err := eng.Connect(ctx); err != nil {
		log.Error("podjail cannot serve yet; every call tries again", "error", err)
	}
	g := sandbox.NewServiceServer(srv)
	served := make(chan error, 1)
	go func() { served <- g.Serve(sandbox.AllowPeers(lis, gid, log)) }()
	log.Info("serving", "socket", where, "shim", shimPath, "extra_images", f.limits.images)
	stopMetrics := func(context.Context) {}
	if metricsLis != nil {
		stopMetrics = serveMetrics(metricsLis, reg, log)
		log.Info("metrics served", "address", metricsLis.Addr().String(), "path", metricsPath)
	}
	go notifySystemd(ctx, eng, lis.Addr().String(), log)

	code := exitOK
	select {
	case err := <-served:
		log.Error("the listener failed", "error", err)
		code = exitFailure
	case <-ctx.Done():
		log.Info("stopping: no new calls; waiting for the calls under way", "grace", *f.drain)
	}
	_, _ = daemon.SdNotify(false, daemon.SdNotifyStopping)
	// Drain: no new connections; calls under way get --drain, then are
	// ended, and Close removes their containers and artefacts (30 s at most).
	stopped := make(chan struct{})
	go func() { g.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(*f.drain):
		log.Warn("calls still under way after the grace: ending them")
	}
	cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := srv.Close(cleanup); err != nil {
		log.Warn("cleanup incomplete", "error", err)
		code = exitFailure
	}
	g.Stop()
	eng.Close(cleanup)
	// Last: a scrape during the drain sees it, and the sweep at close.
	mctx, mcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer mcancel()
	stopMetrics(mctx)
	log.Info("stopped")
	return code
}

// notifySystemd tells systemd (Type=notify) that the service is ready once
// it can judge, its Podman having answered, and then, when the unit has
// WatchdogSec=, pings the watchdog only while a call through the service's
// own socket (its gRPC loop, the engine, Podman) answers, so that systemd
// restarts a service that is wedged. Outside such a unit it does nothing.
func notifySystemd(ctx context.Context, eng *engine.Lazy, socket string, log hclog.Logger) {
	if os.Getenv("NOTIFY_SOCKET") == "" {
		return
	}
	for {
		if _, err := eng.Connect(ctx); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(notifyRetry):
		}
	}
	if _, err := daemon.SdNotify(false, daemon.SdNotifyReady); err != nil {
		log.Warn("could not tell systemd the service is ready", "error", err)
	}
	interval, err := daemon.SdWatchdogEnabled(false)
	if err != nil || interval <= 0 {
		return
	}
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Error("the watchdog cannot reach the service's own socket: systemd will restart it", "socket", socket, "error", err)
		return
	}
	defer conn.Close()
	loop := healthpb.NewHealthClient(conn)
	tick := time.NewTicker(interval / 3)
	defer tick.Stop()
	answered := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, interval/2)
		err := watchdogCheck(cctx, loop, eng)
		cancel()
		if err != nil {
			if answered {
				log.Warn("not pinging systemd's watchdog while the service or its Podman does not answer", "error", err)
			}
			answered = false
			continue
		}
		if !answered {
			log.Info("the service and its Podman answer again; pinging systemd's watchdog")
		}
		answered = true
		_, _ = daemon.SdNotify(false, daemon.SdNotifyWatchdog)
	}
}

// watchdogCheck is what the watchdog is pinged for: the service's gRPC
// loop answers on its socket (gRPC's health service), and its Podman
// answers its cheapest question. Neither asks for the host's inspection
// (Capabilities), which takes seconds on a loaded host.
func watchdogCheck(ctx context.Context, loop healthpb.HealthClient, eng *engine.Lazy) error {
	if _, err := loop.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		return fmt.Errorf("the service's own socket: %w", err)
	}
	e, err := eng.Connect(ctx)
	if err != nil {
		return err
	}
	p, ok := e.Runner().Runtime.(interface{ Ping(context.Context) error })
	if !ok {
		return nil
	}
	if err := p.Ping(ctx); err != nil {
		return fmt.Errorf("Podman: %w", err)
	}
	return nil
}

// notifyRetry is how often a service whose Podman did not answer at its
// start tries again before it tells systemd it is ready.
const notifyRetry = 3 * time.Second

// groupID is --group's gid: a group name, or a number taken as it is (in
// podjail's image there is no /etc/group of the host's); -1 for none.
func groupID(group string) (int, error) {
	if group == "" {
		return -1, nil
	}
	if n, err := strconv.Atoi(group); err == nil && n >= 0 {
		return n, nil
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return -1, fmt.Errorf("--group %s: %w (give its number where there is no such name)", group, err)
	}
	return strconv.Atoi(g.Gid)
}

// workDir makes the service's own directory under parent (--tmp) for its
// inputs, artefacts and armed runs' files, after removing those of
// services that were killed.
func workDir(ctx context.Context, parent string, log hclog.Logger) (string, error) {
	self, err := runner.Self()
	if err != nil {
		return "", err
	}
	removed, err := runner.SweepWorkDirs(ctx, parent, self)
	if len(removed) > 0 {
		log.Info("removed the directories of podjail services that are gone", "dirs", removed)
	}
	if err != nil {
		log.Warn("could not remove every directory of podjail services that are gone", "error", err)
	}
	return runner.WorkDir(parent, self)
}

// serviceListener is the socket systemd handed over (LISTEN_FDS), else a
// new one at path.
func serviceListener(path string, gid int) (net.Listener, string, error) {
	ls, err := activation.Listeners()
	if err != nil {
		return nil, "", fmt.Errorf("the sockets systemd handed over: %w", err)
	}
	for _, l := range ls {
		if l != nil {
			return l, l.Addr().String() + " (from systemd)", nil
		}
	}
	if path == "" {
		return nil, "", errors.New("no socket: pass --listen PATH (XDG_RUNTIME_DIR is unset, so there is no default)")
	}
	l, err := sandbox.Listen(path, gid)
	return l, path, err
}

// serviceMaxUpload is --max-upload's default, lower than the library's
// (sandbox.DefaultMaxUpload, 1 GiB, for a judge's own plugin): an upload
// waits in the service's --tmp (often memory) for its run, --max-calls of
// them at once, and a test's input of more than a few hundred MiB is rare;
// a caller of the service's own user names the file instead, another
// streams it.
const serviceMaxUpload = 256 << 20

// serveLimits are serve's flags for what one request and one caller may
// take of the service (docs/service.md, "Limits").
type serveLimits struct {
	bounds     sandbox.Bounds
	maxUpload  int64
	maxProblem int64
	images     []string // --image, repeated: allowed besides the table's
}

// limitFlags adds serve's limit flags to fs, each with its default.
func limitFlags(fs *pflag.FlagSet) *serveLimits {
	l := &serveLimits{maxUpload: serviceMaxUpload, maxProblem: sandbox.DefaultMaxProblemBytes, bounds: sandbox.Bounds{}.WithDefaults()}
	b := &l.bounds
	// 0: the default, from the cores and from --max-calls.
	b.MaxCalls, b.MaxCallsPerCaller = 0, 0
	sizeFlag(fs, &b.MaxMemory, "max-memory", "the largest memory limit a run (Run, Exec) or a judged problem may ask for")
	fs.Int64Var(&b.MaxPids, "max-pids", b.MaxPids, "the most tasks an Exec may ask for")
	fs.Float64Var(&b.MaxCPUs, "max-cpus", b.MaxCPUs, "the largest CPU quota, in cores, an Exec may ask for")
	fs.DurationVar(&b.MaxTime, "max-time", b.MaxTime, "the largest time limit (or processor time limit) a run or a judged problem may ask for")
	fs.DurationVar(&b.MaxWall, "max-wall", b.MaxWall, "the largest wall limit a run may ask for")
	fs.DurationVar(&b.DefaultWall, "default-wall", b.DefaultWall, "the wall limit of a run that asks for neither a wall nor a time limit")
	sizeFlag(fs, &b.MaxFileSize, "max-file-size", "the largest file size limit an Exec may ask for")
	sizeFlag(fs, &b.MaxCollect, "max-collect", "the most bytes of files one Exec gives back, all together")
	sizeFlag(fs, &l.maxUpload, "max-upload", "the largest input sent whole (an Exec's stdin from a file), or read for a caller of another user")
	sizeFlag(fs, &l.maxProblem, "max-problem-bytes", "the most bytes of a problem's files copied for a caller of another user")
	fs.IntVar(&b.MaxHandles, "max-handles", b.MaxHandles, "how many handles (Compile's artefacts) one caller (a uid) may keep until it releases some")
	fs.IntVar(&b.MaxCalls, "max-calls", b.MaxCalls, fmt.Sprintf("how many Compile, Run, Exec and Judge calls may be under way at once, all callers together (default: 4 a core, at least 16: %d here)", sandbox.DefaultMaxCalls()))
	fs.IntVar(&b.MaxCallsPerCaller, "max-calls-per-caller", b.MaxCallsPerCaller, "how many of them one caller (a uid) may have under way at once; past it a call is refused as busy (default: half of --max-calls)")
	fs.Func("image", "an `image` Exec may run besides the language table's (the isolate front's $PODJAIL_ISOLATE_IMAGE, podjail run's --image); repeat it for more", func(s string) error {
		if s == "" {
			return errors.New("an empty image name")
		}
		l.images = append(l.images, s)
		return nil
	})
	return l
}

// sizeFlag is a flag of a size in bytes (K, M, G suffixes) stored in p,
// whose value is its default.
func sizeFlag(fs *pflag.FlagSet, p *int64, name, usage string) {
	fs.Func(name, fmt.Sprintf("%s, in `bytes` (K, M, G suffixes; default %s)", usage, sizeText(*p)), func(s string) error {
		n, err := parseBytes(s)
		if err == nil && n <= 0 {
			err = fmt.Errorf("%s: want more than 0", s)
		}
		*p = n
		return err
	})
}

// sizeText writes n bytes as sizeFlag reads them back ("8G", "64M").
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "G"}, {20, "M"}, {10, "K"}} {
		if n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprint(n)
}

func (l *serveLimits) check() error {
	if l.maxUpload <= 0 {
		return errors.New("--max-upload: want more than 0")
	}
	return l.bounds.Check()
}
