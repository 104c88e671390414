package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/cliarg"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promapi"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/report"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/store"
	"github.com/tidemark/tidemark/remotewrite"
)

// promFlags are how a command reaches a Prometheus-compatible API: --prometheus.url
// with --http.config.file's authentication and TLS, or the embedded store in
// --storage.tsdb.path.
type promFlags struct {
	prometheusURL string
	httpConfig    string
	dataDir       string
	queryTimeout  time.Duration
}

func addPromFlags(cmd *kingpin.CmdClause) *promFlags {
	f := &promFlags{}
	cmd.Flag("prometheus.url", "Prometheus-compatible API to query (Prometheus, Thanos Query, Mimir, VictoriaMetrics). "+
		"Default: the embedded store in --storage.tsdb.path (a running `tidemark serve` there, or the directory itself).").
		PlaceHolder("URL").StringVar(&f.prometheusURL)
	cmd.Flag("http.config.file", "HTTP client configuration for --prometheus.url, as promtool's: a YAML file in Prometheus' "+
		"http_config format (basic_auth, authorization, oauth2, tls_config, proxy_url, http_headers) for a Prometheus, Mimir or "+
		"Thanos behind authentication or TLS. Its secrets never appear in logs or reports.").PlaceHolder("FILE").StringVar(&f.httpConfig)
	cmd.Flag("storage.tsdb.path", "Data directory of the embedded store, used when --prometheus.url is not set.").
		Default(store.DefaultConfig.Dir).StringVar(&f.dataDir)
	cmd.Flag("query.timeout", "Bound on each query to --prometheus.url; a server that does not answer in time fails the command instead of hanging it; 0 for no bound.").
		Default("2m").DurationVar(&f.queryTimeout)
	return f
}

// check checks --prometheus.url.
func (f *promFlags) check() error {
	return cliarg.HTTPURL("--prometheus.url", f.prometheusURL, "http://prometheus:9090")
}

// open returns a querier over the configured API, where it points (credentials
// redacted), the embedded store's remote-write URL when that is the API (for
// write-back), and a function that releases it.
func (f *promFlags) open(ctx context.Context, logger *slog.Logger) (q query.Querier, where, embeddedWriteURL string, closeFn func() error, err error) {
	api, err := promapi.Open(ctx, f.config(), logger)
	if err != nil {
		return nil, "", "", nil, invalidPromConfig(err)
	}
	return api.Querier, api.Where, api.EmbeddedWriteURL, api.Close, nil
}

// remote returns the querier of --prometheus.url, with --http.config.file's
// authentication and TLS.
func (f *promFlags) remote() (query.Querier, error) {
	q, err := promapi.Remote(f.config())
	return q, invalidPromConfig(err)
}

func (f *promFlags) config() promapi.Config {
	return promapi.Config{URL: f.prometheusURL, HTTPConfigFile: f.httpConfig, Dir: f.dataDir, QueryTimeout: f.queryTimeout}
}

// invalidPromConfig marks errors of the API's configuration as such.
func invalidPromConfig(err error) error {
	if cerr := (*promapi.ConfigError)(nil); errors.As(err, &cerr) {
		return exitcode.Invalid(err)
	}
	return err
}

// sourceFlags are how correlate, compare and the exporter reach Prometheus and which
// catalog they use.
type sourceFlags struct {
	*promFlags
	catalogFile string
	namespace   string
	workload    string
	baseline    time.Duration
	after       time.Duration
	params      map[string]string
	lookback    model.Duration
	selector    string
	// embeddedWriteURL is the remote-write URL of the embedded store once open.
	embeddedWriteURL string
}

func addSourceFlags(cmd *kingpin.CmdClause) *sourceFlags {
	// kingpin's StringMapVar writes into the map: a nil one panics on the first --param.
	f := &sourceFlags{promFlags: addPromFlags(cmd), params: map[string]string{}}
	cmd.Flag("catalog.file", "Query catalog (YAML) with metric names, selectors and joins for your exporters; "+
		"default: the embedded catalog (print it with `tidemark correlate --print-catalog`).").PlaceHolder("FILE").StringVar(&f.catalogFile)
	cmd.Flag("namespace", "Regex of the Kubernetes namespaces to correlate; default all.").PlaceHolder("REGEX").StringVar(&f.namespace)
	cmd.Flag("workload", "Regex of the Deployments to correlate; default all (HPAs and their targets are discovered).").
		PlaceHolder("REGEX").StringVar(&f.workload)
	cmd.Flag("baseline", "Quiet window before the run used as the baseline.").Default("5m").DurationVar(&f.baseline)
	cmd.Flag("after", "Cool-down after the run in which scale-in and recovery are observed.").Default("10m").DurationVar(&f.after)
	cmd.Flag("param", "Catalog parameter, e.g. db_pool_per_pod=5 (Prisma's default pool). Repeatable.").
		PlaceHolder("NAME=VALUE").StringMapVar(&f.params)
	cmd.Flag("lookback", "How far back to search for the run's series: from now, or from --to when given. "+
		"Any Prometheus duration: 7d, 12h, 400d (last year's run).").Default("7d").SetValue(&f.lookback)
	cmd.Flag("selector", "Label matchers added to every source's selector, k6's too, where Thanos, Mimir or a multi-cluster "+
		"Prometheus add a label such as cluster: cluster=prod (comma-separated name=value).").PlaceHolder("NAME=VALUE,...").StringVar(&f.selector)
	return f
}

// open returns a correlator over the configured API and a function that releases it.
func (f *sourceFlags) open(ctx context.Context, logger *slog.Logger) (*correlator.Correlator, string, func() error, error) {
	cat, err := query.LoadFile(f.catalogFile)
	if err != nil {
		return nil, "", nil, exitcode.Invalid(err)
	}
	q, where, writeURL, closeFn, err := f.promFlags.open(ctx, logger)
	if err != nil {
		return nil, "", nil, err
	}
	f.embeddedWriteURL = writeURL
	return correlator.New(q, cat, logger), where, closeFn, nil
}

// config checks the flags and returns the correlation of one run.
func (f *sourceFlags) config(testID string) (correlator.Config, error) {
	cfg := correlator.Config{TestID: testID, Namespace: f.namespace, Workload: f.workload, Baseline: f.baseline, After: f.after,
		Lookback: time.Duration(f.lookback)}
	if err := f.check(); err != nil {
		return cfg, err
	}
	switch {
	case f.baseline <= 0:
		return cfg, fmt.Errorf("--baseline %s: expected a positive duration such as 5m", f.baseline)
	case f.after < 0:
		return cfg, fmt.Errorf("--after %s: expected a duration of zero or more, such as 10m", f.after)
	case f.lookback <= 0:
		return cfg, fmt.Errorf("--lookback %s: expected a positive duration such as 7d", f.lookback)
	case f.after == 0:
		cfg.After = -1 // no cool-down: the correlator reads a zero After as its default
	}
	if f.selector != "" {
		sel, err := query.ParseSelector(f.selector)
		if err != nil {
			return cfg, fmt.Errorf("--selector %w", err)
		}
		cfg.Selector = sel
	}
	params, err := correlator.ParseParams(f.params)
	if err != nil {
		return cfg, fmt.Errorf("--param %w", err)
	}
	cfg.Params = params
	return cfg, nil
}

type correlateConfig struct {
	src          *sourceFlags
	testID       string
	from, to     string
	stages       string
	stagesUnit   string
	discover     bool
	outputDir    string
	grafanaURL   string
	printCatalog bool
	writeBack    bool
	writeBackURL string
	slo          []string
}

// correlateCmd is `tidemark correlate`: the facts of one run, as report.{md,json,html}.
func correlateCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &correlateConfig{}
	cmd := app.Command("correlate", "Analyse one run against the cluster's metrics and write report.md, report.json and report.html.\n\n"+
		"Tidemark finds the run's window from its own series (tidemark_run_info{testid}, or k6_vus{testid} for a run k6 made, "+
		"within --lookback), finds each cluster source under the catalog's job names or, when they find nothing, the job its "+
		"metrics are scraped as (prometheus-community chart, Grafana k8s-monitoring, no job label; --discover prints it), "+
		"then reads kube-state-metrics "+
		"(HPA and Deployment replicas), cAdvisor (CPU usage and CFS throttling) and RDS/CloudWatch series for that "+
		"window plus a baseline before and a cool-down after, and derives: stages that held, HPA reaction time, "+
		"per-step start-up gaps, time to max, scale-in delay, throttling onset and the load at that moment, DB "+
		"connection growth, error bursts and the share of failures inside start-up gaps. Every time carries the "+
		"resolution of its source; missing sources are named, never guessed.\n\n"+
		"Examples:\n"+
		"  tidemark correlate --testid spike-20261130-100000\n"+
		"  tidemark correlate --testid spike-1 --prometheus.url http://prometheus:9090 --namespace shoong --param db_pool_per_pod=5\n"+
		"  tidemark correlate --testid spike-50-20250528 --lookback 400d --stages 2m:10,5m:10,2m:50 --stages.unit iterations\n"+
		"  tidemark correlate --testid spike-1 --prometheus.url http://thanos:9090 --selector cluster=prod --discover > catalog.yaml")
	cfg.src = addSourceFlags(cmd)
	cmd.Flag("testid", "The run's testid (printed by `tidemark run` at the start).").Required().StringVar(&cfg.testID)
	cmd.Flag("from", "Start of the run window (RFC 3339), instead of the run's own series.").PlaceHolder("TIME").StringVar(&cfg.from)
	cmd.Flag("to", "End of the run window (RFC 3339), instead of the run's own series.").PlaceHolder("TIME").StringVar(&cfg.to)
	cmd.Flag("stages", "The run's stages in k6's --stage syntax (DURATION:TARGET,…, e.g. 2m:10,5m:10,30s:50), from the start of "+
		"the window, when the run has no tidemark_scenario_target (a run k6 made) and the inferred stages are not what it ran.").
		PlaceHolder("STAGES").StringVar(&cfg.stages)
	cmd.Flag("stages.unit", "What the --stages targets count: vus (ramping-vus, as k6's --stage) or iterations (an arrival rate per second).").
		Default("vus").EnumVar(&cfg.stagesUnit, "vus", "iterations")
	cmd.Flag("output.dir", "Directory for report.md, report.json and report.html; default reports/<testid>.").StringVar(&cfg.outputDir)
	cmd.Flag("grafana.url", "Grafana base URL, to print a link to the run-correlation dashboard for this run.").
		PlaceHolder("URL").StringVar(&cfg.grafanaURL)
	cmd.Flag("write-back", "Write the events and key facts back as series (tidemark_event{testid,kind,object}, tidemark_fact_*; with --slo, tidemark_slo_rule_firing{judge=\"correlate\"}) "+
		"for Grafana annotations and PromQL.").Default("true").BoolVar(&cfg.writeBack)
	cmd.Flag("write-back.url", "Remote-write endpoint for --write-back; default: --prometheus.url + /api/v1/write, or the embedded store.").
		PlaceHolder("URL").StringVar(&cfg.writeBackURL)
	cmd.Flag("slo", "Judge the run by server-side rules: a Prometheus alerting rule file (or builtin:cluster, builtin:database), over its window and per stage; exit code 99 when an error or critical rule fired (docs/slo.md). Repeatable.").PlaceHolder("FILE").StringsVar(&cfg.slo)
	cmd.Flag("print-catalog", "Print the embedded query catalog (a starting point for --catalog.file) and exit.").BoolVar(&cfg.printCatalog)
	cmd.Flag("discover", "Find the run and where each source's series are (kube-state-metrics, cAdvisor, RDS: the catalog's "+
		"selectors, else the job they were found under), print it, then the catalog with those selectors as YAML ready for "+
		"--catalog.file, and exit.").BoolVar(&cfg.discover)
	return cmd, func(ctx context.Context) error { return runCorrelate(ctx, cfg, g) }
}

// check validates the flags before the store is opened, and returns the correlation.
func (cfg *correlateConfig) check() (correlator.Config, error) {
	ccfg, err := cfg.src.config(cfg.testID)
	if err == nil {
		ccfg.From, err = cliarg.Time("--from", cfg.from)
	}
	if err == nil {
		ccfg.To, err = cliarg.Time("--to", cfg.to)
	}
	if err == nil && cfg.stages != "" {
		ccfg.Stages, err = analysis.ParseStages(cfg.stages)
		if err != nil {
			err = fmt.Errorf("--stages: %w", err)
		}
		ccfg.StagesUnit = analysis.StageUnitVUs
		if cfg.stagesUnit == "iterations" {
			ccfg.StagesUnit = analysis.StageUnitIterations
		}
	}
	if err == nil {
		err = ccfg.Validate()
	}
	if err == nil && len(cfg.slo) > 0 {
		ccfg.SLO, err = slo.Load(cfg.slo, slo.DefaultPushInterval)
	}
	// Checked before the run is correlated, not after its reports are written.
	if err == nil {
		err = cliarg.HTTPURL("--grafana.url", cfg.grafanaURL, "http://grafana:3000")
	}
	if err == nil && cfg.writeBack {
		err = cliarg.HTTPURL("--write-back.url", cfg.writeBackURL, "http://prometheus:9090/api/v1/write")
	}
	return ccfg, exitcode.Invalid(err)
}

func runCorrelate(ctx context.Context, cfg *correlateConfig, g *globals) (err error) {
	if cfg.printCatalog {
		_, err := g.stdout.Write(query.DefaultYAML())
		return err
	}
	logger := g.logger()
	ccfg, err := cfg.check()
	if err != nil {
		return err
	}
	c, where, closeFn, err := cfg.src.open(ctx, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeFn()) }()
	if cfg.discover {
		return c.WriteDiscovery(ctx, g.stdout, ccfg, where)
	}
	res, err := c.Correlate(ctx, ccfg)
	if err != nil {
		return fmt.Errorf("%w (queried %s)", err, where)
	}
	dir := cmp.Or(cfg.outputDir, filepath.Join("reports", res.TestID))
	paths, err := report.WriteFiles(dir, "report", report.FromCorrelation(res), res)
	if err != nil {
		return err
	}
	if cfg.writeBack {
		if n, err := writeBack(ctx, cfg, res, logger); err != nil {
			// The report is written; a receiver that does not accept remote write only
			// costs the annotations.
			fmt.Fprintf(g.stderr, "tidemark correlate: write back events: %v\n", err)
		} else if n > 0 {
			defer fmt.Fprintf(g.stdout, "Wrote %d event and fact samples back (tidemark_event, tidemark_fact_*).\n", n)
		}
	}
	if err := report.WriteRunKeyFacts(g.stdout, res, where); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "\nReports:\n")
	for _, p := range paths {
		fmt.Fprintf(g.stdout, "  %s\n", p)
	}
	if cfg.grafanaURL != "" {
		to := res.Window.After.To
		if to.IsZero() {
			to = res.Window.Run.To
		}
		link, err := dashboards.RunLink(cfg.grafanaURL, res.TestID, res.Window.Baseline.From, to)
		if err != nil {
			return exitcode.Invalid(fmt.Errorf("--grafana.url: %w", err))
		}
		fmt.Fprintf(g.stdout, "Dashboard: %s\n", link)
	}
	return res.SLO.Err()
}

// writeBack remote-writes the result's events and facts to the write-back URL: the flag,
// else the queried Prometheus' receiver, else the embedded store. It returns the number
// of samples written.
func writeBack(ctx context.Context, cfg *correlateConfig, res *correlator.Result, logger *slog.Logger) (int, error) {
	target := cmp.Or(cfg.writeBackURL, cfg.src.embeddedWriteURL)
	if target == "" {
		target = strings.TrimRight(cfg.src.prometheusURL, "/") + "/api/v1/write"
	}
	client, err := remotewrite.NewWriter(target, logger)
	if err != nil {
		return 0, err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return client.WritePoints(wctx, correlator.WriteBackPoints(res))
}
