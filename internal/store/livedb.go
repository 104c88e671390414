package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/prometheus/model/exemplar"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
)

// errWALFailed refuses a commit that reached the WAL after a write to it had failed:
// the WAL may end in a torn record then, and the repair of the next tsdb.Open drops
// everything written after that record.
var errWALFailed = errors.New("a write to the WAL failed (disk full?): the TSDB must be reopened before writes are accepted again")

// errReopening answers storage calls made while the TSDB is being reopened.
var errReopening = errors.New("the TSDB is being reopened after a failed WAL write: retry")

// liveDB is the TSDB as the engine, the API, the remote-write receiver, the fast write
// path and the scrape manager see it. It lets the store reopen the TSDB in-process after a
// WAL write failed (walRecovery), which is what repairs a torn WAL.
//
// Why: when a write to the WAL fails for want of space in the middle of a record that
// spans pages, the record's first part is on disk and the rest never follows; the WAL
// goes on after it, and the repair of the next tsdb.Open cuts the WAL at that record,
// dropping every record after it. So liveDB acknowledges no commit that reached the WAL
// after a failed write (it reads the WAL's and WBL's writes_failed_total counters after
// every commit: the WAL counts a failure before it lets the next record in), refuses
// writes from the first failure on, and reopens the TSDB (whose repair then drops only
// unacknowledged records) to take writes again.
//
// Each tsdb.Open is a generation. Queriers and appenders hold their generation until
// they are closed or committed; a reopen waits for them, so that no reader or appender
// outlives its DB. Series references are tagged with the generation (see tagRef).
type liveDB struct {
	dir     string
	opts    *tsdb.Options
	logger  *slog.Logger
	metrics *tsdbMetrics

	mu     sync.RWMutex
	cur    *generation // nil while reopening, or when reopening failed.
	nextID uint64      // the id of the next generation.
	closed bool

	// broken is set by the first commit that sees a failed WAL write in the current
	// generation, and cleared when a new generation is in place.
	broken      atomic.Bool
	brokenSince atomic.Int64 // unix nanoseconds
	now         func() time.Time
}

// generation is one tsdb.Open of the data directory.
type generation struct {
	db *tsdb.DB
	id uint64
	// users counts the queriers and appenders not yet closed or committed.
	users sync.WaitGroup
	// failedWrites returns the writes that failed in the WAL and the WBL since open;
	// baseline is its value when the generation was put in place.
	failedWrites func() float64
	baseline     float64
}

// openLiveDB opens the TSDB in dir; its metrics go to metrics, registered by the caller.
func openLiveDB(dir string, opts *tsdb.Options, logger *slog.Logger, metrics *tsdbMetrics) (*liveDB, error) {
	l := &liveDB{dir: dir, opts: opts, logger: logger, metrics: metrics, now: time.Now}
	g, err := l.open()
	if err != nil {
		return nil, err
	}
	l.cur = g
	return l, nil
}

// open opens a new generation and makes its metrics the exposed ones.
func (l *liveDB) open() (*generation, error) {
	reg := newGenRegistry()
	db, err := tsdb.Open(l.dir, l.logger, reg, l.opts, nil)
	if err != nil {
		return nil, err
	}
	g := &generation{db: db, id: l.nextID, failedWrites: reg.failedWrites}
	g.baseline = g.failedWrites()
	l.nextID++
	l.metrics.use(reg)
	return g, nil
}

// acquire returns the current generation, counted as used until the caller calls
// g.users.Done.
func (l *liveDB) acquire() (*generation, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, errors.New("the store is closed")
	}
	if l.cur == nil {
		return nil, errReopening
	}
	l.cur.users.Add(1)
	return l.cur, nil
}

// refusing reports whether writes are refused: from a failed WAL write until the TSDB
// has been reopened.
func (l *liveDB) refusing() bool { return l.broken.Load() }

// markBroken records that a commit saw a failed WAL write; cause is its error, if any.
// It logs once per episode.
func (l *liveDB) markBroken(cause error) {
	if !l.broken.CompareAndSwap(false, true) {
		return
	}
	l.brokenSince.Store(l.now().UnixNano())
	args := []any{"dir", l.dir}
	if cause != nil {
		args = append(args, "err", cause)
	}
	l.logger.Error("Failed to write the WAL: writes are refused (503) until the TSDB is reopened, which the store does by itself once there is free space", args...)
}

// reopen closes the current generation, once its queriers and appenders are done, and
// opens the next: tsdb.Open repairs the WAL. Writes are refused meanwhile; storage calls
// fail with errReopening. When the open fails, there is no generation until the next
// reopen succeeds.
func (l *liveDB) reopen() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errors.New("the store is closed")
	}
	old := l.cur
	l.cur = nil
	l.mu.Unlock()
	if old != nil {
		old.users.Wait()
		// The WAL's last page is flushed here, and may fail to be if space ran out
		// again; the records it holds were never acknowledged.
		if err := old.db.Close(); err != nil {
			l.logger.Warn("Closed the TSDB with errors before reopening it", "err", err)
		}
	}
	g, err := l.open()
	if err != nil {
		return fmt.Errorf("reopen tsdb %q: %w", l.dir, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur = g
	l.broken.Store(false)
	return nil
}

// close closes the current generation. Later calls fail.
func (l *liveDB) close() error {
	l.mu.Lock()
	g := l.cur
	l.cur, l.closed = nil, true
	l.mu.Unlock()
	if g == nil {
		return nil
	}
	return g.db.Close()
}

// current returns the DB of the current generation, nil while there is none. The
// caller must not keep it past a reopen.
func (l *liveDB) current() *tsdb.DB {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.cur == nil {
		return nil
	}
	return l.cur.db
}

// Querier implements storage.Queryable.
func (l *liveDB) Querier(mint, maxt int64) (storage.Querier, error) {
	g, err := l.acquire()
	if err != nil {
		return nil, err
	}
	q, err := g.db.Querier(mint, maxt)
	if err != nil {
		g.users.Done()
		return nil, err
	}
	return &genQuerier{Querier: q, done: g.users.Done}, nil
}

// ChunkQuerier implements storage.ChunkQueryable.
func (l *liveDB) ChunkQuerier(mint, maxt int64) (storage.ChunkQuerier, error) {
	g, err := l.acquire()
	if err != nil {
		return nil, err
	}
	q, err := g.db.ChunkQuerier(mint, maxt)
	if err != nil {
		g.users.Done()
		return nil, err
	}
	return &genChunkQuerier{ChunkQuerier: q, done: g.users.Done}, nil
}

// ExemplarQuerier implements storage.ExemplarQueryable. An exemplar querier has no Close;
// it reads the in-memory exemplar buffer, which stays valid after its DB is closed.
func (l *liveDB) ExemplarQuerier(ctx context.Context) (storage.ExemplarQuerier, error) {
	g, err := l.acquire()
	if err != nil {
		return nil, err
	}
	defer g.users.Done()
	return g.db.ExemplarQuerier(ctx)
}

// AppenderV2 implements storage.AppendableV2. The appender holds its generation until it
// commits or rolls back.
func (l *liveDB) AppenderV2(ctx context.Context) storage.AppenderV2 {
	g, err := l.acquire()
	if err != nil {
		return errAppender{err: err}
	}
	app, ok := g.db.AppenderV2(ctx).(storage.ExemplarAppenderV2)
	if !ok {
		// The head appender always takes exemplars.
		g.users.Done()
		return errAppender{err: errors.New("the TSDB appender does not take exemplars")}
	}
	return &genAppender{ExemplarAppenderV2: app, l: l, g: g}
}

// Series references are tagged with their generation in their top bits: after a reopen,
// a reference from the old head (kept by a scrape loop's cache) could name another
// series in the new one, whose series are numbered again from the WAL. A reference of
// another generation is passed as 0, so the head looks the series up by its labels.
// Head series references count up from 1 and never reach 2^48.
const refGenShift = 48

func (g *generation) tagRef(ref storage.SeriesRef) storage.SeriesRef {
	if ref == 0 || uint64(ref)>>refGenShift != 0 {
		return 0 // None, or not ours to tag: the caller will look it up by labels.
	}
	return ref | storage.SeriesRef((g.id&0xffff)<<refGenShift)
}

func (g *generation) untagRef(ref storage.SeriesRef) storage.SeriesRef {
	if uint64(ref)>>refGenShift != g.id&0xffff {
		return 0
	}
	return ref & (1<<refGenShift - 1)
}

// genAppender appends to one generation and refuses to acknowledge a commit when a WAL
// write has failed in it.
type genAppender struct {
	storage.ExemplarAppenderV2
	l    *liveDB
	g    *generation
	done bool
}

// Append implements storage.AppenderV2.
func (a *genAppender) Append(ref storage.SeriesRef, ls labels.Labels, st, t int64, v float64, h *histogram.Histogram, fh *histogram.FloatHistogram, opts storage.AOptions) (storage.SeriesRef, error) {
	r, err := a.ExemplarAppenderV2.Append(a.g.untagRef(ref), ls, st, t, v, h, fh, opts)
	return a.g.tagRef(r), err
}

// AppendExemplars implements storage.ExemplarAppenderV2.
func (a *genAppender) AppendExemplars(ref storage.SeriesRef, ls labels.Labels, es []exemplar.Exemplar) (storage.SeriesRef, error) {
	r, err := a.ExemplarAppenderV2.AppendExemplars(a.g.untagRef(ref), ls, es)
	return a.g.tagRef(r), err
}

// Commit commits, and fails when a WAL write has failed in this generation, before or
// during this commit: its records may follow a torn one.
func (a *genAppender) Commit() error { return a.finish(a.ExemplarAppenderV2.Commit()) }

// Rollback rolls back (the head logs the appender's new series then).
func (a *genAppender) Rollback() error { return a.finish(a.ExemplarAppenderV2.Rollback()) }

func (a *genAppender) finish(err error) error {
	if a.done {
		return err
	}
	a.done = true
	// ENOSPC too, should the counters not be found (their names are Prometheus').
	failed := a.g.failedWrites() > a.g.baseline || errors.Is(err, syscall.ENOSPC)
	a.g.users.Done()
	if !failed {
		return err
	}
	a.l.markBroken(err)
	if err == nil {
		err = errWALFailed
	}
	return err
}

// errAppender fails every append and commit with err.
type errAppender struct{ err error }

func (a errAppender) Append(storage.SeriesRef, labels.Labels, int64, int64, float64, *histogram.Histogram, *histogram.FloatHistogram, storage.AOptions) (storage.SeriesRef, error) {
	return 0, a.err
}

func (a errAppender) AppendExemplars(storage.SeriesRef, labels.Labels, []exemplar.Exemplar) (storage.SeriesRef, error) {
	return 0, a.err
}
func (a errAppender) Commit() error   { return a.err }
func (a errAppender) Rollback() error { return nil }

// genQuerier releases its generation on Close.
type genQuerier struct {
	storage.Querier
	once sync.Once
	done func()
}

// Close implements storage.Querier.
func (q *genQuerier) Close() error {
	err := q.Querier.Close()
	q.once.Do(q.done)
	return err
}

// genChunkQuerier releases its generation on Close.
type genChunkQuerier struct {
	storage.ChunkQuerier
	once sync.Once
	done func()
}

// Close implements storage.ChunkQuerier.
func (q *genChunkQuerier) Close() error {
	err := q.ChunkQuerier.Close()
	q.once.Do(q.done)
	return err
}

var (
	_ storage.SampleAndChunkQueryable = (*liveDB)(nil)
	_ storage.ExemplarQueryable       = (*liveDB)(nil)
	_ storage.AppendableV2            = (*liveDB)(nil)
	_ storage.ExemplarAppenderV2      = (*genAppender)(nil)
	_ storage.ExemplarAppenderV2      = errAppender{}
)
