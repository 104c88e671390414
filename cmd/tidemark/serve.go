package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/alecthomas/units"
	oklogrun "github.com/oklog/run"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"
	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/store"
)

// defaultServeAddress is where tidemark serve listens unless told otherwise: loopback only,
// and port 9091, next to Prometheus' 9090. NOTE: the Prometheus Pushgateway also defaults
// to 9091; pass --web.listen-address when both run on one host.
const defaultServeAddress = "127.0.0.1:9091"

// serveShutdownTimeout bounds how long in-flight requests may take after SIGTERM.
const serveShutdownTimeout = 10 * time.Second

type serveConfig struct {
	dataDir          string
	retentionTime    string
	retentionSize    units.Base2Bytes
	oooWindow        string
	lookbackDelta    time.Duration
	queryTimeout     time.Duration
	maxSamples       int
	scrapeTargets    []string
	scrapeInterval   time.Duration
	scrapeConfigFile string
	externalURL      string
	web              *web.FlagConfig
}

// serveCmd is `tidemark serve`: the embedded Prometheus-compatible store.
func serveCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, func() int) {
	cfg := &serveConfig{}
	cmd := app.Command("serve", "Run the embedded Prometheus-compatible store: remote-write receiver (1.0 and 2.0), "+
		"Prometheus HTTP API for PromQL and Grafana, and scraper.")
	cmd.Flag("storage.tsdb.path", "Base path for metrics storage.").Default(store.DefaultConfig.Dir).StringVar(&cfg.dataDir)
	cmd.Flag("storage.tsdb.retention.time", "How long to retain samples in storage.").Default("15d").StringVar(&cfg.retentionTime)
	cmd.Flag("storage.tsdb.retention.size", "Maximum number of bytes that can be stored for blocks (e.g. 512MB). 0 means no limit.").
		Default("0").BytesVar(&cfg.retentionSize)
	cmd.Flag("storage.tsdb.out-of-order-time-window", "Accept samples this much older than the newest sample of their series. 0 rejects them, as Prometheus does by default.").
		Default("0s").StringVar(&cfg.oooWindow)
	cmd.Flag("query.lookback-delta", "The maximum lookback duration for retrieving metrics during expression evaluations.").
		Default(store.DefaultConfig.LookbackDelta.String()).DurationVar(&cfg.lookbackDelta)
	cmd.Flag("query.timeout", "Maximum time a query may take before being aborted.").
		Default(store.DefaultConfig.QueryTimeout.String()).DurationVar(&cfg.queryTimeout)
	cmd.Flag("query.max-samples", "Maximum number of samples a single query can load into memory.").
		Default(fmt.Sprint(store.DefaultConfig.MaxSamples)).IntVar(&cfg.maxSamples)
	cmd.Flag("scrape.target", "host:port of a target to scrape (job \""+store.ScrapeJobName+"\"). Repeatable. Ignored with --config.file.").
		StringsVar(&cfg.scrapeTargets)
	cmd.Flag("scrape.interval", "Scrape interval of --scrape.target targets.").
		Default(store.DefaultConfig.ScrapeInterval.String()).DurationVar(&cfg.scrapeInterval)
	cmd.Flag("config.file", "Prometheus configuration file; its global and scrape_configs sections (static_configs, file_sd_configs) are used.").
		StringVar(&cfg.scrapeConfigFile)
	cmd.Flag("web.external-url", "The URL under which the store is reached, shown on the landing page. Defaults to the first listen address.").
		StringVar(&cfg.externalURL)
	cfg.web = kingpinflag.AddFlags(cmd, defaultServeAddress)

	return cmd, func() int {
		logger := g.logger()
		if err := serve(cfg, logger); err != nil {
			logger.Error("Serve failed", "err", err)
			var cfgErr configError
			if errors.As(err, &cfgErr) || errors.Is(err, store.ErrInvalidConfig) {
				return exitInvalidConfig
			}
			return exitGeneric
		}
		return exitOK
	}
}

// configError marks errors in the command line or configuration files.
type configError struct{ error }

func (e configError) Unwrap() error { return e.error }

func (c *serveConfig) storeConfig() (store.Config, error) {
	retention, err := model.ParseDuration(c.retentionTime)
	if err != nil {
		return store.Config{}, configError{fmt.Errorf("parse --storage.tsdb.retention.time: %w", err)}
	}
	ooo, err := model.ParseDuration(c.oooWindow)
	if err != nil {
		return store.Config{}, configError{fmt.Errorf("parse --storage.tsdb.out-of-order-time-window: %w", err)}
	}
	return store.Config{
		Dir:              c.dataDir,
		Retention:        time.Duration(retention),
		RetentionSize:    int64(c.retentionSize),
		OutOfOrderWindow: time.Duration(ooo),
		LookbackDelta:    c.lookbackDelta,
		QueryTimeout:     c.queryTimeout,
		MaxSamples:       c.maxSamples,
		ScrapeTargets:    c.scrapeTargets,
		ScrapeInterval:   c.scrapeInterval,
		ScrapeConfigFile: c.scrapeConfigFile,
		ExternalURL:      c.externalURL,
		Version:          version.Version,
	}, nil
}

func serve(c *serveConfig, logger *slog.Logger) error {
	scfg, err := c.storeConfig()
	if err != nil {
		return err
	}
	if *c.web.WebConfigFile != "" {
		if err := web.Validate(*c.web.WebConfigFile); err != nil {
			return configError{fmt.Errorf("validate --web.config.file: %w", err)}
		}
	}
	ctx := context.Background()
	if url, ok, err := store.Discover(ctx, scfg.Dir); err == nil && ok {
		return fmt.Errorf("data directory %q is already served by %s: %w", scfg.Dir, url, store.ErrLocked)
	}

	// We listen ourselves (rather than web.ListenAndServe) to learn the bound address for
	// the discovery file, also with port 0. With systemd socket activation the sockets are
	// systemd's, and the discovery file takes --web.external-url.
	systemd := c.web.WebSystemdSocket != nil && *c.web.WebSystemdSocket
	var listeners []net.Listener
	baseURL := scfg.ExternalURL
	if !systemd {
		if listeners, err = listen(*c.web.WebListenAddresses); err != nil {
			return err
		}
		baseURL = baseURLFor(listeners[0].Addr(), webConfigHasTLS(*c.web.WebConfigFile))
	}
	if scfg.ExternalURL == "" {
		scfg.ExternalURL = baseURL
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		versioncollector.NewCollector("tidemark"),
	)
	st, err := store.Open(scfg, logger, reg)
	if err != nil {
		closeAll(listeners)
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
		if removeAnnouncement, err = store.Announce(scfg.Dir, baseURL); err != nil {
			closeAll(listeners)
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
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}

	var g oklogrun.Group
	g.Add(oklogrun.SignalHandler(ctx, os.Interrupt, syscall.SIGTERM))
	// SIGHUP re-reads --config.file, as it does for Prometheus.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	hupCtx, stopHup := context.WithCancel(ctx)
	g.Add(func() error {
		for {
			select {
			case <-hup:
				if err := st.Reload(); err != nil {
					logger.Error("Failed to reload scrape configuration", "err", err)
					continue
				}
				logger.Info("Reloaded scrape configuration")
			case <-hupCtx.Done():
				return nil
			}
		}
	}, func(error) { stopHup() })
	g.Add(func() error {
		logger.Info("Serving embedded store", "url", baseURL, "data_dir", scfg.Dir)
		var err error
		if systemd {
			err = web.ListenAndServe(srv, c.web, logger)
		} else {
			err = web.ServeMultiple(listeners, srv, c.web, logger)
		}
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}, func(error) {
		sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			logger.Warn("Failed to shut down HTTP server gracefully", "err", err)
		}
	})
	err = g.Run()
	if sigErr, ok := errors.AsType[*oklogrun.SignalError](err); ok {
		logger.Info("Received signal, shut down cleanly", "signal", sigErr.Signal.String())
		return nil
	}
	return err
}

func listen(addrs []string) ([]net.Listener, error) {
	if len(addrs) == 0 {
		return nil, configError{errors.New("no --web.listen-address")}
	}
	var ls []net.Listener
	for _, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			closeAll(ls)
			return nil, fmt.Errorf("listen on %s: %w", a, err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

func closeAll(ls []net.Listener) {
	for _, l := range ls {
		_ = l.Close()
	}
}

// baseURLFor is the URL clients on this host use for a listener: a wildcard address is
// reached through loopback.
func baseURLFor(addr net.Addr, tls bool) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		host, port = "127.0.0.1", "9091"
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// webConfigHasTLS reports whether an exporter-toolkit web config file turns on TLS.
// exporter-toolkit has already validated the file.
func webConfigHasTLS(path string) bool {
	if path == "" {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var c struct {
		TLS struct {
			Cert     string `yaml:"cert"`
			CertFile string `yaml:"cert_file"`
		} `yaml:"tls_server_config"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return false
	}
	return strings.TrimSpace(c.TLS.Cert+c.TLS.CertFile) != ""
}
