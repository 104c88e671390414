package runsummary

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"time"
)

// DoneMetric is the series each instance of a distributed run writes once its own run
// and final push are over, labelled with testid and instance_id; its value is the end
// time in seconds since the epoch (to the millisecond). The instances decide from it,
// without a coordinator, which one finished last and prints the run's summary.
const DoneMetric = "tidemark_instance_done"

// Defaults of LastConfig.
const (
	// DefaultLastTimeout bounds how long an instance waits for the others to finish
	// after its own end: instances that started together end within a graceful stop of
	// each other.
	DefaultLastTimeout = 5 * time.Minute
	// DefaultLastPoll is how often an instance reads who has finished.
	DefaultLastPoll = time.Second
	// reannounceEvery re-sends the done sample while waiting, well inside Prometheus'
	// 5-minute lookback, so that instant queries keep seeing an instance that finished
	// long ago.
	reannounceEvery = time.Minute
)

// Finish is one instance's end.
type Finish struct {
	ID string
	At time.Time
}

// Later reports whether a finished after b in the order every instance applies: the
// later end time (to the millisecond, as written), ties broken by the greater
// instance_id, compared as whole numbers when both are (an Indexed Job's indexes), else
// as strings. No two instances are equal in it, so exactly one is the last.
func Later(a, b Finish) bool {
	at, bt := a.At.UnixMilli(), b.At.UnixMilli()
	if at != bt {
		return at > bt
	}
	ai, aerr := strconv.ParseUint(a.ID, 10, 64)
	bi, berr := strconv.ParseUint(b.ID, 10, 64)
	if aerr == nil && berr == nil && ai != bi {
		return ai > bi
	}
	return a.ID > b.ID
}

// LastOf returns the instance that finished last among done (ok false when done is
// empty).
func LastOf(done map[string]time.Time) (Finish, bool) {
	var last Finish
	ok := false
	for _, id := range slices.Sorted(maps.Keys(done)) {
		f := Finish{ID: id, At: done[id]}
		if !ok || Later(f, last) {
			last, ok = f, true
		}
	}
	return last, ok
}

// LastConfig is one instance's wait to learn whether it finished last.
type LastConfig struct {
	// Instances is N, the number of instances of the run; at least 2.
	Instances int
	// Self is this instance and its end (after its final push).
	Self Finish
	// Since is when this run began: done samples older than it are a previous run's
	// with the same testid and are ignored.
	Since time.Time
	// Timeout bounds the wait for all N (zero: DefaultLastTimeout).
	Timeout time.Duration
	// Poll is how often the others' ends are read (zero: DefaultLastPoll).
	Poll time.Duration
}

// LastOutcome is what an instance learnt.
type LastOutcome struct {
	// Last tells whether this instance finished last and prints the run's summary.
	Last bool
	// Winner is the instance that finished last, as far as this one knows: the
	// latest of those seen (this one included).
	Winner Finish
	// Seen is how many of the N instances had finished when it decided.
	Seen int
	// Complete tells whether all N had finished; false after a timeout.
	Complete bool
}

// AnnounceDoneFunc writes this instance's end as DoneMetric.
type AnnounceDoneFunc func(ctx context.Context, at time.Time) error

// DoneFunc reads the ends every instance of the run has written, by instance_id.
type DoneFunc func(ctx context.Context) (map[string]time.Time, error)

// WaitLast announces cfg.Self's end and reads the others' until it has seen all N
// finish; then every instance knows the same N end times, and Later picks the same one
// for all: exactly one is the last, also when two finish in the same millisecond, and
// each of the others can name it. After cfg.Timeout with fewer than N finished (one
// crashed, or never started), the latest of those seen is the last (Complete false):
// then two instances whose views differ could both be, which the outcome's Seen shows.
func WaitLast(ctx context.Context, cfg LastConfig, announce AnnounceDoneFunc, read DoneFunc, logger *slog.Logger, opts ...LastOption) (LastOutcome, error) {
	if cfg.Instances < 2 {
		return LastOutcome{}, fmt.Errorf("wait for the last instance: instances %d: expected at least 2", cfg.Instances)
	}
	if announce == nil || read == nil {
		return LastOutcome{}, errors.New("wait for the last instance: needs a way to announce the end and to read the others'")
	}
	o := lastOptions{now: time.Now, after: time.After}
	for _, opt := range opts {
		opt(&o)
	}
	timeout, poll := cfg.Timeout, cfg.Poll
	if timeout <= 0 {
		timeout = DefaultLastTimeout
	}
	if poll <= 0 {
		poll = DefaultLastPoll
	}
	self := Finish{ID: cfg.Self.ID, At: cfg.Self.At.Truncate(time.Millisecond)}
	deadline := o.now().Add(timeout)
	var announced time.Time
	seen := map[string]time.Time{self.ID: self.At}
	for {
		if announced.IsZero() || o.now().Sub(announced) >= reannounceEvery {
			if err := announce(ctx, self.At); err != nil {
				logger.Warn("Failed to announce the end of this instance, retrying", "err", err)
			} else {
				announced = o.now()
			}
		}
		if !announced.IsZero() {
			done, err := read(ctx)
			if err != nil {
				logger.Warn("Failed to read which instances have finished, retrying", "err", err)
			}
			for id, at := range done {
				if !at.Before(cfg.Since) {
					seen[id] = at
				}
			}
			seen[self.ID] = self.At
			if len(seen) >= cfg.Instances {
				winner, _ := LastOf(seen)
				return LastOutcome{Last: winner.ID == self.ID, Winner: winner, Seen: len(seen), Complete: true}, nil
			}
		}
		if !o.now().Before(deadline) {
			winner, _ := LastOf(seen)
			return LastOutcome{Last: !announced.IsZero() && winner.ID == self.ID, Winner: winner, Seen: len(seen)}, nil
		}
		select {
		case <-ctx.Done():
			return LastOutcome{}, fmt.Errorf("wait for the other instances to finish: %w", ctx.Err())
		case <-o.after(min(poll, max(deadline.Sub(o.now()), 0))):
		}
	}
}

// LastOption configures optional parts of WaitLast.
type LastOption func(*lastOptions)

type lastOptions struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// WithLastClock replaces the wall clock WaitLast reads and sleeps on (tests).
func WithLastClock(now func() time.Time, after func(time.Duration) <-chan time.Time) LastOption {
	return func(o *lastOptions) { o.now, o.after = now, after }
}
