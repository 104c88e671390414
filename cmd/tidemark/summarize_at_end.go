package main

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/runsummary"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/testrun"
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

// build is the run's summarize-at-end (runsummary.AtEnd), nil unless it is on with
// several instances. It checks what that needs before the run starts: a testid shared
// by the instances, a remote-write endpoint and its query API.
func (f *atEndFlags) build(o testrun.Options, dist *distributedFlags, out *outputFlags, g *globals, logger *slog.Logger) (*runsummary.AtEnd, error) {
	if !f.enabled || dist.instances < 2 {
		return nil, nil
	}
	logger = logger.With("component", "summarize-at-end")
	tags, err := testrun.ParsePairs("tag", o.Tags)
	if err != nil {
		return nil, err
	}
	testID := cmp.Or(o.TestID, tags[series.LabelTestID])
	if testID == "" {
		return nil, errors.New("--summarize-at-end needs the run's --testid (the same for every instance): the last instance summarizes the run by it")
	}
	rw, err := out.remoteWriteConfigs(testID, out.instanceID)
	if err != nil {
		return nil, err
	}
	if len(rw) == 0 {
		return nil, errors.New("--summarize-at-end needs a remote-write URL (--remote-write.url or K6_PROMETHEUS_RW_SERVER_URL): " +
			"the instances learn who finished last, and the last one reads the run, through that backend")
	}
	be, err := backendOf(rw[0], dist.promURL, logger)
	if err != nil {
		return nil, err
	}
	q, err := be.Querier(time.Minute)
	if err != nil {
		return nil, fmt.Errorf("--barrier.prometheus.url %s: %w", be.QueryURL, err)
	}
	sc := &summarizeConfig{testID: testID, file: o.File, env: o.Env, modulesDir: o.ModulesDir, lookback: model.Duration(24 * time.Hour),
		k6: testrun.Shortcuts{TrendStats: o.Shortcuts.TrendStats, TimeUnit: o.Shortcuts.TimeUnit, Breakdown: o.Shortcuts.Breakdown, BreakdownLimit: o.Shortcuts.BreakdownLimit}, noThresholds: o.NoThresholds}
	if !o.Show.NoSummary {
		// The instance that prints the run's summary writes it to its --summary-export
		// and --summary-file too, in place of its own share's (which its log keeps): a
		// CI job that collects the file gets the whole run's result (docs/distributed.md).
		sc.summaryExport, sc.summaryFile = o.Show.SummaryExport, o.Show.SummaryFile
	}
	return &runsummary.AtEnd{Instances: dist.instances, Self: out.instanceID, Timeout: f.timeout, Poll: dist.pollInterval,
		Writer: be.Writer, Where: be.Where, Querier: q, QueryURL: be.QueryURL, Summary: sc.options(nil, nil, g, nil),
		Load: func() (*scenario.Test, *metrics.Registry, error) { return sc.test(logger) },
		Planned: func(err error) bool {
			code := exitcode.Of(err)
			return code == exitcode.OK || code == exitcode.ThresholdsFailed
		},
	}, nil
}
