package runsummary

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/verdict"
)

// Writer writes series to the run's remote-write endpoint (remotewrite.Client).
type Writer interface {
	Write(ctx context.Context, ts int64, batch []series.Series) error
}

// AtEnd is `tidemark run --summarize-at-end`: the last of a distributed run's
// instances to finish prints the whole run's summary.
type AtEnd struct {
	// Instances is N; Self is this instance's instance_id.
	Instances int
	Self      string
	// Timeout bounds the wait for all N; Poll is how often their ends are read.
	Timeout, Poll time.Duration
	// Writer writes this instance's end to the run's first endpoint, named Where.
	Writer Writer
	Where  string
	// Querier reads the run back from QueryURL.
	Querier  query.Querier
	QueryURL string
	// Summary is the whole run's summary, as the last instance prints it; Load gives
	// its Test and Registry then (a script is loaded again only by that instance).
	Summary Options
	Load    func() (*scenario.Test, *metrics.Registry, error)
	// Planned tells whether the instance's own run ended as planned (passed, or
	// crossed thresholds): only then does it wait for the others and count as
	// finished. The command decides it from the error's exit code.
	Planned func(error) bool
}

// Run runs the instance's own test (execute) and then takes part in deciding which
// instance finished last; that one prints the run's summary to w. The own run's error
// comes first when it did not end as planned; otherwise the last instance's error is
// the whole run's verdict (an error of kind verdict.ErrTimeout when not all had
// finished), the others' their own.
func (a *AtEnd) Run(ctx context.Context, execute func() error, w io.Writer, logger *slog.Logger) error {
	since := time.Now()
	own := execute()
	if !a.Planned(own) {
		// The run did not end as planned (interrupted, script error): this instance
		// does not wait for the others, and does not count as finished.
		return own
	}
	self := Finish{ID: a.Self, At: time.Now()}
	logger.Info("Waiting for the other instances to finish (--summarize-at-end)", "instances", a.Instances, "timeout", a.Timeout)
	out, err := WaitLast(ctx, LastConfig{Instances: a.Instances, Self: self, Since: since, Timeout: a.Timeout, Poll: a.Poll},
		a.announce, a.read, logger)
	if err != nil {
		return errors.Join(own, verdict.As(verdict.ErrInterrupted, err))
	}
	testID := a.Summary.TestID
	if !out.Last {
		if out.Complete {
			fmt.Fprintf(w, "\n  run summary: instance %s finished last and prints the summary of the whole run (--summarize-at-end; "+
				"or: tidemark summarize --testid %s)\n", OrDash(out.Winner.ID), testID)
		} else {
			fmt.Fprintf(w, "\n  run summary: only %d of %d instances had finished after %s; the latest of them prints what the run wrote "+
				"(or: tidemark summarize --testid %s)\n", out.Seen, a.Instances, a.Timeout, testID)
			logger.Warn("Not all instances had finished when this one stopped waiting", "finished", out.Seen, "instances", a.Instances)
		}
		return own
	}
	var partial error
	sum := a.Summary
	if !out.Complete {
		msg := fmt.Sprintf("only %d of %d instances had finished after --summarize-at-end.timeout %s: this summary covers what the run wrote",
			out.Seen, a.Instances, a.Timeout)
		sum.Extra = append(sum.Extra, msg)
		partial = verdict.As(verdict.ErrTimeout, errors.New(msg))
	}
	fmt.Fprintf(w, "\n  ── the whole run: %d instance(s), testid %s (this instance, %s, finished last) ──\n",
		a.Instances, testID, OrDash(self.ID))
	v := a.summarize(ctx, sum, w, logger)
	if v != nil && !errors.Is(v, verdict.ErrThresholds) {
		return errors.Join(fmt.Errorf("summarize the run: %w", v), own)
	}
	return errors.Join(v, partial)
}

// summarize prints the whole run's summary and returns its verdict.
func (a *AtEnd) summarize(ctx context.Context, sum Options, w io.Writer, logger *slog.Logger) error {
	test, reg, err := a.Load()
	if err != nil {
		return err
	}
	sum.Test, sum.Registry = test, reg
	return Summarize(ctx, a.Querier, a.QueryURL, sum, w, logger)
}

// announce writes this instance's end as DoneMetric.
func (a *AtEnd) announce(ctx context.Context, at time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	labels := []series.Label{{Name: series.LabelInstanceID, Value: a.Self}, {Name: series.LabelTestID, Value: a.Summary.TestID}}
	s := series.Series{Name: DoneMetric, Labels: labels, Type: series.Gauge,
		Help:  "When this instance of the run finished, after its final push, in seconds since the epoch.",
		Value: float64(at.UnixMilli()) / 1e3}
	if err := a.Writer.Write(ctx, time.Now().UnixMilli(), []series.Series{s}); err != nil {
		return fmt.Errorf("announce the end to %s: %w", a.Where, err)
	}
	return nil
}

// read returns the ends every instance has written, the latest per instance_id.
func (a *AtEnd) read(ctx context.Context) (map[string]time.Time, error) {
	expr := DoneMetric + "{" + series.LabelTestID + "=" + strconv.Quote(a.Summary.TestID) + "}"
	v, _, err := a.Querier.Query(ctx, expr, time.Now())
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
