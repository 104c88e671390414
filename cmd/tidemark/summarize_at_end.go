package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/runsummary"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/remotewrite"
)

// atEndFlags are `tidemark run --summarize-at-end` and its knobs: the last of a
// distributed run's --instances to finish prints the whole run's summary.
type atEndFlags struct {
	enabled bool
	timeout time.Duration
}

// addSummarizeAtEndFlags registers --summarize-at-end on the run command.
func addSummarizeAtEndFlags(cmd *kingpin.CmdClause) *atEndFlags {
	f := &atEndFlags{}
	cmd.Flag("summarize-at-end", "With --instances N: after its own summary, the last instance to finish prints the whole run's summary "+
		"(as tidemark summarize) and exits with the whole run's threshold verdict (99 when it crossed one); the others print their own "+
		"summary and a line naming the instance that prints the run's. Each instance writes tidemark_instance_done and reads the "+
		"others' from the barrier's Prometheus (--barrier.prometheus.url). Also TIDEMARK_SUMMARIZE_AT_END.").
		Envar("TIDEMARK_SUMMARIZE_AT_END").BoolVar(&f.enabled)
	cmd.Flag("summarize-at-end.timeout", "How long an instance waits, after its own end, for all --instances to finish; then the latest of "+
		"those finished prints the summary of what they wrote, saying how many did, and exits 102 unless the run crossed a threshold.").
		Default(runsummary.DefaultLastTimeout.String()).DurationVar(&f.timeout)
	return f
}

// run runs the instance's own test (execute) and then, with --summarize-at-end and
// several instances, takes part in deciding which instance finished last; that one
// prints the run's summary. The own run's error comes first when it carries an exit
// code other than 99 (an interrupted run, a script error); otherwise the last
// instance's exit code is the whole run's verdict, the others' their own.
func (f *atEndFlags) run(ctx context.Context, c *runConfig, g *globals, execute func() error) error {
	if f == nil || !f.enabled || c.dist.instances < 2 {
		return execute()
	}
	logger := g.logger().With("component", "summarize-at-end")
	sc, done, err := f.prepare(c, logger)
	if err != nil {
		return exitcode.Invalid(err)
	}
	since := time.Now()
	own := execute()
	if code := exitcode.Of(own); code != exitcode.OK && code != exitcode.ThresholdsFailed {
		// The run did not end as planned (interrupted, script error): this instance
		// does not wait for the others, and does not count as finished.
		return own
	}
	self := runsummary.Finish{ID: c.outputs.instanceID, At: time.Now()}
	logger.Info("Waiting for the other instances to finish (--summarize-at-end)", "instances", c.dist.instances, "timeout", f.timeout)
	out, err := runsummary.WaitLast(ctx, runsummary.LastConfig{Instances: c.dist.instances, Self: self, Since: since,
		Timeout: f.timeout, Poll: c.dist.pollInterval}, done.announce, done.read, logger)
	if err != nil {
		return errors.Join(own, exitcode.With(exitcode.ExternalAbort, err))
	}
	if !out.Last {
		if out.Complete {
			fmt.Fprintf(g.stdout, "\n  run summary: instance %s finished last and prints the summary of the whole run (--summarize-at-end; "+
				"or: tidemark summarize --testid %s)\n", cmpOrDash(out.Winner.ID), sc.testID)
		} else {
			fmt.Fprintf(g.stdout, "\n  run summary: only %d of %d instances had finished after %s; the latest of them prints what the run wrote "+
				"(or: tidemark summarize --testid %s)\n", out.Seen, c.dist.instances, f.timeout, sc.testID)
			logger.Warn("Not all instances had finished when this one stopped waiting", "finished", out.Seen, "instances", c.dist.instances)
		}
		return own
	}
	var extra []string
	var partial error
	if !out.Complete {
		msg := fmt.Sprintf("only %d of %d instances had finished after --summarize-at-end.timeout %s: this summary covers what the run wrote",
			out.Seen, c.dist.instances, f.timeout)
		extra = append(extra, msg)
		partial = exitcode.With(exitcode.GenericTimeout, errors.New(msg))
	}
	fmt.Fprintf(g.stdout, "\n  ── the whole run: %d instance(s), testid %s (this instance, %s, finished last) ──\n",
		c.dist.instances, sc.testID, cmpOrDash(self.ID))
	verdict := summarizeWith(ctx, sc, done.q, done.where, g, extra)
	if verdict != nil && exitcode.Of(verdict) != exitcode.ThresholdsFailed {
		return errors.Join(fmt.Errorf("summarize the run: %w", verdict), own)
	}
	return errors.Join(verdict, partial)
}

// doneBoard writes and reads the tidemark_instance_done series of the run.
type doneBoard struct {
	announce runsummary.AnnounceDoneFunc
	read     runsummary.DoneFunc
	q        query.Querier
	where    string
}

// prepare checks what --summarize-at-end needs before the run starts: a testid shared
// by the instances, a remote-write endpoint and its query API.
func (f *atEndFlags) prepare(c *runConfig, logger *slog.Logger) (*summarizeConfig, *doneBoard, error) {
	tags, err := parsePairs("tag", c.tags)
	if err != nil {
		return nil, nil, err
	}
	testID := cmp.Or(c.testID, tags[series.LabelTestID])
	if testID == "" {
		return nil, nil, errors.New("--summarize-at-end needs the run's --testid (the same for every instance): the last instance summarizes the run by it")
	}
	rw, err := c.outputs.remoteWriteConfigs(testID, c.outputs.instanceID)
	if err != nil {
		return nil, nil, err
	}
	if len(rw) == 0 {
		return nil, nil, errors.New("--summarize-at-end needs a remote-write URL (--remote-write.url or K6_PROMETHEUS_RW_SERVER_URL): " +
			"the instances learn who finished last, and the last one reads the run, through that backend")
	}
	promURL := c.dist.promURL
	if promURL == "" {
		if promURL, err = queryURLOf(rw[0].URL.URL); err != nil {
			return nil, nil, err
		}
	}
	rt, err := readTransport(rw[0])
	if err != nil {
		return nil, nil, err
	}
	q, err := query.NewPrometheus(promURL, rt, query.WithTimeout(time.Minute))
	if err != nil {
		return nil, nil, fmt.Errorf("--barrier.prometheus.url %s: %w", promURL, err)
	}
	client, err := remotewrite.NewClient(rw[0], series.SnapshotFunc(func() []series.Input { return nil }), logger, prometheus.NewRegistry())
	if err != nil {
		return nil, nil, err
	}
	labels := []series.Label{{Name: series.LabelInstanceID, Value: c.outputs.instanceID}, {Name: series.LabelTestID, Value: testID}}
	expr := runsummary.DoneMetric + "{" + series.LabelTestID + "=" + strconv.Quote(testID) + "}"
	board := &doneBoard{q: q, where: promURL}
	board.announce = func(ctx context.Context, at time.Time) error {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		s := series.Series{Name: runsummary.DoneMetric, Labels: labels, Type: series.Gauge,
			Help:  "When this instance of the run finished, after its final push, in seconds since the epoch.",
			Value: float64(at.UnixMilli()) / 1e3}
		if err := client.Write(ctx, time.Now().UnixMilli(), []series.Series{s}); err != nil {
			return fmt.Errorf("announce the end to %s: %w", rw[0].URL.Redacted(), err)
		}
		return nil
	}
	board.read = func(ctx context.Context) (map[string]time.Time, error) {
		v, _, err := q.Query(ctx, expr, time.Now())
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", expr, err)
		}
		vec, _ := v.(model.Vector)
		out := make(map[string]time.Time, len(vec))
		for _, s := range vec {
			id, x := string(s.Metric[series.LabelInstanceID]), float64(s.Value)
			if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
				continue
			}
			at := time.UnixMilli(int64(math.Round(x * 1e3))).UTC()
			if prev, ok := out[id]; !ok || at.After(prev) {
				out[id] = at
			}
		}
		return out, nil
	}
	sc := &summarizeConfig{testID: testID, file: c.file, env: c.env, modulesDir: c.modulesDir,
		promFlags: &promFlags{prometheusURL: promURL, queryTimeout: time.Minute}, lookback: model.Duration(24 * time.Hour), trendStats: c.k6.trendStats, timeUnit: c.k6.timeUnit,
		noThresholds: c.noThresholds}
	if !c.noSummary {
		// The instance that prints the run's summary writes it to its --summary-export
		// and --summary-file too, in place of its own share's (which its log keeps): a
		// CI job that collects the file gets the whole run's result (docs/distributed.md).
		sc.summaryExport, sc.summaryFile = c.summaryExport, c.summaryFile
	}
	return sc, board, nil
}
