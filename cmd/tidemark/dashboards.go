package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/query"
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
