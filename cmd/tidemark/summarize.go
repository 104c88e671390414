package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/progress"
	"github.com/tidemark/tidemark/internal/runsummary"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/testrun"
)

const summarizeHelp = `Print one k6 end-of-test summary and threshold verdict for a run spread over
several instances (--execution-segment, a Kubernetes Indexed Job, k6-operator), computed
from the series they wrote to Prometheus.

Counters are summed across the instances (instance_id), counter rates are over the
whole run's window, http_req_failed is weighted by each instance's http_reqs, trend
percentiles come from the instances' native histograms summed in PromQL (the output
states their error bound), min and max from the instances' min and max gauges, avg from
sum/count. Without native histograms percentiles are not shown: averaging per-instance
percentiles is wrong, and the output says so.

Thresholds come from the SCRIPT or SCENARIO given, else from the run's own metadata
(tidemark_threshold, written by tidemark run). Exit 99 when any is crossed.

Examples:
  tidemark summarize --testid load-1 --prometheus.url http://prometheus:9090
  tidemark summarize --testid load-1 --prometheus.url http://prometheus:9090 test.js --summary-export out.json`

type summarizeConfig struct {
	testID     string
	file       string
	env        []string
	modulesDir string
	*promFlags
	lookback      model.Duration
	k6            testrun.Shortcuts // the summary options: TrendStats, TimeUnit, Breakdown, BreakdownLimit
	summaryExport string
	summaryFile   string
	noThresholds  bool
}

func summarizeCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &summarizeConfig{}
	cmd := app.Command("summarize", summarizeHelp)
	cmd.Arg("script", "The run's k6 script or scenario file, for its thresholds and summary options; default: the thresholds the run wrote.").
		StringVar(&cfg.file)
	cmd.Flag("testid", "The run's testid.").Required().StringVar(&cfg.testID)
	cfg.promFlags = addPromFlags(cmd)
	cmd.Flag("lookback", "How far back from now to search for the run's series.").Default("7d").SetValue(&cfg.lookback)
	cmd.Flag("env", "Value K=V of __ENV.K for the script, as for tidemark run. Repeatable.").Short('e').StringsVar(&cfg.env)
	cmd.Flag("modules.dir", "Directory of vendored remote modules, as for tidemark run.").StringVar(&cfg.modulesDir)
	cmd.Flag("summary-trend-stats", "The trend columns of the summary, e.g. avg,p(95),p(99.9),count (K6_SUMMARY_TREND_STATS).").
		StringVar(&cfg.k6.TrendStats)
	cmd.Flag("summary-time-unit", "The unit of every duration in the summary: s, ms or us (K6_SUMMARY_TIME_UNIT).").
		StringVar(&cfg.k6.TimeUnit)
	cmd.Flag("summary-export", "Write the summary as JSON in k6's --summary-export (legacy) shape to this file.").StringVar(&cfg.summaryExport)
	cmd.Flag("summary-file", "Write the summary as JSON in the shape of k6's handleSummary data to this file.").StringVar(&cfg.summaryFile)
	cmd.Flag("no-thresholds", "Do not evaluate thresholds (never exits 99).").BoolVar(&cfg.noThresholds)
	return cmd, func(ctx context.Context) error { return runSummarize(ctx, cfg, g) }
}

// test is the test whose thresholds and summary options apply: the file's, or one
// with the flags' summary options only.
func (cfg *summarizeConfig) test(logger *slog.Logger) (*scenario.Test, *metrics.Registry, error) {
	o := testrun.Options{File: cfg.file, Env: cfg.env, ModulesDir: cfg.modulesDir,
		Shortcuts: testrun.Shortcuts{TrendStats: cfg.k6.TrendStats, TimeUnit: cfg.k6.TimeUnit, Breakdown: cfg.k6.Breakdown, BreakdownLimit: cfg.k6.BreakdownLimit, SystemEnv: true}}
	src, err := testrun.Load(context.Background(), o, testrun.ProcessEnv(), pacer.Segment{}, logger)
	if err != nil {
		return nil, nil, err
	}
	return src.Test(), src.Registry(), nil
}

func runSummarize(ctx context.Context, cfg *summarizeConfig, g *globals) (err error) {
	if err := cfg.check(); err != nil {
		return exitcode.Invalid(err)
	}
	logger := g.logger()
	q, where, _, closeFn, err := cfg.open(ctx, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeFn()) }()
	test, reg, err := cfg.test(logger)
	if err != nil {
		return err
	}
	return runsummary.Summarize(ctx, q, where, cfg.options(test, reg, g, nil), g.stdout, logger)
}

// options is the summary the flags ask for, of test, with extra lines.
func (cfg *summarizeConfig) options(test *scenario.Test, reg *metrics.Registry, g *globals, extra []string) runsummary.Options {
	color := progress.IsTerminal(g.stdout)
	return runsummary.Options{TestID: cfg.testID, Lookback: time.Duration(cfg.lookback), Test: test, Registry: reg,
		Given: cfg.file != "", NoThresholds: cfg.noThresholds, SummaryExport: cfg.summaryExport, SummaryFile: cfg.summaryFile,
		Extra: extra, Color: color, StdoutTTY: color, StderrTTY: progress.IsTerminal(g.stderr)}
}
