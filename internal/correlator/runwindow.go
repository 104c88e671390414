package correlator

import (
	"context"
	"time"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// RunWindow is a run's window as Correlate finds it, without the correlation.
type RunWindow struct {
	// Run is the run's window: from one push interval before its first run-info sample
	// to its last.
	Run timeline.Window
	// From is one of the WindowFrom* values.
	From string
	// Live is set when the run had not ended.
	Live bool
	// PushInterval is the run's push interval, measured from its run-info samples or the
	// catalog's k6 scrape interval.
	PushInterval time.Duration
}

// FindRun finds the window of the run cfg.TestID names (cfg.From, cfg.To and
// cfg.Lookback apply as in Correlate), from its tidemark_run_info series or, for a
// run k6 made, its k6 series. It is what `tidemark summarize` reads a run by.
func (c *Correlator) FindRun(ctx context.Context, cfg Config) (RunWindow, error) {
	if err := cfg.Validate(); err != nil {
		return RunWindow{}, err
	}
	cfg.applyDefaults()
	vars := query.Vars{TestID: cfg.TestID, Selector: cfg.Selector}
	rw, err := c.window(ctx, cfg, vars, c.now().UTC())
	if err != nil {
		return RunWindow{}, err
	}
	return RunWindow{Run: rw.run, From: rw.src, Live: rw.live, PushInterval: rw.k6}, nil
}
