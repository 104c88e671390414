package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/watcher"
)

// defaultExporterAddress is where tidemark exporter listens unless told otherwise. 9466
// is unclaimed in Prometheus' default port allocations wiki page and sits beside 9464,
// the port `tidemark run --exporter.listen-address` documents (OpenTelemetry's
// Prometheus exporter default), without taking 9465.
const defaultExporterAddress = ":9466"

type exporterConfig struct {
	src         *sourceFlags
	web         *web.FlagConfig
	storagePath string
	interval    time.Duration
	groupBy     string
	maxRuns     int
	retention   model.Duration
}

// exporterCmd is `tidemark exporter`: the long-running sidecar that correlates every
// finished run once and exports its facts and regressions.
func exporterCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &exporterConfig{}
	cmd := app.Command("exporter", "Run next to Prometheus: every --interval, find the runs that finished within --lookback "+
		"(their tidemark_run_info or k6 series stopped), correlate each once as `tidemark correlate` does, write its report "+
		"under --storage.path, compare its key facts with the earlier runs of its group, and serve /metrics "+
		"(tidemark_fact_*{testid,…} per run, tidemark_fact_regression, tidemark_exporter_*) and /runs (the runs with "+
		"links to their reports).\n\n"+
		"Example:\n"+
		"  tidemark exporter --prometheus.url http://prometheus:9090 --namespace shoong --storage.path /var/lib/tidemark")
	cfg.src = addSourceFlags(cmd)
	cmd.GetFlag("lookback").Default("1h").Help("How far back each look searches for finished runs (and how far back " +
		"a run's series are searched when it is correlated). Runs correlated once stay in the history however old.")
	cmd.Flag("storage.path", "Directory of the state (state.json and state.log: every run correlated, its facts and "+
		"changes) and of reports/<testid>/.").Default("data/exporter").StringVar(&cfg.storagePath)
	cmd.Flag("interval", "Time between two looks for finished runs; a failed look is retried at the next.").
		Default("1m").DurationVar(&cfg.interval)
	cmd.Flag("group-by", "Label of the runs' series (tidemark_run_info, k6_vus) whose value groups comparable runs; "+
		"default: for a run Tidemark made, its test's identity on tidemark_run_info (test_file and test_hash: runs of one "+
		"unchanged scenario file, whatever their testids), else the testid without a trailing date/time "+
		"(spike-50-20260528 and spike-50-20260529 are spike-50).").
		PlaceHolder("LABEL").StringVar(&cfg.groupBy)
	cmd.Flag("metrics.max-runs-per-group", "How many of each group's most recent runs /metrics exposes (the state file "+
		"keeps every run; /runs pages through them; memory holds at least the last 10, what a new run is compared with).").
		Default("10").IntVar(&cfg.maxRuns)
	cmd.Flag("metrics.retention", "Runs that ended longer ago are neither exposed on /metrics nor compared with "+
		"(they stay in the state file and /runs); at least --lookback plus --after. Raise it for tests run less often than every few days.").
		Default("30d").SetValue(&cfg.retention)
	cfg.web = kingpinflag.AddFlags(cmd, defaultExporterAddress)
	return cmd, func(ctx context.Context) error { return runExporter(ctx, cfg, g) }
}

// check validates the flags and returns the watcher's configuration.
func (cfg *exporterConfig) check() (watcher.Config, error) {
	if cfg.src.prometheusURL == "" {
		return watcher.Config{}, exitcode.Invalid(errors.New("--prometheus.url is required: the Prometheus-compatible API " +
			"the runs write to, such as http://prometheus:9090 (or `tidemark serve`'s http://127.0.0.1:9091)"))
	}
	ccfg, err := cfg.src.config("")
	if err != nil {
		return watcher.Config{}, exitcode.Invalid(err)
	}
	if cfg.interval <= 0 {
		return watcher.Config{}, exitcode.Invalid(fmt.Errorf("--interval %s: expected a positive duration such as 1m", cfg.interval))
	}
	if cfg.maxRuns <= 0 {
		return watcher.Config{}, exitcode.Invalid(fmt.Errorf("--metrics.max-runs-per-group %d: expected a positive number such as 10", cfg.maxRuns))
	}
	if cfg.retention <= 0 {
		return watcher.Config{}, exitcode.Invalid(fmt.Errorf("--metrics.retention %s: expected a positive duration such as 30d", cfg.retention))
	}
	wcfg := watcher.Config{Correlation: ccfg, Interval: cfg.interval, Lookback: ccfg.Lookback, GroupBy: cfg.groupBy, StorageDir: cfg.storagePath,
		MaxRunsPerGroup: cfg.maxRuns, Retention: time.Duration(cfg.retention)}
	if err := wcfg.Validate(); err != nil {
		return wcfg, exitcode.Invalid(fmt.Errorf("flags: %w", err))
	}
	if *cfg.web.WebConfigFile != "" {
		if err := web.Validate(*cfg.web.WebConfigFile); err != nil {
			return wcfg, exitcode.Invalid(fmt.Errorf("validate --web.config.file: %w", err))
		}
	}
	return wcfg, nil
}

func runExporter(ctx context.Context, cfg *exporterConfig, g *globals) (err error) {
	logger := g.logger()
	wcfg, err := cfg.check()
	if err != nil {
		return err
	}
	c, where, closeFn, err := cfg.src.open(ctx, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeFn()) }()
	q, err := cfg.src.remote() // the same authentication and TLS as the correlations'
	if err != nil {
		return err
	}
	w, err := watcher.New(wcfg, q, c, logger.With("component", "watcher"))
	if err != nil {
		return err
	}
	return w.Serve(ctx, cfg.web, where, logger, func(listening string) {
		fmt.Fprintf(g.stdout, "tidemark exporter: watching %s; /metrics and /runs on %s; state in %s\n", where, listening, wcfg.StorageDir)
	})
}
