package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/alecthomas/units"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/store"
)

// defaultServeAddress is where tidemark serve listens unless told otherwise: loopback only,
// and port 9091, next to Prometheus' 9090. NOTE: the Prometheus Pushgateway also defaults
// to 9091; pass --web.listen-address when both run on one host.
const defaultServeAddress = "127.0.0.1:9091"

type serveConfig struct {
	dataDir          string
	retentionTime    string
	retentionSize    units.Base2Bytes
	oooWindow        string
	lookbackDelta    time.Duration
	queryTimeout     time.Duration
	maxSamples       int
	maxQueryLength   int
	maxConcurrency   int
	maxSubquerySteps int64
	scrapeTargets    []string
	scrapeInterval   time.Duration
	scrapeConfigFile string
	externalURL      string
	web              *web.FlagConfig
}

// serveCmd is `tidemark serve`: the embedded Prometheus-compatible store.
func serveCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
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
	cmd.Flag("query.max-length", "Longest query, in bytes, the store parses; longer ones are refused (400) before parsing, whose time grows faster than the length.").
		Default(fmt.Sprint(store.DefaultConfig.MaxQueryLength)).IntVar(&cfg.maxQueryLength)
	cmd.Flag("query.max-concurrency", "Maximum number of queries evaluated at once; others wait up to --query.timeout, then get 503.").
		Default(fmt.Sprint(store.DefaultConfig.MaxConcurrentQueries)).IntVar(&cfg.maxConcurrency)
	cmd.Flag("query.max-subquery-steps", "Most steps one subquery may evaluate: its range plus the span it is evaluated over (a range query's, an enclosing subquery's), over its step; more is refused (422) before evaluation.").
		Default(fmt.Sprint(store.DefaultConfig.MaxSubquerySteps)).Int64Var(&cfg.maxSubquerySteps)
	cmd.Flag("scrape.target", "host:port of a target to scrape (job \""+store.ScrapeJobName+"\"). Repeatable. Ignored with --config.file.").
		StringsVar(&cfg.scrapeTargets)
	cmd.Flag("scrape.interval", "Scrape interval of --scrape.target targets.").
		Default(store.DefaultConfig.ScrapeInterval.String()).DurationVar(&cfg.scrapeInterval)
	cmd.Flag("config.file", "Prometheus configuration file; its global and scrape_configs sections (static_configs, file_sd_configs) are used.").
		StringVar(&cfg.scrapeConfigFile)
	cmd.Flag("web.external-url", "The URL under which the store is reached, shown on the landing page. Defaults to the first listen address.").
		StringVar(&cfg.externalURL)
	cfg.web = kingpinflag.AddFlags(cmd, defaultServeAddress)

	return cmd, func(ctx context.Context) error { return serve(ctx, cfg, g.logger()) }
}

func (c *serveConfig) storeConfig() (store.Config, error) {
	retention, err := model.ParseDuration(c.retentionTime)
	if err != nil {
		return store.Config{}, exitcode.Invalid(fmt.Errorf("parse --storage.tsdb.retention.time: %w", err))
	}
	ooo, err := model.ParseDuration(c.oooWindow)
	if err != nil {
		return store.Config{}, exitcode.Invalid(fmt.Errorf("parse --storage.tsdb.out-of-order-time-window: %w", err))
	}
	return store.Config{
		Dir:                  c.dataDir,
		Retention:            time.Duration(retention),
		RetentionSize:        int64(c.retentionSize),
		OutOfOrderWindow:     time.Duration(ooo),
		LookbackDelta:        c.lookbackDelta,
		QueryTimeout:         c.queryTimeout,
		MaxSamples:           c.maxSamples,
		MaxQueryLength:       c.maxQueryLength,
		MaxConcurrentQueries: c.maxConcurrency,
		MaxSubquerySteps:     c.maxSubquerySteps,
		ScrapeTargets:        c.scrapeTargets,
		ScrapeInterval:       c.scrapeInterval,
		ScrapeConfigFile:     c.scrapeConfigFile,
		ExternalURL:          c.externalURL,
		Version:              version.Version,
	}, nil
}

func serve(ctx context.Context, c *serveConfig, logger *slog.Logger) error {
	scfg, err := c.storeConfig()
	if err != nil {
		return err
	}
	if *c.web.WebConfigFile != "" {
		if err := web.Validate(*c.web.WebConfigFile); err != nil {
			return exitcode.Invalid(fmt.Errorf("validate --web.config.file: %w", err))
		}
	}
	return store.Serve(ctx, scfg, c.web, logger)
}
