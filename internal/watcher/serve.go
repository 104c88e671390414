package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/tidemark/tidemark/internal/serving"
)

// Serve serves /metrics (the watcher's collector with the process' metrics) and the
// watcher's pages on flags' addresses, and runs the watcher, until ctx ends. where names
// the Prometheus watched, for the logs; listening is called with the server's base URL
// once it listens (not with systemd's sockets).
// The watcher stops, and its cycle ends, before the server drains.
func (w *Watcher) Serve(ctx context.Context, flags *web.FlagConfig, where string, logger *slog.Logger, listening func(baseURL string)) error {
	reg, err := serving.NewRegistry(w.Collector())
	if err != nil {
		return fmt.Errorf("register metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, ErrorHandling: promhttp.ContinueOnError}))
	mux.Handle("/", w.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: serving.ReadHeaderTimeout}
	var listeners []net.Listener
	if flags.WebSystemdSocket == nil || !*flags.WebSystemdSocket {
		if listeners, err = serving.Listen(*flags.WebListenAddresses); err != nil {
			return err
		}
		listening(serving.Where(listeners[0].Addr(), *flags.WebConfigFile))
	}
	logger.Info("Starting exporter", "prometheus", where, "storage_path", w.cfg.StorageDir,
		"interval", w.cfg.Interval, "lookback", w.cfg.Lookback, "runs_in_history", w.History().Len())
	wctx, stop := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	return serving.Run(ctx, srv, listeners, flags, logger, serving.Actor{
		Run:       func() error { defer close(watchDone); return w.Run(wctx) },
		Interrupt: func(error) { stop(); <-watchDone },
	})
}
