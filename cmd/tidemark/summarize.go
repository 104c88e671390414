package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/progress"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/runsummary"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/threshold"
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
	trendStats    string
	timeUnit      string
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
		StringVar(&cfg.trendStats)
	cmd.Flag("summary-time-unit", "The unit of every duration in the summary: s, ms or us (K6_SUMMARY_TIME_UNIT).").
		StringVar(&cfg.timeUnit)
	cmd.Flag("summary-export", "Write the summary as JSON in k6's --summary-export (legacy) shape to this file.").StringVar(&cfg.summaryExport)
	cmd.Flag("summary-file", "Write the summary as JSON in the shape of k6's handleSummary data to this file.").StringVar(&cfg.summaryFile)
	cmd.Flag("no-thresholds", "Do not evaluate thresholds (never exits 99).").BoolVar(&cfg.noThresholds)
	return cmd, func(ctx context.Context) error { return runSummarize(ctx, cfg, g) }
}

// summarizeTest is the test whose thresholds and summary options apply: the file's,
// or one with the flags' summary options only.
func (cfg *summarizeConfig) test(logger *slog.Logger) (*scenario.Test, *metrics.Registry, error) {
	proc := processEnv()
	f := k6Flags{trendStats: cfg.trendStats, timeUnit: cfg.timeUnit, systemEnv: true}
	environ := f.environ(proc)
	if cfg.file == "" {
		t := &scenario.Test{SummaryTrendStats: scenario.DefaultSummaryTrendStats()}
		if s := environ["K6_SUMMARY_TREND_STATS"]; s != "" {
			t.SummaryTrendStats = strings.Split(s, ",")
		}
		switch u := environ["K6_SUMMARY_TIME_UNIT"]; u {
		case "", "s", "ms", "us":
			t.SummaryTimeUnit = u
		default:
			return nil, nil, exitcode.Invalid(fmt.Errorf("--summary-time-unit %q: expected s, ms or us", u))
		}
		return t, nil, nil
	}
	cliEnv, err := parsePairs("env", cfg.env)
	if err != nil {
		return nil, nil, exitcode.Invalid(err)
	}
	if js.IsScript(cfg.file) {
		r, err := js.New(js.Config{Script: cfg.file, ModulesDir: cfg.modulesDir, Env: f.scriptEnv(proc, cliEnv), Environ: environ, Logger: logger})
		if err != nil {
			return nil, nil, err
		}
		return r.Test(), r.Registry(), nil
	}
	t, _, err := scenario.LoadK6(cfg.file, f.scriptEnv(proc, cliEnv), environ)
	if err != nil {
		return nil, nil, exitcode.Invalid(err)
	}
	return t, nil, nil
}

func runSummarize(ctx context.Context, cfg *summarizeConfig, g *globals) (err error) {
	if err := cfg.check(); err != nil {
		return exitcode.Invalid(err)
	}
	q, where, _, closeFn, err := cfg.open(ctx, g.logger())
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeFn()) }()
	return summarizeWith(ctx, cfg, q, where, g, nil)
}

// summarizeWith prints the summary of the run cfg names, read through q (at where),
// with extra lines after the run's, and returns its threshold verdict.
func summarizeWith(ctx context.Context, cfg *summarizeConfig, q query.Querier, where string, g *globals, extra []string) error {
	logger := g.logger()
	test, reg, err := cfg.test(logger)
	if err != nil {
		return err
	}
	cat, err := query.LoadFile("")
	if err != nil {
		return err
	}
	win, err := correlator.New(q, cat, logger).FindRun(ctx, correlator.Config{TestID: cfg.testID, Lookback: time.Duration(cfg.lookback)})
	if err != nil {
		return fmt.Errorf("find run %q in %s: %w", cfg.testID, where, err)
	}
	var keys []string
	for k := range test.Thresholds {
		keys = append(keys, k)
	}
	stats := slices.Clone(test.SummaryTrendStats)
	for _, ths := range test.Thresholds {
		for _, th := range ths {
			stats = append(stats, thresholdStat(th.Expr))
		}
	}
	res, err := runsummary.Collect(ctx, q, runsummary.Config{TestID: cfg.testID, From: win.Run.From, To: win.Run.To,
		Keys: keys, TrendStats: stats, Registry: reg})
	if err != nil {
		return err
	}
	if cfg.file == "" && len(res.Declared) > 0 {
		// The run's own thresholds: a second pass computes the trend stats they read.
		test.Thresholds = map[string][]scenario.Threshold{}
		keys = keys[:0]
		for _, d := range res.Declared {
			test.Thresholds[d.Key] = append(test.Thresholds[d.Key], scenario.Threshold{Expr: d.Expr})
			keys = append(keys, d.Key)
			stats = append(stats, thresholdStat(d.Expr))
		}
		if res, err = runsummary.Collect(ctx, q, runsummary.Config{TestID: cfg.testID, From: win.Run.From, To: win.Run.To,
			Keys: keys, TrendStats: stats, Registry: reg}); err != nil {
			return err
		}
	}
	duration := win.Run.To.Sub(win.Run.From)
	in := summary.Input{Test: test, Snapshot: res.Snapshot, Registry: res.Registry, Start: win.Run.From, Duration: duration,
		Trends: res.Trends, Color: progress.IsTerminal(g.stdout)}
	in.StdoutTTY, in.StderrTTY = in.Color, progress.IsTerminal(g.stderr)
	ids := make([]string, len(res.Instances))
	for i, inst := range res.Instances {
		ids[i] = cmpOrDash(inst.ID)
	}
	in.Extra = append([]string{fmt.Sprintf("run: %s, %d instance(s) (%s), %s to %s (%s), from %s",
		cfg.testID, len(ids), strings.Join(ids, ", "), win.Run.From.Format(time.RFC3339), win.Run.To.Format(time.RFC3339), duration.Round(time.Millisecond), where)},
		append(extra, res.Notes...)...)
	if win.Live {
		in.Extra = append(in.Extra, "the run is still live: this summary covers it up to now")
	}
	st, err := cfg.stages(ctx, q, cat, test, res, logger)
	if err != nil {
		// The summary and its verdict stand without the STAGES table: say why it is missing.
		logger.Warn("Could not compute the run's stages", "err", err)
		in.Extra = append(in.Extra, "STAGES: not computed: "+err.Error())
	} else {
		in.StageResults, in.StageNote = st.Rows, st.Note
		in.Extra = append(in.Extra, st.Notes...)
	}
	var verdict error
	if !cfg.noThresholds && len(test.Thresholds) > 0 {
		set, err := test.ThresholdSet(res.TypeFunc())
		if err != nil {
			return exitcode.Invalid(err)
		}
		var unjudged []string
		in.Thresholds, unjudged = evaluateRun(set, res, duration)
		for _, u := range unjudged {
			in.Extra = append(in.Extra, "threshold "+u+": cannot be judged from the series the run wrote (see above), counted as crossed")
		}
		if err := set.Last().Err(); err != nil || len(unjudged) > 0 {
			if err == nil {
				err = errors.New("some thresholds cannot be judged")
			}
			verdict = exitcode.With(exitcode.ThresholdsFailed, err)
		}
	}
	errs := []error{verdict}
	if werr := summary.WriteText(g.stdout, in); werr != nil {
		errs = append(errs, fmt.Errorf("write the summary: %w", werr))
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer, summary.Input) error
	}{{cfg.summaryExport, summary.WriteExport}, {cfg.summaryFile, summary.WriteData}} {
		if out.path != "" {
			if werr := summary.WriteFile(out.path, in, out.write); werr != nil {
				errs = append(errs, fmt.Errorf("write the summary file %s: %w", out.path, werr))
			}
		}
	}
	return errors.Join(errs...)
}

// stages computes the whole run's STAGES table with the correlator's load analysis
// over the k6 series only; the stages of the file given stand in for a run that wrote
// no tidemark_scenario_target.
func (cfg *summarizeConfig) stages(ctx context.Context, q query.Querier, cat *query.Catalog, test *scenario.Test,
	res *runsummary.Result, logger *slog.Logger,
) (*runsummary.Stages, error) {
	sc := runsummary.StagesConfig{TestID: cfg.testID, Lookback: time.Duration(cfg.lookback), Schema: res.Schema}
	if cfg.file != "" {
		sc.Given, sc.GivenUnit = runsummary.GivenStages(test)
	}
	corr := correlator.New(q, runsummary.K6Catalog(cat), logger)
	return runsummary.ComputeStages(ctx, corr, sc)
}

func cmpOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// thresholdStat is the aggregation of a threshold expression: "p(95)<500" → "p(95)".
func thresholdStat(expr string) string {
	if i := strings.IndexAny(expr, "=><!"); i >= 0 {
		return strings.TrimSpace(expr[:i])
	}
	return strings.TrimSpace(expr)
}

// evaluateRun judges set against the run's summed values, as the final evaluation of
// tidemark run does. A threshold whose value the run's series cannot give (a trend
// percentile without native histograms, a rate without counts) is crossed, and listed
// in unjudged: a verdict must not pass on a value nobody computed.
func evaluateRun(set *threshold.Set, res *runsummary.Result, elapsed time.Duration) (map[string][]summary.Threshold, []string) {
	result := set.Evaluate(elapsed, true, func(k *threshold.Key) threshold.Source {
		if given, ok := res.Trends[k.Name]; ok {
			return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
				v, ok := given[m.String()]
				return v, ok
			})
		}
		if slices.Contains(res.Unsummed, k.Metric) {
			return threshold.SourceFunc(func(threshold.Method) (float64, bool) { return 0, false })
		}
		se, ok := res.Snapshot.Submetric(k.Metric, k.Tags)
		if !ok {
			return nil
		}
		return threshold.SourceFunc(func(m threshold.Method) (float64, bool) {
			v, err := se.Threshold(m.String(), elapsed)
			return v, err == nil
		})
	})
	out := map[string][]summary.Threshold{}
	var unjudged []string
	for _, o := range result.Outcomes {
		th := o.Threshold
		ok := o.Passed
		_, given := res.Trends[th.Key.Name]
		if !o.HasValue && (given || slices.Contains(res.Unsummed, th.Key.Metric)) {
			ok = false
			unjudged = append(unjudged, th.Key.Name+" '"+strings.TrimSpace(th.Expr.Source)+"'")
		}
		out[th.Key.Name] = append(out[th.Key.Name], summary.Threshold{Expr: th.Expr.Source, OK: ok, Value: o.Value})
	}
	return out, unjudged
}
