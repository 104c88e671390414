package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/output"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/webdash"
)

// webDashboardShutdown bounds how long the end of the process waits for the
// dashboard's requests in flight; its event streams end at once.
const webDashboardShutdown = 5 * time.Second

// webDashboardConfig is the web dashboard's configuration when it is on: an
// `--out web-dashboard[=ARG]` (at most one) or K6_WEB_DASHBOARD=true, with k6's
// K6_WEB_DASHBOARD_* variables under ARG's parameters. It is nil when the dashboard
// is off. A bad value is a configuration error (exit code 104).
func webDashboardConfig(outs []string, getenv func(string) string) (*webdash.Config, error) {
	specs, err := output.ParseSpecs(outs, nil)
	if err != nil {
		return nil, err
	}
	var args []string
	for _, s := range specs {
		if s.Kind == output.WebDashboard {
			args = append(args, s.Arg)
		}
	}
	if len(args) > 1 {
		return nil, exitcode.Invalid(fmt.Errorf("--out web-dashboard is given %d times: a run has one web dashboard", len(args)))
	}
	on, err := webdash.Enabled(len(args) == 1, getenv)
	if err != nil {
		return nil, exitcode.Invalid(err)
	}
	if !on {
		return nil, nil
	}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	cfg, err := webdash.ParseConfig(arg, getenv)
	if err != nil {
		return nil, exitcode.Invalid(err)
	}
	return &cfg, nil
}

// webDashboard is the run's web dashboard, nil when it is off; close stops its server
// after the run (and after --linger).
type webDashboard struct{ d *webdash.Dashboard }

// withWebDashboard serves the web dashboard for the run when cfg is set: the page
// listens now (a busy port is exit code 104 before the run), reads the run's aggregate
// store from the sinks and the engine's status from the start, and, as a sink stopped
// with the run's others, writes its export at the end.
func withWebDashboard(lc *loadtest.Config, cfg *webdash.Config, logger *slog.Logger) (*webDashboard, error) {
	if cfg == nil {
		return nil, nil
	}
	logger = logger.With("component", "webdash")
	if len(cfg.Ignored) > 0 {
		logger.Warn("These web-dashboard parameters are not k6's and have no effect; the parameters are host, port, period, open and export",
			"parameters", strings.Join(cfg.Ignored, ","))
	}
	if cfg.Open {
		logger.Warn("The web dashboard does not open a browser (K6_WEB_DASHBOARD_OPEN, open): open its address yourself")
	}
	d, err := webdash.New(*cfg, logger)
	if err != nil {
		return nil, exitcode.Invalid(err)
	}
	if err := d.Listen(); err != nil {
		return nil, exitcode.Invalid(err)
	}
	if u := d.URL(); u != "" {
		logger.Info("Web dashboard listening", "url", u, "period", cfg.Period)
	}
	lc.Sinks = appendSinks(lc.Sinks, func(agg *aggregate.Store, runTags map[string]string) ([]loadtest.Sink, error) {
		d.Attach(agg, runTags[series.LabelTestID], lc.Test.Scenarios)
		return []loadtest.Sink{&webDashboardSink{d: d, export: cfg.Export}}, nil
	})
	started := lc.Started
	lc.Started = func(plan loadtest.Plan) func() {
		var ended func()
		if started != nil {
			ended = started(plan) // waits while --paused holds the start
		}
		d.Started(plan.Engine)
		return ended
	}
	return &webDashboard{d: d}, nil
}

// appendSinks builds first's sinks (when set), then next's, after them.
func appendSinks(first, next loadtest.SinksFunc) loadtest.SinksFunc {
	return func(agg *aggregate.Store, runTags map[string]string) ([]loadtest.Sink, error) {
		var out []loadtest.Sink
		if first != nil {
			s, err := first(agg, runTags)
			if err != nil {
				return nil, err
			}
			out = s
		}
		s, err := next(agg, runTags)
		if err != nil {
			return nil, err
		}
		return append(out, s...), nil
	}
}

// close stops serving the page.
func (w *webDashboard) close() {
	if w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), webDashboardShutdown)
	defer cancel()
	_ = w.d.Close(ctx)
}

// webDashboardSink starts the dashboard's ticker with the run and stops it (final
// state, export) after the run.
type webDashboardSink struct {
	d      *webdash.Dashboard
	export string
}

func (s *webDashboardSink) Start()      { s.d.Start() }
func (s *webDashboardSink) Stop() error { return s.d.Stop() }
func (s *webDashboardSink) SummaryLines() []string {
	var out []string
	if u := s.d.URL(); u != "" {
		out = append(out, "web dashboard: served on "+u)
	}
	if s.export != "" {
		out = append(out, "web dashboard: report written to "+s.export)
	}
	return out
}

var (
	_ loadtest.Sink       = (*webDashboardSink)(nil)
	_ loadtest.Summarizer = (*webDashboardSink)(nil)
)
