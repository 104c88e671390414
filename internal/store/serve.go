package store

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/tidemark/tidemark/internal/serving"
)

// Serve opens the store of cfg and serves it (the Prometheus API, remote write, and the
// process' and the store's metrics on /metrics) on flags' addresses until ctx ends,
// announcing its URL in the data directory; SIGHUP reloads the scrape configuration. It
// refuses a data directory another process serves (ErrLocked). The store is closed
// after the server has drained.
func Serve(ctx context.Context, cfg Config, flags *web.FlagConfig, logger *slog.Logger) error {
	if url, ok, err := Discover(ctx, cfg.Dir); err == nil && ok {
		return fmt.Errorf("data directory %q is already served by %s: %w", cfg.Dir, url, ErrLocked)
	}
	// We listen ourselves (rather than web.ListenAndServe) to learn the bound address for
	// the discovery file, also with port 0. With systemd socket activation the sockets are
	// systemd's, and the discovery file takes the external URL.
	var (
		listeners []net.Listener
		err       error
	)
	baseURL := cfg.ExternalURL
	if flags.WebSystemdSocket == nil || !*flags.WebSystemdSocket {
		if listeners, err = serving.Listen(*flags.WebListenAddresses); err != nil {
			return err
		}
		baseURL = serving.BaseURL(listeners[0].Addr(), *flags.WebConfigFile)
	}
	cfg.ExternalURL = cmp.Or(cfg.ExternalURL, baseURL)
	err = serve(ctx, cfg, baseURL, listeners, flags, logger)
	if err != nil {
		serving.CloseListeners(listeners)
	}
	return err
}

// serve opens the store and serves it on listeners, announced as baseURL (none when
// empty).
func serve(ctx context.Context, cfg Config, baseURL string, listeners []net.Listener, flags *web.FlagConfig, logger *slog.Logger) error {
	reg, err := serving.NewRegistry()
	if err != nil {
		return fmt.Errorf("register the process metrics: %w", err)
	}
	st, err := Open(cfg, logger, reg)
	if err != nil {
		return err
	}
	// The store is closed last: after the HTTP server has drained, so that every write
	// answered 2xx is in the WAL, and the TSDB is flushed and unlocked.
	defer func() {
		if cerr := st.Close(); cerr != nil {
			logger.Error("Failed to close store", "err", cerr)
		}
	}()
	removeAnnouncement := func() error { return nil }
	if baseURL != "" {
		if removeAnnouncement, err = Announce(cfg.Dir, baseURL); err != nil {
			return err
		}
	}
	defer func() {
		if rerr := removeAnnouncement(); rerr != nil {
			logger.Warn("Failed to remove discovery file", "err", rerr)
		}
	}()
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.Handle("/", st.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: serving.ReadHeaderTimeout}
	logger.Info("Serving embedded store", "url", baseURL, "data_dir", cfg.Dir)
	return serving.Run(ctx, srv, listeners, flags, logger, serving.OnSIGHUP(st.Reload, logger))
}
