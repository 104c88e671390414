package store

import (
	"context"
	"math"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
	"github.com/stretchr/testify/require"
)

func openTestLiveDB(t *testing.T) *liveDB {
	t.Helper()
	l, err := openLiveDB(t.TempDir(), tsdb.DefaultOptions(), promslog.NewNopLogger(), &tsdbMetrics{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.close()) })
	return l
}

// TestLiveDBRefusesCommitsAfterFailedWALWrite: a commit whose records reached the WAL
// after another write to it had failed is not acknowledged (its records may follow a
// torn one, which the next open's repair drops with everything after it), writes are
// refused from then on, and a reopen takes them again.
func TestLiveDBRefusesCommitsAfterFailedWALWrite(t *testing.T) {
	l := openTestLiveDB(t)
	reg, ok := l.metrics.cur, l.metrics.cur != nil
	require.True(t, ok)
	require.Len(t, reg.failed, 1, "the WAL's writes_failed_total counter is found")
	ctx := context.Background()
	appendOne := func(name string, ref storage.SeriesRef) (storage.SeriesRef, error) {
		app := l.AppenderV2(ctx)
		r, err := app.Append(ref, labels.FromStrings("__name__", name), 0, 1000, 1, nil, nil, storage.AOptions{})
		require.NoError(t, err)
		return r, app.Commit()
	}
	_, err := appendOne("a", 0)
	require.NoError(t, err)
	require.False(t, l.refusing())

	// Another commit's WAL write failed: this one's succeeded in the head but is refused.
	l.cur.failedWrites = func() float64 { return l.cur.baseline + 1 }
	_, err = appendOne("b", 0)
	require.ErrorIs(t, err, errWALFailed)
	require.True(t, l.refusing())

	require.NoError(t, l.reopen())
	require.False(t, l.refusing())
	_, err = appendOne("c", 0)
	require.NoError(t, err)
}

// TestLiveDBReopenForgetsSeriesRefs: a series reference from before a reopen (a scrape
// loop caches them) is not passed to the new head, whose series are numbered anew from
// the WAL; the series is looked up by its labels instead.
func TestLiveDBReopenForgetsSeriesRefs(t *testing.T) {
	l := openTestLiveDB(t)
	ctx := context.Background()
	app := l.AppenderV2(ctx)
	refA, err := app.Append(0, labels.FromStrings("__name__", "a"), 0, 1000, 1, nil, nil, storage.AOptions{})
	require.NoError(t, err)
	require.NoError(t, app.Commit())

	require.NoError(t, l.reopen())
	app = l.AppenderV2(ctx)
	refB, err := app.Append(refA, labels.FromStrings("__name__", "b"), 0, 2000, 2, nil, nil, storage.AOptions{})
	require.NoError(t, err)
	require.NotEqual(t, refA, refB)
	require.NoError(t, app.Commit())
	// The new reference works within its generation.
	app = l.AppenderV2(ctx)
	again, err := app.Append(refB, labels.FromStrings("__name__", "b"), 0, 3000, 3, nil, nil, storage.AOptions{})
	require.NoError(t, err)
	require.Equal(t, refB, again)
	require.NoError(t, app.Commit())

	q, err := l.Querier(math.MinInt64, math.MaxInt64)
	require.NoError(t, err)
	defer func() { require.NoError(t, q.Close()) }()
	for name, want := range map[string]int{"a": 1, "b": 2} {
		ss := q.Select(ctx, false, nil, labels.MustNewMatcher(labels.MatchEqual, "__name__", name))
		require.True(t, ss.Next())
		n := 0
		it := ss.At().Iterator(nil)
		for it.Next() != 0 {
			n++
		}
		require.Equal(t, want, n, name)
		require.False(t, ss.Next())
	}
}
