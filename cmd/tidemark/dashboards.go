package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/internal/cliarg"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promapi"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// dashboardsConfig holds the flags of `tidemark dashboards`.
type dashboardsConfig struct {
	action    string
	outputDir string
	url       string
	tokenFile string
	folder    string
	message   string
	catalog   string
	promURL   string
	httpCfg   string
	namespace string
	lookback  model.Duration
}

// dashboardsCmd registers `tidemark dashboards generate|push`.
//
// The action is a positional argument rather than a nested kingpin command so the command
// table keeps one entry per command; the command line reads the same either way.
func dashboardsCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &dashboardsConfig{}
	cmd := app.Command("dashboards", "Generate Grafana dashboards (and provisioning files), or push them through Grafana's HTTP API.")
	cmd.Arg("action", "generate: write dashboard JSON and provisioning files to --output.dir; push: upload the dashboards to Grafana.").
		Required().EnumVar(&cfg.action, "generate", "push")
	cmd.Flag("output.dir", "Directory to write the dashboards and provisioning files to (generate).").
		Default("dashboards/generated").StringVar(&cfg.outputDir)
	cmd.Flag("catalog.file", "Query catalog (YAML) to take panel queries and selectors from, as tidemark correlate does; default: the embedded catalog.").
		StringVar(&cfg.catalog)
	cmd.Flag("prometheus.url", "Prometheus to look in for where kube-state-metrics and cAdvisor are scraped (their job names, "+
		"as tidemark correlate discovers them): the dashboards then select those. Default: the catalog's selectors.").
		PlaceHolder("URL").StringVar(&cfg.promURL)
	cmd.Flag("http.config.file", "With --prometheus.url: its HTTP client configuration, as tidemark correlate's.").
		PlaceHolder("FILE").StringVar(&cfg.httpCfg)
	cmd.Flag("namespace", "With --prometheus.url: regex of the namespaces to look in; default all.").PlaceHolder("REGEX").StringVar(&cfg.namespace)
	cmd.Flag("lookback", "With --prometheus.url: how far back to look for the sources' series.").Default("1h").SetValue(&cfg.lookback)
	cmd.Flag("grafana.url", "Grafana base URL (push), e.g. http://grafana:3000.").StringVar(&cfg.url)
	cmd.Flag("grafana.token-file", "File holding a Grafana service-account token (push).").StringVar(&cfg.tokenFile)
	cmd.Flag("grafana.folder", "Grafana folder to push the dashboards into (push); created when missing.").
		Default("Tidemark").StringVar(&cfg.folder)
	cmd.Flag("grafana.message", "Version message recorded with the pushed dashboards (push).").
		Default("pushed by tidemark dashboards push").StringVar(&cfg.message)
	return cmd, func(ctx context.Context) error { return runDashboards(ctx, cfg, g) }
}

// runDashboards runs the chosen action.
func runDashboards(ctx context.Context, cfg *dashboardsConfig, g *globals) error {
	cat, err := query.LoadFile(cfg.catalog)
	if err != nil {
		return exitcode.Invalid(fmt.Errorf("load the query catalog %s: %w", cfg.catalog, err))
	}
	if cfg.promURL != "" {
		if cat, err = discoverCatalog(ctx, cfg, cat, g); err != nil {
			return err
		}
	}
	exprs, err := dashboards.ExprsFromCatalog(cat)
	if err != nil {
		return exitcode.Invalid(fmt.Errorf("take the dashboards' queries from the catalog: %w", err))
	}
	if cfg.action == "generate" {
		if err := dashboards.GenerateWith(cfg.outputDir, exprs); err != nil {
			return fmt.Errorf("generate dashboards: %w", err)
		}
		fmt.Fprintf(g.stdout, "dashboards written to %s\n", cfg.outputDir)
		return nil
	}
	if cfg.url == "" || cfg.tokenFile == "" {
		return exitcode.Invalid(errors.New("push needs --grafana.url and --grafana.token-file, try --help"))
	}
	raw, err := os.ReadFile(cfg.tokenFile)
	if err != nil {
		return exitcode.Invalid(fmt.Errorf("read --grafana.token-file: %w", err))
	}
	client, err := dashboards.NewClient(cfg.url, strings.TrimSpace(string(raw)))
	if err != nil {
		return exitcode.Invalid(fmt.Errorf("--grafana.url: %w", err))
	}
	built, err := dashboards.All(exprs)
	if err != nil {
		return fmt.Errorf("build dashboards: %w", err)
	}
	results, err := dashboards.PushAll(ctx, client, cfg.folder, built, cfg.message)
	for _, r := range results {
		fmt.Fprintf(g.stdout, "%s version %d: %s\n", r.UID, r.Version, strings.TrimRight(cfg.url, "/")+r.URL)
	}
	if err != nil {
		return fmt.Errorf("push dashboards: %w", err)
	}
	return nil
}

// discoverCatalog returns cat with the selectors of the sources found elsewhere than it
// says in --prometheus.url over the last --lookback, and prints where each was found.
func discoverCatalog(ctx context.Context, cfg *dashboardsConfig, cat *query.Catalog, g *globals) (*query.Catalog, error) {
	if err := cliarg.HTTPURL("--prometheus.url", cfg.promURL, "http://prometheus:9090"); err != nil {
		return nil, exitcode.Invalid(err)
	}
	if cfg.lookback <= 0 {
		return nil, exitcode.Invalid(fmt.Errorf("--lookback %s: expected a positive duration such as 1h", cfg.lookback))
	}
	q, err := promapi.Remote(promapi.Config{URL: cfg.promURL, HTTPConfigFile: cfg.httpCfg})
	if err != nil {
		return nil, exitcode.Invalid(err)
	}
	now := time.Now()
	d, err := query.Discover(ctx, q, cat, query.Vars{Namespace: cfg.namespace},
		timeline.Window{From: now.Add(-time.Duration(cfg.lookback)), To: now})
	if err != nil {
		return nil, fmt.Errorf("discover the sources: %w", err)
	}
	for _, n := range d.Notes() {
		fmt.Fprintf(g.stdout, "%s\n", n)
	}
	return d.Apply(cat)
}
