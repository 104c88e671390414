package barrier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/verdict"
)

// ReadyMetric is the series each instance writes when it is ready to start, labelled
// with testid and instance_id; its value is the ready time in seconds since the epoch.
const ReadyMetric = "tidemark_instance_ready"

// Defaults of Config.
const (
	// DefaultTimeout is how long an instance waits for the others: long enough for a
	// Job's pods to be scheduled and pull their image on a busy cluster.
	DefaultTimeout = 5 * time.Minute
	// DefaultPollInterval is how often an instance reads who is ready: N pollers make
	// N/interval queries per second (docs/distributed.md).
	DefaultPollInterval = time.Second
	// DefaultMargin is added to the last ready time: it must cover the last instance's
	// remote write reaching the backend, one poll interval and one query, so that every
	// instance has seen all N before the start instant.
	DefaultMargin = 3 * time.Second
	// announceEvery re-sends the ready sample while waiting, well inside Prometheus'
	// 5-minute lookback, so that an instance that became ready long ago stays visible to
	// instant queries.
	announceEvery = time.Minute
)

// Config is one instance's barrier.
type Config struct {
	// Instances is N, the number of instances that must be ready; at least 1.
	Instances int
	// InstanceID is this instance's instance_id label.
	InstanceID string
	// TestID is the run's testid label, shared by all instances.
	TestID string
	// StartAt, when set, is the start instant given by the user: no instance announces
	// or polls, each waits until then.
	StartAt time.Time
	// Timeout bounds the wait for all N to be ready (zero: DefaultTimeout).
	Timeout time.Duration
	// PollInterval is how often the others' readiness is read (zero:
	// DefaultPollInterval).
	PollInterval time.Duration
	// Margin is added to the last ready time before rounding up (zero: DefaultMargin).
	Margin time.Duration
}

// Validate checks the numbers.
func (c Config) Validate() error {
	var errs []error
	if c.Instances < 1 {
		errs = append(errs, fmt.Errorf("instances %d: expected at least 1", c.Instances))
	}
	if c.StartAt.IsZero() && c.Instances > 1 && c.TestID == "" {
		errs = append(errs, errors.New("no testid: the instances find each other by it (set --testid)"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"timeout", c.Timeout}, {"poll interval", c.PollInterval}, {"margin", c.Margin}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s %s: expected a positive duration", d.name, d.v))
		}
	}
	if c.poll() >= c.margin() {
		errs = append(errs, fmt.Errorf("margin %s: expected more than the poll interval %s, or instances that see the last one late start late",
			c.margin(), c.poll()))
	}
	return errors.Join(errs...)
}

func (c Config) timeout() time.Duration { return orDefault(c.Timeout, DefaultTimeout) }
func (c Config) poll() time.Duration    { return orDefault(c.PollInterval, DefaultPollInterval) }
func (c Config) margin() time.Duration  { return orDefault(c.Margin, DefaultMargin) }

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// StartInstant is the start every instance computes from the same ready times: the
// latest ready time plus margin, rounded up to a whole second. It depends on nothing
// but its arguments, so instances that read the same values agree on it.
func StartInstant(ready []time.Time, margin time.Duration) time.Time {
	var last time.Time
	for _, r := range ready {
		if r.After(last) {
			last = r
		}
	}
	t := last.Add(margin)
	if r := t.Truncate(time.Second); !r.Equal(t) {
		t = r.Add(time.Second)
	}
	return t.UTC()
}

// AnnounceFunc tells the other instances that this one became ready at readyAt. It is
// called again while the instance waits; each call must carry the same readyAt.
type AnnounceFunc func(ctx context.Context, readyAt time.Time) error

// Source reads who is ready.
type Source interface {
	// Ready returns the ready time announced by every instance of testID, by
	// instance_id.
	Ready(ctx context.Context, testID string) (map[string]time.Time, error)
}

// SourceFunc is a Source in one function.
type SourceFunc func(ctx context.Context, testID string) (map[string]time.Time, error)

// Ready calls f.
func (f SourceFunc) Ready(ctx context.Context, testID string) (map[string]time.Time, error) {
	return f(ctx, testID)
}

var _ Source = SourceFunc(nil)

// Clock is the wall clock the barrier reads and sleeps on.
type Clock interface {
	Now() time.Time
	// After delivers once d has passed.
	After(d time.Duration) <-chan time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Option configures optional parts of a Barrier.
type Option func(*Barrier)

// WithClock replaces the system clock (tests).
func WithClock(c Clock) Option { return func(b *Barrier) { b.clock = c } }

// Barrier is one instance's wait for the start.
type Barrier struct {
	cfg      Config
	announce AnnounceFunc
	source   Source
	logger   *slog.Logger
	clock    Clock
}

// New returns the barrier of one instance. announce and source may be nil when
// cfg.StartAt is set or cfg.Instances is 1.
func New(cfg Config, announce AnnounceFunc, source Source, logger *slog.Logger, opts ...Option) (*Barrier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.StartAt.IsZero() && cfg.Instances > 1 && (announce == nil || source == nil) {
		return nil, errors.New("a barrier of several instances needs a way to announce readiness and to read it")
	}
	b := &Barrier{cfg: cfg, announce: announce, source: source, logger: logger, clock: systemClock{}}
	for _, o := range opts {
		o(b)
	}
	return b, nil
}

// TimeoutError is a barrier that gave up: fewer than all instances were ready in time.
type TimeoutError struct {
	Ready, Instances int
	Timeout          time.Duration
	TestID           string
	// Seen are the instance ids that were ready, sorted.
	Seen []string
	// Last is the last error reading readiness, if any.
	Last error
}

// Error says how many were ready, which, and what to check.
func (e *TimeoutError) Error() string {
	seen := "none"
	if len(e.Seen) > 0 {
		seen = "instance_id " + strings.Join(e.Seen, ", ")
	}
	msg := fmt.Sprintf("start barrier: %d of %d instances ready after %s (testid %q; ready: %s): "+
		"check that every instance was started with the same --testid and --instances and can reach the backend, or raise --start-timeout",
		e.Ready, e.Instances, e.Timeout, e.TestID, seen)
	if e.Last != nil {
		msg += "; last read failed: " + e.Last.Error()
	}
	return msg
}

// Unwrap returns the last read error.
func (e *TimeoutError) Unwrap() error { return e.Last }

// VerdictKind says the barrier's time limit ran out: not all instances being ready in
// time is neither a bad configuration nor an interruption (the command exits 102).
func (e *TimeoutError) VerdictKind() error { return verdict.ErrTimeout }

// Wait blocks until the start instant and returns it: cfg.StartAt when set (at once,
// with a warning, when that is past), else the instant computed from all instances'
// ready times. A single instance without StartAt starts at once. It returns a
// *TimeoutError when not all were ready within the timeout, and ctx's error when ctx
// ends first.
func (b *Barrier) Wait(ctx context.Context) (time.Time, error) {
	if !b.cfg.StartAt.IsZero() {
		return b.cfg.StartAt, b.sleepUntil(ctx, b.cfg.StartAt)
	}
	if b.cfg.Instances <= 1 {
		return b.clock.Now(), nil
	}
	start, err := b.await(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return start, b.sleepUntil(ctx, start)
}

// await announces this instance and polls until all are ready; it returns the start
// instant.
func (b *Barrier) await(ctx context.Context) (time.Time, error) {
	ready := b.clock.Now()
	deadline := ready.Add(b.cfg.timeout())
	// An announcement older than anything this run could have made (a previous run
	// under the same testid, still within the lookback) is ignored.
	oldest := ready.Add(-b.cfg.timeout())
	var announced time.Time
	var last error
	var seen []string
	b.logger.Info("Waiting for every instance to be ready", "instances", b.cfg.Instances, "instance_id", b.cfg.InstanceID,
		"testid", b.cfg.TestID, "timeout_seconds", b.cfg.timeout().Seconds())
	for {
		now := b.clock.Now()
		if announced.IsZero() || now.Sub(announced) >= announceEvery {
			if err := b.announce(ctx, ready); err != nil {
				b.logger.Warn("Failed to announce readiness, retrying", "err", err)
				last = err
			} else {
				announced = now
			}
		}
		got, err := b.source.Ready(ctx, b.cfg.TestID)
		if err != nil {
			b.logger.Warn("Failed to read which instances are ready, retrying", "err", err)
			last = err
		} else {
			var times []time.Time
			seen = seen[:0]
			for _, id := range slices.Sorted(maps.Keys(got)) {
				if got[id].Before(oldest) {
					continue
				}
				seen = append(seen, id)
				times = append(times, got[id])
			}
			if len(seen) >= b.cfg.Instances {
				if len(seen) > b.cfg.Instances {
					b.logger.Warn("More instances are ready than --instances says; is the testid shared with another run?",
						"instances", b.cfg.Instances, "ready", len(seen))
				}
				start := StartInstant(times, b.cfg.margin())
				b.logger.Info("All instances ready; starting together", "start_at", start.Format(time.RFC3339Nano),
					"instances", b.cfg.Instances, "waited_seconds", now.Sub(ready).Seconds())
				return start, nil
			}
			b.logger.Debug("Instances ready", "ready", len(seen), "instances", b.cfg.Instances)
		}
		if !now.Before(deadline) {
			return time.Time{}, &TimeoutError{Ready: len(seen), Instances: b.cfg.Instances, Timeout: b.cfg.timeout(),
				TestID: b.cfg.TestID, Seen: slices.Clone(seen), Last: last}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("wait for every instance to be ready: %w", ctx.Err())
		case <-b.clock.After(min(b.cfg.poll(), deadline.Sub(now))):
		}
	}
}

// sleepUntil waits until t by the wall clock; a t already past is logged and returns
// at once.
func (b *Barrier) sleepUntil(ctx context.Context, t time.Time) error {
	d := t.Sub(b.clock.Now())
	if d <= 0 {
		if d < -time.Second/10 {
			b.logger.Warn("The start instant has passed; starting now", "start_at", t.Format(time.RFC3339Nano), "late_seconds", -d.Seconds())
		}
		return nil
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("wait for the start at %s: %w", t.Format(time.RFC3339), ctx.Err())
	case <-b.clock.After(d):
		return nil
	}
}
