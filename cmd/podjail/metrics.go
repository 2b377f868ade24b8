package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/podjail/podjail/internal/metrics"
	"github.com/podjail/podjail/plugin/sandbox"
)

// metricsPath is where the metrics are served.
const metricsPath = "/metrics"

// metricsOnSocket says whether --metrics names a Unix socket (a path: it
// holds a '/') rather than a TCP address.
func metricsOnSocket(addr string) bool { return strings.Contains(addr, "/") }

// checkMetricsAddr refuses a --metrics that is neither a Unix socket path
// nor a TCP address on localhost: nothing authenticates a scraper, and
// the metrics say what the host judges and when.
func checkMetricsAddr(addr string) error {
	if metricsOnSocket(addr) {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--metrics %q: want a TCP address on localhost (127.0.0.1:9464) or a Unix socket path (/run/podjail/metrics.sock): %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--metrics %s: podjail serves its metrics only on localhost or a Unix socket, with no authentication: "+
		"bind 127.0.0.1:%s (or [::1]:%s), or give a socket path such as /run/podjail/metrics.sock, "+
		"and put a proxy with TLS and authentication in front to scrape it from another host", addr, port, port)
}

// listenMetrics listens where --metrics says (checkMetricsAddr): a Unix
// socket made as the service's own is (mode 0600, 0660 for group gid), or
// a TCP address on localhost.
func listenMetrics(addr string, gid int) (net.Listener, error) {
	if err := checkMetricsAddr(addr); err != nil {
		return nil, err
	}
	if !metricsOnSocket(addr) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("--metrics: %w", err)
		}
		return l, nil
	}
	path, err := filepath.Abs(addr)
	if err != nil {
		return nil, err
	}
	l, err := sandbox.Listen(path, gid)
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	return l, nil
}

// serveMetrics serves what g gathers at /metrics on l, until the returned
// stop, which lets the scrapes under way finish (until ctx ends) and
// removes a Unix socket.
func serveMetrics(l net.Listener, g prometheus.Gatherer, log hclog.Logger) (stop func(context.Context)) {
	mux := http.NewServeMux()
	mux.Handle(metricsPath, metrics.Handler(g))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute, IdleTimeout: time.Minute}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the metrics server failed; the service goes on without it", "address", l.Addr().String(), "error", err)
		}
	}()
	return func(ctx context.Context) {
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("the metrics server did not stop cleanly", "error", err)
			_ = srv.Close()
		}
		<-done
	}
}
