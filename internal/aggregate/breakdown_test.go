package aggregate

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

// pushRequests pushes n requests of one endpoint: http_reqs, http_req_failed (failed
// ones fail) and http_req_duration (each dur seconds).
func (f *fixture) pushRequests(s *Store, tags *metrics.TagSet, n, failed int, dur float64) {
	var smp []metrics.Sample
	for i := range n {
		fail := 0.0
		if i < failed {
			fail = 1
		}
		smp = append(smp,
			f.sample(f.b.HTTPReqs, tags, float64(i), 1),
			f.sample(f.b.HTTPReqFailed, tags, float64(i), fail),
			f.sample(f.b.HTTPReqDuration, tags, float64(i), dur))
	}
	s.Push(smp)
}

var httpMetrics = []string{"http_req_duration", "http_req_failed", "http_reqs"}

func TestBreakdownGroupsByKeys(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	// Two scenarios hit /a: their series merge into one row per method and status.
	f.pushRequests(s, f.tags("method", "GET", "name", "/a", "scenario", "one", "status", "200"), 4, 0, 0.1)
	f.pushRequests(s, f.tags("method", "GET", "name", "/a", "scenario", "two", "status", "200"), 2, 0, 0.3)
	f.pushRequests(s, f.tags("method", "GET", "name", "/a", "scenario", "one", "status", "500"), 3, 3, 0.5)
	f.pushRequests(s, f.tags("method", "POST", "name", "/b", "scenario", "one", "status", "201"), 5, 1, 0.2)
	// A series without a name tag falls in a row without it.
	f.pushRequests(s, f.tags("method", "GET", "scenario", "one", "status", "200"), 1, 0, 0.4)
	snap := s.Snapshot()

	rows, seen := snap.Breakdown(httpMetrics, []string{"name", "method"}, 0)
	require.Equal(t, 3, seen)
	require.Len(t, rows, 3)
	type got struct {
		tags     string
		reqs     float64
		fails    uint64
		total    uint64
		count    uint64
		min, max float64
	}
	var out []got
	for _, r := range rows {
		d, reqs, failed := r.Series["http_req_duration"], r.Series["http_reqs"], r.Series["http_req_failed"]
		require.Nil(t, d.Tags)
		out = append(out, got{tags: fmt.Sprint(r.Tags), reqs: reqs.Count, fails: failed.Passes, total: failed.Total,
			count: d.Trend.Count(), min: d.Trend.Min(), max: d.Trend.Max()})
		require.Equal(t, reqs.Count, r.Samples)
	}
	// Ordered by tags: the row without name first (method comes before name there).
	require.Equal(t, []got{
		{tags: "[{method GET}]", reqs: 1, fails: 0, total: 1, count: 1, min: 0.4, max: 0.4},
		{tags: "[{name /a} {method GET}]", reqs: 9, fails: 3, total: 9, count: 9, min: 0.1, max: 0.5},
		{tags: "[{name /b} {method POST}]", reqs: 5, fails: 1, total: 5, count: 5, min: 0.2, max: 0.2},
	}, out)

	// The rows' histograms are new ones: the snapshot's stay as they were.
	a, ok := snap.Submetric("http_req_duration", []metrics.Tag{{Key: "scenario", Value: "two"}})
	require.True(t, ok)
	require.Equal(t, uint64(2), a.Trend.Count())
}

func TestBreakdownKeepsTheBusiestRows(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	for i := range 7 {
		// /e0 gets 1 request, /e6 gets 7.
		f.pushRequests(s, f.tags("method", "GET", "name", fmt.Sprintf("/e%d", i), "status", "200"), i+1, 0, 0.1)
	}
	snap := s.Snapshot()
	rows, seen := snap.Breakdown(httpMetrics, []string{"name"}, 3)
	require.Equal(t, 7, seen)
	var names []string
	for _, r := range rows {
		names = append(names, r.Tags[0].Value)
		require.Len(t, r.Series, 3)
	}
	require.Equal(t, []string{"/e4", "/e5", "/e6"}, names)

	// A limit above the combinations keeps them all.
	rows, seen = snap.Breakdown(httpMetrics, []string{"name"}, 50)
	require.Equal(t, 7, seen)
	require.Len(t, rows, 7)
}

func TestBreakdownUnknownKeyDoesNotSplit(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	f.pushRequests(s, f.tags("method", "GET", "name", "/a"), 2, 0, 0.1)
	f.pushRequests(s, f.tags("method", "GET", "name", "/b"), 3, 0, 0.1)
	snap := s.Snapshot()
	rows, seen := snap.Breakdown(httpMetrics, []string{"nosuchtag"}, 0)
	require.Equal(t, 1, seen)
	require.Len(t, rows, 1)
	require.Empty(t, rows[0].Tags)
	require.Equal(t, 5.0, rows[0].Series["http_reqs"].Count)

	// Off: no keys, no rows.
	rows, seen = snap.Breakdown(httpMetrics, nil, 0)
	require.Nil(t, rows)
	require.Zero(t, seen)
	var nilSnap *Snapshot
	rows, _ = nilSnap.Breakdown(httpMetrics, []string{"name"}, 0)
	require.Nil(t, rows)
}

func TestBreakdownMetricWithoutSeriesIsMissing(t *testing.T) {
	t.Parallel()
	f := newFixture()
	s := New()
	// Only http_reqs: a run whose other metrics were dropped.
	s.Push([]metrics.Sample{f.sample(f.b.HTTPReqs, f.tags("name", "/a"), 1, 1)})
	rows, seen := s.Snapshot().Breakdown(httpMetrics, []string{"name"}, 0)
	require.Equal(t, 1, seen)
	require.Len(t, rows, 1)
	_, has := rows[0].Series["http_req_duration"]
	require.False(t, has)
	require.Equal(t, 1.0, rows[0].Series["http_reqs"].Count)
}

// BenchmarkBreakdown times the breakdown of a run of 1,000 endpoints with two statuses
// each (6,000 series of the three HTTP metrics) into the 50 busiest rows by name: the
// work added at the end of a run with --summary-breakdown name.
func BenchmarkBreakdown(b *testing.B) {
	f := newFixture()
	s := New()
	for i := range 1000 {
		for _, st := range []string{"200", "500"} {
			f.pushRequests(s, f.tags("method", "GET", "name", fmt.Sprintf("/e/%d", i), "status", st), 1+i%7, 0, 0.01*float64(1+i%5))
		}
	}
	snap := s.Snapshot()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rows, seen := snap.Breakdown(httpMetrics, []string{"name"}, 50)
		if len(rows) != 50 || seen != 1000 {
			b.Fatalf("rows %d, seen %d", len(rows), seen)
		}
	}
}
