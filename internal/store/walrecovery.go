package store

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/tsdb/wlog"
)

const (
	// defaultWALRecoveryInterval is how often a store that refuses writes after a failed
	// WAL write checks whether it can reopen its TSDB: often enough that senders, which
	// retry with backoff, lose little time; rarely enough to cost nothing.
	defaultWALRecoveryInterval = 2 * time.Second
	// maxWALRecoveryBackoff bounds the wait after reopens that failed in a row.
	maxWALRecoveryBackoff = time.Minute
	// walRecoveryReserve is free space asked for beyond the WAL's last segments, which
	// the repair may rewrite: room for a new segment's first pages, the lock file and a
	// head chunk file's first writes.
	walRecoveryReserve = 4 << 20
)

// walRecovery reopens the TSDB (liveDB.reopen) after a failed WAL write, once the data
// directory's file system has room for the WAL's repair. It checks every interval,
// waits longer after failed attempts, and logs once per episode.
type walRecovery struct {
	db       *liveDB
	logger   *slog.Logger
	interval time.Duration
	// space returns the free bytes of the data directory's file system and the bytes a
	// reopen needs.
	space func() (free, need uint64, err error)
	now   func() time.Time

	recoveries prometheus.Counter
	failures   prometheus.Counter

	// Episode state, owned by run's goroutine.
	attempts    int
	next        time.Time
	loggedSpace bool
}

func newWALRecovery(db *liveDB, interval time.Duration, logger *slog.Logger, reg prometheus.Registerer) (*walRecovery, error) {
	r := &walRecovery{
		db: db, logger: logger, interval: interval, now: time.Now,
		space: func() (uint64, uint64, error) { return walSpace(db.dir) },
		recoveries: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "store", Name: "wal_recoveries_total",
			Help: "Times the store reopened its TSDB, in-process, after a failed WAL write (disk full) to take writes again.",
		}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "store", Name: "wal_recovery_failures_total",
			Help: "Attempts to reopen the TSDB after a failed WAL write that failed.",
		}),
	}
	refusing := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace, Subsystem: "store", Name: "wal_writes_refused",
		Help: "1 while writes are refused (503) after a failed WAL write, until the TSDB is reopened; 0 otherwise.",
	}, func() float64 {
		if db.refusing() {
			return 1
		}
		return 0
	})
	for _, c := range []prometheus.Collector{r.recoveries, r.failures, refusing} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register store metrics: %w", err)
		}
	}
	return r, nil
}

// run checks every interval until ctx ends.
func (r *walRecovery) run(ctx context.Context) {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.check()
		}
	}
}

// check reopens the TSDB if writes are refused, the last failed attempt is far enough
// behind, and there is room.
func (r *walRecovery) check() {
	if !r.db.refusing() {
		r.attempts, r.next, r.loggedSpace = 0, time.Time{}, false
		return
	}
	now := r.now()
	if now.Before(r.next) {
		return
	}
	free, need, err := r.space()
	if err == nil && free < need {
		if !r.loggedSpace {
			r.loggedSpace = true
			r.logger.Warn("Waiting for free space to reopen the TSDB", "dir", r.db.dir, "free_bytes", free, "need_bytes", need)
		}
		return
	}
	r.attempts++
	if err := r.db.reopen(); err != nil {
		r.failures.Inc()
		wait := min(r.interval<<min(r.attempts, 10), maxWALRecoveryBackoff)
		r.next = now.Add(wait)
		level := slog.LevelDebug
		if r.attempts == 1 {
			level = slog.LevelWarn
		}
		r.logger.Log(context.Background(), level, "Failed to reopen the TSDB after a failed WAL write, will retry", "err", err, "attempt", r.attempts, "retry_in_seconds", wait.Seconds())
		return
	}
	r.recoveries.Inc()
	refused := r.now().Sub(time.Unix(0, r.db.brokenSince.Load()))
	r.logger.Info("Reopened the TSDB after a failed WAL write: writes are accepted again", "dir", r.db.dir, "attempts", r.attempts, "refused_seconds", refused.Seconds())
}

// walSpace returns the free bytes of dir's file system and the bytes a reopen needs: the
// size of the largest WAL or WBL segment (tsdb.Open's repair rewrites a torn segment
// beside the old one) and walRecoveryReserve.
func walSpace(dir string) (free, need uint64, err error) {
	var largest int64
	for _, sub := range []string{"wal", wlog.WblDirName} {
		d := filepath.Join(dir, sub)
		first, last, err := wlog.Segments(d)
		if err != nil {
			continue
		}
		for i := max(first, 0); i <= last; i++ {
			if fi, err := os.Stat(wlog.SegmentName(d, i)); err == nil {
				largest = max(largest, fi.Size())
			}
		}
	}
	free, err = freeBytes(dir)
	return free, uint64(largest) + walRecoveryReserve, err
}
