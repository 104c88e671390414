package slo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/verdict"
)

// finalTimeout bounds the final evaluation of every rule: a Prometheus that does not
// answer must not hold the summary (a pod's grace period is 30 s).
const finalTimeout = 15 * time.Second

// LiveConfig configures the judge of a live run.
type LiveConfig struct {
	// Rules are the rules; required.
	Rules *Rules
	// Querier returns the API the rules are evaluated against. It is called when the
	// run starts, after the outputs (the embedded store opens with them).
	Querier func() (query.Querier, error)
	// Namespace is {{ .namespace }}; empty is the run's namespace tag (--tag
	// namespace=shop), else every namespace.
	Namespace string
	// PushInterval is the run's push interval: the shortest {{ .elapsed }}.
	PushInterval time.Duration
	// Logger; nil discards.
	Logger *slog.Logger
}

// Live judges a run by its rules while it goes, as a loadtest.Actor after the outputs:
// every rule is evaluated every interval of its group (default DefaultInterval) from
// the start, and once more at the end (loadtest.Judge). A critical rule that fires
// aborts the run (engine.Abort); an error rule that fired fails it; warnings are
// reported.
type Live struct {
	cfg    LiveConfig
	logger *slog.Logger

	mu       sync.Mutex
	q        query.Querier
	vars     Vars
	start    time.Time
	trackers []*tracker
	eng      *engine.Engine
	// firing is the series of the rules' states (series.SLORuleFiringMetric), pushed
	// with the run's series after each evaluation; nil when the run takes no samples.
	firing   *metrics.Metric
	pusher   metrics.Pusher
	tags     map[*tracker]*metrics.TagSet
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stopOnce sync.Once
}

// NewLive returns the judge of a run.
func NewLive(cfg LiveConfig) *Live {
	l := &Live{cfg: cfg, logger: cfg.Logger}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	l.logger = l.logger.With("component", "slo")
	return l
}

// Start begins the periodic evaluation. It does not block.
func (l *Live) Start(ctx context.Context, p *loadtest.Plan) error {
	q, err := l.cfg.Querier()
	if err != nil {
		return verdict.Invalid(fmt.Errorf("--slo: %w", err))
	}
	l.q, l.eng, l.start = q, p.Engine, time.Now()
	l.vars = Vars{TestID: p.TestID, Namespace: cmp.Or(l.cfg.Namespace, p.RunTags["namespace"])}
	for _, r := range l.cfg.Rules.Rules {
		l.trackers = append(l.trackers, newTracker(r))
	}
	if p.Registry != nil && p.Pusher != nil && p.Engine != nil {
		if l.firing, err = p.Registry.New(series.SLORuleFiringMetric, metrics.Gauge, metrics.Default); err != nil {
			return verdict.Invalid(fmt.Errorf("--slo: %w", err))
		}
		l.pusher, l.tags = p.Pusher, map[*tracker]*metrics.TagSet{}
		pool := metrics.NewTagPool()
		for _, t := range l.trackers {
			l.tags[t] = pool.With(p.Engine.RunTags(), metrics.Tag{Key: "alertname", Value: t.rule.Name},
				metrics.Tag{Key: "severity", Value: t.rule.Severity}, metrics.Tag{Key: "judge", Value: "live"})
		}
	}
	ctx, l.cancel = context.WithCancel(context.WithoutCancel(ctx))
	// One loop per interval, so that every group keeps its own.
	byEvery := map[time.Duration][]*tracker{}
	for _, t := range l.trackers {
		every := t.rule.Every(0)
		byEvery[every] = append(byEvery[every], t)
	}
	for every, ts := range byEvery {
		l.wg.Go(func() { l.loop(ctx, every, ts) })
	}
	l.logger.Info("Judging the run by server-side rules", "rules", len(l.trackers), "files", fmt.Sprint(l.cfg.Rules.Sources))
	return nil
}

func (l *Live) loop(ctx context.Context, every time.Duration, ts []*tracker) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			l.evaluate(ctx, now, every, ts)
		}
	}
}

// evaluate evaluates ts at now; a critical rule that fires aborts the run.
func (l *Live) evaluate(ctx context.Context, now time.Time, every time.Duration, ts []*tracker) {
	v := l.vars
	v.Interval = every
	v.Elapsed = max(now.Sub(l.start), every, l.cfg.PushInterval)
	defer l.push(ts, now)
	for _, t := range ts {
		l.mu.Lock()
		fired, err := t.evaluate(ctx, l.q, now, v)
		out := t.out
		l.mu.Unlock()
		if err != nil {
			if ctx.Err() == nil {
				l.logger.Warn("Failed to evaluate a server-side rule", "rule", t.rule.Name, "err", err)
			}
			continue
		}
		if !fired {
			continue
		}
		l.logger.Warn("Server-side rule fired", "rule", t.rule.Name, "severity", t.rule.Severity, "result", out.Text(l.start))
		if t.rule.Severity == SeverityCritical {
			l.eng.Abort()
		}
	}
}

// Judge stops the periodic evaluation, evaluates every rule once more, and returns
// the rules for the summary and the verdict: verdict.ErrThresholds when an error or
// critical rule fired (a critical one aborted the run), an error when a rule that can
// fail the run could not be evaluated at the end.
func (l *Live) Judge(ctx context.Context, _ engine.Result) ([]summary.Rule, error) {
	l.stop()
	if l.q == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalTimeout)
	defer cancel()
	now := time.Now()
	var errs []error
	for _, t := range l.trackers {
		every := t.rule.Every(0)
		v := l.vars
		v.Interval = every
		v.Elapsed = max(now.Sub(l.start), every, l.cfg.PushInterval)
		if _, err := t.evaluate(ctx, l.q, now, v); err != nil && t.rule.Severity != SeverityWarning && t.out.Evaluations == t.out.Errors {
			errs = append(errs, err)
		}
	}
	l.push(l.trackers, now)
	outs := outcomes(l.trackers)
	rules := SummaryRules(outs, l.start)
	if msg := failedMessage(outs, l.start); msg != "" {
		if slices.ContainsFunc(Failed(outs), func(o Outcome) bool { return o.Severity == SeverityCritical }) {
			msg += "; a critical rule aborted the run"
		}
		return rules, verdict.As(verdict.ErrThresholds, errors.New(msg))
	}
	if len(errs) > 0 {
		return rules, fmt.Errorf("judge the run by its server-side rules: %w", errors.Join(errs...))
	}
	return rules, nil
}

// push writes the state of ts (1 firing, 0 not) at now into the run's series; a rule
// not evaluated yet has none.
func (l *Live) push(ts []*tracker, now time.Time) {
	if l.firing == nil {
		return
	}
	samples := make([]metrics.Sample, 0, len(ts))
	l.mu.Lock()
	for _, t := range ts {
		if n := len(t.out.Points); n > 0 {
			samples = append(samples, metrics.Sample{Metric: l.firing, Tags: l.tags[t], Time: now, Value: t.out.Points[n-1].V})
		}
	}
	l.mu.Unlock()
	l.pusher.Push(samples)
}

// Outcomes returns the rules' outcomes so far.
func (l *Live) Outcomes() []Outcome {
	l.mu.Lock()
	defer l.mu.Unlock()
	return outcomes(l.trackers)
}

// Stop ends the periodic evaluation and waits for it. It is safe to call more than
// once.
func (l *Live) Stop() error {
	l.stop()
	return nil
}

func (l *Live) stop() {
	l.stopOnce.Do(func() {
		if l.cancel != nil {
			l.cancel()
		}
		l.wg.Wait()
	})
}

var (
	_ loadtest.Actor = (*Live)(nil)
	_ loadtest.Judge = (*Live)(nil)
)

// ForRun returns the judge of a run's rule files (none without files) as the run's
// actors. The files are loaded now, so that a bad one ends the command before the run
// starts (verdict.ErrInvalid, exit code 104).
func ForRun(files []string, pushInterval time.Duration, querier func() (query.Querier, error), logger *slog.Logger) ([]loadtest.Actor, error) {
	if len(files) == 0 {
		return nil, nil
	}
	rules, err := Load(files, pushInterval)
	if err != nil {
		return nil, err
	}
	return []loadtest.Actor{NewLive(LiveConfig{Rules: rules, Querier: querier, PushInterval: pushInterval, Logger: logger})}, nil
}
