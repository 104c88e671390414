package analysis

import (
	"bufio"
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

// recording is one exporter's recorded scrapes (scripts/record-db-exporters.sh): at each
// scrape time, the exposition's samples summed per metric name and label set, and what
// the server itself said then.
type recording struct {
	times []time.Time
	truth []float64
	// sums[name][i] is the sum over the metric's series at scrape i; labels[name] are
	// the labels its series share (server).
	sums   map[string][]float64
	labels map[string]map[string]string
}

func readRecording(t *testing.T, path string) recording {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rec := recording{sums: map[string][]float64{}, labels: map[string]map[string]string{}}
	var block strings.Builder
	flush := func() {
		if len(rec.times) == 0 {
			return
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(block.String()))
		require.NoError(t, err, "scrape %d of %s", len(rec.times), path)
		for name, fam := range fams {
			var sum float64
			for _, m := range fam.GetMetric() {
				sum += m.GetGauge().GetValue() + m.GetUntyped().GetValue() + m.GetCounter().GetValue()
				if _, ok := rec.labels[name]; !ok {
					rec.labels[name] = map[string]string{}
				}
				for _, l := range m.GetLabel() {
					if l.GetName() == "server" {
						rec.labels[name]["server"] = l.GetValue()
					}
				}
			}
			for len(rec.sums[name]) < len(rec.times)-1 {
				rec.sums[name] = append(rec.sums[name], 0)
			}
			rec.sums[name] = append(rec.sums[name], sum)
		}
		block.Reset()
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# scrape "); ok {
			flush()
			fields := strings.Fields(rest) // <unix ms> truth <n>
			require.Len(t, fields, 3, line)
			ms, err := strconv.ParseInt(fields[0], 10, 64)
			require.NoError(t, err)
			n, err := strconv.ParseFloat(fields[2], 64)
			require.NoError(t, err)
			rec.times, rec.truth = append(rec.times, time.UnixMilli(ms)), append(rec.truth, n)
			continue
		}
		if len(rec.times) > 0 {
			block.WriteString(line + "\n")
		}
	}
	require.NoError(t, sc.Err())
	flush()
	require.NotEmpty(t, rec.times, "%s has no scrapes", path)
	return rec
}

// series is one metric's per-scrape sums as the catalog's query returns them (summed
// per server), labelled as the exporter's series were, plus instance.
func (r recording) series(t *testing.T, name string) timeline.Series {
	t.Helper()
	vals, ok := r.sums[name]
	require.True(t, ok, "no %s in the recording", name)
	require.Len(t, vals, len(r.times), name)
	ls := map[string]string{"instance": "127.0.0.1:9187"}
	maps.Copy(ls, r.labels[name])
	s := timeline.Series{Labels: ls}
	for i, v := range vals {
		s.Points = append(s.Points, timeline.Point{T: r.times[i], V: v})
	}
	return s
}

func recordedTimeline(r recording, sets map[string]timeline.Set, source string) *timeline.Timeline {
	from, to := r.times[0], r.times[len(r.times)-1]
	return &timeline.Timeline{
		Run: timeline.Window{From: from, To: to}, Step: 2 * time.Second,
		Resolution: map[string]time.Duration{source: 2 * time.Second},
		Sets:       sets,
	}
}

// TestConnectionsOnRecordedExporters reads the facts off what Debian's exporters exposed
// while real servers got 2, 6, 12, 20 and 8 clients (testdata/*-exporter.prom), and
// checks them against what the servers said themselves at each scrape.
func TestConnectionsOnRecordedExporters(t *testing.T) {
	t.Parallel()
	t.Run("postgres_exporter 0.11", func(t *testing.T) {
		t.Parallel()
		rec := readRecording(t, "testdata/postgres-exporter.prom")
		conns, maxc := rec.series(t, "pg_stat_activity_count"), rec.series(t, "pg_settings_max_connections")
		require.Equal(t, "127.0.0.1:55432", conns.Label("server"), "postgres_exporter 0.11 names the server it watches")
		tl := recordedTimeline(rec, map[string]timeline.Set{QPGConnections: {conns}, QPGMaxConnections: {maxc}}, SourcePostgres)
		c := AnalyzeConnections(tl, Config{})
		require.Len(t, c.Servers, 1)
		s := c.Servers[0]
		require.Equal(t, EnginePostgres, s.Engine)
		require.Equal(t, "127.0.0.1:55432", s.Server)
		// The server's own count at each scrape includes the backend of the psql that
		// asked it, gone by the time the exporter was scraped: one more than the exporter's
		// (the exporter's own two backends are in both).
		peak, at := 0.0, time.Time{}
		for i, n := range rec.truth {
			if n-1 > peak {
				peak, at = n-1, rec.times[i]
			}
		}
		require.Equal(t, 22.0, peak, "20 clients and the exporter's two connections")
		require.Equal(t, peak, s.ConnectionsPeak.Value)
		require.Equal(t, at, s.ConnectionsPeak.At)
		require.Equal(t, 50.0, s.MaxConnections.Value, "max_connections as the server was started")
		require.InDelta(t, peak/50, s.PeakShare.Value, 1e-12)
		require.Equal(t, 2.0, s.PeakShare.ResolutionSeconds, "known to within the scrape interval")
	})
	t.Run("mysqld_exporter 0.14", func(t *testing.T) {
		t.Parallel()
		rec := readRecording(t, "testdata/mysqld-exporter.prom")
		conns, maxc := rec.series(t, "mysql_global_status_threads_connected"), rec.series(t, "mysql_global_variables_max_connections")
		tl := recordedTimeline(rec, map[string]timeline.Set{QMySQLConnections: {conns}, QMySQLMaxConnections: {maxc}}, SourceMySQL)
		c := AnalyzeConnections(tl, Config{})
		require.Len(t, c.Servers, 1)
		s := c.Servers[0]
		require.Equal(t, EngineMySQL, s.Engine)
		require.Equal(t, "127.0.0.1:9187", s.Server, "no server label: the exporter's instance")
		// Threads_connected as the server said it counts the asking client; the exporter's
		// scrape counts the exporter's own connection instead: the same number.
		for i, n := range rec.truth {
			v, ok := conns.At(rec.times[i], 0)
			require.True(t, ok)
			require.Equal(t, n, v, "scrape %d", i)
		}
		require.Equal(t, 21.0, s.ConnectionsPeak.Value, "20 clients and the exporter")
		require.Equal(t, 60.0, s.MaxConnections.Value)
		require.InDelta(t, 21.0/60, s.PeakShare.Value, 1e-12)
	})
}

// TestPools checks the pool facts per pod and in total: HikariCP with its own size and
// pending waiters, Prisma sized by params, database/sql waits begun, and pods that come
// and go.
func TestPools(t *testing.T) {
	t.Parallel()
	from, to := t0, t0.Add(10*time.Minute)
	const res = 15 * time.Second
	key := func(pod, pool string) map[string]string { return m("namespace", "shoong", "pod", pod, "pool", pool) }
	busyA := gen(key("order-a", "HikariPool-1"), from, to, res, stepsAt([]time.Duration{0, 2 * time.Minute, 4 * time.Minute}, []float64{2, 10, 3}))
	// order-b starts at 3 min (a scale-up): from then, the total has two pools.
	busyB := gen(key("order-b", "HikariPool-1"), from.Add(3*time.Minute), to, res, stepsAt([]time.Duration{0}, []float64{4}))
	sizeA := gen(key("order-a", "HikariPool-1"), from, to, res, func(time.Duration) float64 { return 10 })
	sizeB := gen(key("order-b", "HikariPool-1"), from.Add(3*time.Minute), to, res, func(time.Duration) float64 { return 10 })
	pendA := gen(key("order-a", "HikariPool-1"), from, to, res, stepsAt([]time.Duration{0, 2*time.Minute + 30*time.Second, 3 * time.Minute}, []float64{0, 6, 0}))
	pendB := gen(key("order-b", "HikariPool-1"), from.Add(3*time.Minute), to, res, func(time.Duration) float64 { return 0 })
	prisma := gen(key("web-a", "prisma"), from, to, res, stepsAt([]time.Duration{0, time.Minute}, []float64{1, 5}))
	goBusy := gen(key("delivery-a", "delivery"), from, to, res, func(time.Duration) float64 { return 1 })
	goSize := gen(key("delivery-a", "delivery"), from, to, res, func(time.Duration) float64 { return 4 })
	goWaits := gen(key("delivery-a", "delivery"), from, to, res, stepsAt([]time.Duration{0, 5 * time.Minute}, []float64{0, 0.5}))
	tl := &timeline.Timeline{
		Run: timeline.Window{From: from, To: to}, Step: res, Resolution: map[string]time.Duration{SourcePool: res},
		Sets: map[string]timeline.Set{
			QPoolBusy: {busyB, prisma, goBusy, busyA}, QPoolSize: {sizeA, sizeB, goSize},
			QPoolPending: {pendA, pendB}, QPoolWaits: {goWaits},
		},
	}
	c := AnalyzeConnections(tl, Config{PoolPerPod: 5})
	require.Empty(t, c.Servers)
	require.Len(t, c.Pools, 4)
	byPod := map[string]Pool{}
	for _, p := range c.Pools {
		byPod[p.Pod] = p
	}
	require.Equal(t, []string{"delivery-a", "order-a", "order-b", "web-a"}, []string{c.Pools[0].Pod, c.Pools[1].Pod, c.Pools[2].Pod, c.Pools[3].Pod}, "ordered by pod")

	a := byPod["order-a"]
	require.Equal(t, "shoong/order-a (HikariPool-1)", a.Name())
	require.Equal(t, 10.0, a.Size.Value)
	require.Equal(t, SizeFromMetric, a.SizeFrom)
	require.Equal(t, 10.0, a.BusyPeak.Value)
	require.Equal(t, from.Add(2*time.Minute), a.BusyPeak.At)
	require.InDelta(t, 1.0, a.BusyShare.Value, 1e-12)
	require.Equal(t, 6.0, a.PendingPeak.Value)
	require.Equal(t, from.Add(2*time.Minute+30*time.Second), a.WaitersFirst.At)
	require.Equal(t, res.Seconds(), a.WaitersFirst.ResolutionSeconds)

	require.Nil(t, byPod["order-b"].WaitersFirst, "none waited")
	require.InDelta(t, 0.4, byPod["order-b"].BusyShare.Value, 1e-12)

	w := byPod["web-a"]
	require.Equal(t, SizeFromParam, w.SizeFrom, "Prisma reports no size: params.db_pool_per_pod")
	require.InDelta(t, 1.0, w.BusyShare.Value, 1e-12)
	require.Nil(t, w.PendingPeak)

	d := byPod["delivery-a"]
	require.InDelta(t, 0.25, d.BusyShare.Value, 1e-12)
	require.Nil(t, d.PendingPeak, "database/sql has no gauge of waiters")
	require.Equal(t, from.Add(5*time.Minute), d.WaitersFirst.At, "its waits begun count")

	tot := c.Total
	require.NotNil(t, tot)
	require.Equal(t, "all pods", tot.Name())
	// The most busy: 3–4 min, order-a 10 + order-b 4 + web-a 5 + delivery 1 = 20 (of 29).
	require.Equal(t, 20.0, tot.BusyPeak.Value)
	require.Equal(t, from.Add(3*time.Minute), tot.BusyPeak.At)
	// The largest share: 2–3 min, before order-b's pool came: 16 busy of 10 + 5 + 4 = 19.
	require.InDelta(t, 16.0/19, tot.BusyShare.Value, 1e-12)
	require.Equal(t, from.Add(2*time.Minute), tot.BusyShare.At)
	require.Equal(t, 19.0, tot.Size.Value, "order-b's pool counts only once the pod is up")
	require.Equal(t, 6.0, tot.PendingPeak.Value)
	require.Equal(t, from.Add(2*time.Minute+30*time.Second), tot.WaitersFirst.At)
}

// TestConnectionsTakeTheDatabaseNote: with the database seen through its exporter, no
// RDS is expected, so its absence is no missing-data note.
func TestConnectionsTakeTheDatabaseNote(t *testing.T) {
	t.Parallel()
	from := t0
	res := 15 * time.Second
	base := func(sets map[string]timeline.Set) *timeline.Timeline {
		return &timeline.Timeline{Run: timeline.Window{From: from, To: from.Add(5 * time.Minute)}, Step: res, Sets: sets}
	}
	hasRDSNote := func(a Analysis) bool {
		for _, n := range a.Notes {
			if n.Section == "database" && n.Level == NoteMissing {
				return true
			}
		}
		return false
	}
	require.True(t, hasRDSNote(Analyze(base(map[string]timeline.Set{}), Config{})))
	pg := gen(m("instance", "10.2.1.30:9187", "server", "db:5432"), from, from.Add(5*time.Minute), res, func(time.Duration) float64 { return 7 })
	a := Analyze(base(map[string]timeline.Set{QPGConnections: {pg}}), Config{})
	require.False(t, hasRDSNote(a))
	require.Len(t, a.Connections.Servers, 1)
	require.Nil(t, a.Connections.Servers[0].PeakShare, "no max_connections, no share")
}
