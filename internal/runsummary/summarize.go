package runsummary

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/slo"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/threshold"
	"github.com/tidemark/tidemark/internal/verdict"
)

// rulesSlack is how long after a run's last k6 sample the state of its server-side
// rules is still read: the live judge writes it once more when the run ends, and a
// pod's grace period is 30 s.
const rulesSlack = time.Minute

// ErrUnjudged is the verdict of a run with thresholds that the series it wrote cannot
// judge (a trend percentile without native histograms): they count as crossed.
var ErrUnjudged = errors.New("some thresholds cannot be judged")

// Options is one summary of a run from the series it wrote.
type Options struct {
	// TestID is the run's testid.
	TestID string
	// Lookback is how far back from now the run's series are searched for.
	Lookback time.Duration
	// Test holds the thresholds and summary options that apply.
	Test *scenario.Test
	// Registry is the script's registry of custom metrics, or nil.
	Registry *metrics.Registry
	// Given tells that Test is the run's file: its stages stand in for a run that
	// wrote no targets, and the run's own thresholds are read only when it is not.
	Given bool
	// NoThresholds skips the verdict.
	NoThresholds bool
	// SummaryExport and SummaryFile are the summary's JSON files, when set.
	SummaryExport, SummaryFile string
	// Extra are lines after the run's line.
	Extra []string
	// Color, StdoutTTY and StderrTTY are the terminal fields of the summary.
	Color, StdoutTTY, StderrTTY bool
}

// Summarize writes the k6 summary of the run o names, read through q (at where), to w
// and its files, with the server-side rules the run was judged by (slo.Recorded), and
// returns its verdict over thresholds and those rules: nil, or an error of kind
// verdict.ErrThresholds (a *threshold.CrossedError, or ErrUnjudged) joined with what
// could not be written.
func Summarize(ctx context.Context, q query.Querier, where string, o Options, w io.Writer, logger *slog.Logger) error {
	test := o.Test
	cat, err := query.LoadFile("")
	if err != nil {
		return err
	}
	win, err := correlator.New(q, cat, logger).FindRun(ctx, correlator.Config{TestID: o.TestID, Lookback: o.Lookback})
	if err != nil {
		return fmt.Errorf("find run %q in %s: %w", o.TestID, where, err)
	}
	res, err := o.collect(ctx, q, win.Run.From, win.Run.To)
	if err != nil {
		return err
	}
	duration := win.Run.To.Sub(win.Run.From)
	in := summary.Input{Test: test, Snapshot: res.Snapshot, Registry: res.Registry, Start: win.Run.From, Duration: duration,
		Trends: res.Trends, Color: o.Color, StdoutTTY: o.StdoutTTY, StderrTTY: o.StderrTTY}
	ids := make([]string, len(res.Instances))
	for i, inst := range res.Instances {
		ids[i] = OrDash(inst.ID)
	}
	in.Extra = append([]string{fmt.Sprintf("run: %s, %d instance(s) (%s), %s to %s (%s), from %s",
		o.TestID, len(ids), strings.Join(ids, ", "), win.Run.From.Format(time.RFC3339), win.Run.To.Format(time.RFC3339), duration.Round(time.Millisecond), where)},
		append(slices.Clone(o.Extra), res.Notes...)...)
	if win.Live {
		in.Extra = append(in.Extra, "the run is still live: this summary covers it up to now")
	}
	sc := StagesConfig{TestID: o.TestID, Lookback: o.Lookback, Schema: res.Schema}
	if o.Given {
		sc.Given, sc.GivenUnit = GivenStages(test)
	}
	if st, err := ComputeStages(ctx, correlator.New(q, K6Catalog(cat), logger), sc); err != nil {
		// The summary and its verdict stand without the STAGES table: say why it is missing.
		logger.Warn("Could not compute the run's stages", "err", err)
		in.Extra = append(in.Extra, "STAGES: not computed: "+err.Error())
	} else {
		in.StageResults, in.StageNote = st.Rows, st.Note
		in.Extra = append(in.Extra, st.Notes...)
	}
	v := o.judge(&in, res, duration)
	if errors.Is(v, verdict.ErrInvalid) {
		return v
	}
	errs := []error{v}
	// The server-side rules it was judged by (run --slo, correlate --slo); their last
	// state is written when the run's judge ends, after its last k6 samples.
	if outs, err := slo.Recorded(ctx, q, o.TestID, win.Run.From, win.Run.To.Add(rulesSlack)); err != nil {
		logger.Warn("Could not read the run's server-side rules", "err", err)
		in.Extra = append(in.Extra, "SERVER-SIDE RULES: not read: "+err.Error())
	} else if len(outs) > 0 {
		in.Rules = slo.SummaryRules(outs, win.Run.From)
		if !o.NoThresholds {
			errs = append(errs, slo.Verdict(outs, win.Run.From))
		}
	}
	if werr := summary.WriteText(w, in); werr != nil {
		errs = append(errs, fmt.Errorf("write the summary: %w", werr))
	}
	return errors.Join(append(errs, WriteFiles(in, o.SummaryExport, o.SummaryFile)...)...)
}

// collect reads the run's values; without a file, the run's own thresholds are read
// in a second pass that computes the trend stats they need.
func (o *Options) collect(ctx context.Context, q query.Querier, from, to time.Time) (*Result, error) {
	var keys []string
	for k := range o.Test.Thresholds {
		keys = append(keys, k)
	}
	stats := slices.Clone(o.Test.SummaryTrendStats)
	for _, ths := range o.Test.Thresholds {
		for _, th := range ths {
			stats = appendStat(stats, th.Expr)
		}
	}
	cfg := Config{TestID: o.TestID, From: from, To: to, Keys: keys, TrendStats: stats, Registry: o.Registry}
	res, err := Collect(ctx, q, cfg)
	if err != nil {
		return nil, err
	}
	again := false
	if !o.Given && len(res.Declared) > 0 {
		o.Test.Thresholds = map[string][]scenario.Threshold{}
		cfg.Keys = cfg.Keys[:0]
		for _, d := range res.Declared {
			o.Test.Thresholds[d.Key] = append(o.Test.Thresholds[d.Key], scenario.Threshold{Expr: d.Expr})
			cfg.Keys = append(cfg.Keys, d.Key)
			cfg.TrendStats = appendStat(cfg.TrendStats, d.Expr)
		}
		again = true
	}
	// The summary breakdown's trend rows are sub-metrics too: their keys come from the
	// counters of the first pass (the rows are the busiest endpoints by http_reqs).
	if t := o.Test; len(t.SummaryBreakdown) > 0 {
		if rows := summary.BreakdownKeys(res.Snapshot, t.SummaryBreakdown, t.BreakdownLimit()); len(rows) > 0 {
			cfg.Keys = append(cfg.Keys, rows...)
			again = true
		}
	}
	if !again {
		return res, nil
	}
	return Collect(ctx, q, cfg)
}

// judge evaluates the thresholds into in and returns the verdict, or thresholds that
// do not parse (verdict.ErrInvalid).
func (o *Options) judge(in *summary.Input, res *Result, duration time.Duration) error {
	if o.NoThresholds || len(o.Test.Thresholds) == 0 {
		return nil
	}
	set, err := o.Test.ThresholdSet(res.TypeFunc())
	if err != nil {
		return verdict.Invalid(err)
	}
	var unjudged []string
	in.Thresholds, unjudged = Evaluate(set, res, duration)
	for _, u := range unjudged {
		in.Extra = append(in.Extra, "threshold "+u+": cannot be judged from the series the run wrote (see above), counted as crossed")
	}
	if err := set.Last().Err(); err != nil || len(unjudged) > 0 {
		if err == nil {
			err = ErrUnjudged
		}
		return verdict.As(verdict.ErrThresholds, err)
	}
	return nil
}

// appendStat appends the aggregation a threshold expression reads ("p(95)<500":
// "p(95)"); an expression that does not parse is reported by the threshold set.
func appendStat(stats []string, expr string) []string {
	e, err := threshold.ParseExpr(expr)
	if err != nil {
		return stats
	}
	return append(stats, e.Method.String())
}

// WriteFiles writes in to the --summary-export and --summary-file paths that are set,
// and returns what failed.
func WriteFiles(in summary.Input, export, file string) []error {
	var errs []error
	for _, out := range []struct {
		path  string
		write func(io.Writer, summary.Input) error
	}{{export, summary.WriteExport}, {file, summary.WriteData}} {
		if out.path != "" {
			if werr := summary.WriteFile(out.path, in, out.write); werr != nil {
				errs = append(errs, fmt.Errorf("write the summary file %s: %w", out.path, werr))
			}
		}
	}
	return errs
}

// OrDash is s, or "-" when it is empty (an instance without an instance_id).
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Evaluate judges set against the run's summed values, as the final evaluation of
// tidemark run does. A threshold whose value the run's series cannot give (a trend
// percentile without native histograms, a rate without counts) is crossed, and listed
// in unjudged: a verdict must not pass on a value nobody computed.
func Evaluate(set *threshold.Set, res *Result, elapsed time.Duration) (map[string][]summary.Threshold, []string) {
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
