package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/regress"
	"github.com/tidemark/tidemark/internal/report"
)

type compareConfig struct {
	src       *sourceFlags
	testIDs   []string
	outputDir string
}

// compareCmd is `tidemark compare`: the same facts for several runs side by side.
func compareCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &compareConfig{}
	cmd := app.Command("compare", "Correlate several runs and put their facts side by side (compare.md, compare.json, compare.html).\n\n"+
		"Use it for a 100 vs 50 RPS spike, or the same test at a 500m and a 1000m CPU limit: every fact of "+
		"`tidemark correlate` gets one column per run.\n\n"+
		"Example:\n  tidemark compare spike-100rps-20261130-100000 spike-50rps-20261130-120000")
	cfg.src = addSourceFlags(cmd)
	cmd.Arg("testid", "Two or more testids.").Required().StringsVar(&cfg.testIDs)
	cmd.Flag("output.dir", "Directory for compare.md, compare.json and compare.html; default reports/compare.").
		Default(filepath.Join("reports", "compare")).StringVar(&cfg.outputDir)
	return cmd, func(ctx context.Context) error { return runCompare(ctx, cfg, g) }
}

func runCompare(ctx context.Context, cfg *compareConfig, g *globals) (err error) {
	if len(cfg.testIDs) < 2 {
		return exitcode.Invalid(fmt.Errorf("need two or more testids, got %d", len(cfg.testIDs)))
	}
	// Flags are checked before the store is opened.
	ccfgs := make([]correlator.Config, 0, len(cfg.testIDs))
	for _, id := range cfg.testIDs {
		ccfg, err := cfg.src.config(id)
		if err == nil {
			err = ccfg.Validate()
		}
		if err != nil {
			return exitcode.Invalid(err)
		}
		ccfgs = append(ccfgs, ccfg)
	}
	c, where, closeFn, err := cfg.src.open(ctx, g.logger())
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeFn()) }()
	var results []*correlator.Result
	for _, ccfg := range ccfgs {
		res, err := c.Correlate(ctx, ccfg)
		if err != nil {
			return fmt.Errorf("run %s: %w (queried %s)", ccfg.TestID, err, where)
		}
		results = append(results, res)
	}
	cmp := correlator.Compare(results...)
	changes := regress.AgainstFirst(results)
	doc := report.FromComparison(cmp, results, report.WithRegressions(changes))
	if _, err := report.WriteFiles(cfg.outputDir, "compare", doc, comparisonJSON{Comparison: cmp, Changes: changes}); err != nil {
		return err
	}
	if err := report.WriteMarkdown(g.stdout, &report.Document{Title: "Comparison", Sections: doc.Sections}); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "Reports in %s (compare.md, compare.json, compare.html)\n", cfg.outputDir)
	return nil
}

// comparisonJSON is compare.json: the comparison and, under "changes", each later run's
// changes against the first (regress.Detect, the exporter's rule).
type comparisonJSON struct {
	correlator.Comparison
	Changes []regress.Change `json:"changes"`
}
