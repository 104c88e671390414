package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/timeline"
)

// TestDatabaseSectionConnections: a run whose database is seen through postgres_exporter
// and whose pods expose HikariCP pools (no RDS) gets a database section with the server's
// connections vs max_connections and the pools per pod and in total, key facts and
// charts on the run's time axis.
func TestDatabaseSectionConnections(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	to := from.Add(5 * time.Minute)
	const res = 15 * time.Second
	gen := func(ls map[string]string, start time.Time, f func(d time.Duration) float64) timeline.Series {
		s := timeline.Series{Labels: ls}
		for t := start; !t.After(to); t = t.Add(res) {
			s.Points = append(s.Points, timeline.Point{T: t, V: f(t.Sub(from))})
		}
		return s
	}
	pod := func(name string) map[string]string {
		return map[string]string{"namespace": "shoong", "pod": name, "pool": "HikariPool-1"}
	}
	server := map[string]string{"instance": "10.2.1.30:9187", "server": "shoong-db:5432"}
	sets := map[string]timeline.Set{
		analysis.QPGConnections: {gen(server, from, func(d time.Duration) float64 {
			if d >= 2*time.Minute {
				return 24
			}
			return 8
		})},
		analysis.QPGMaxConnections: {gen(server, from, func(time.Duration) float64 { return 100 })},
		analysis.QPoolBusy: {
			gen(pod("order-a"), from, func(time.Duration) float64 { return 3 }),
			gen(pod("order-b"), from.Add(time.Minute), func(time.Duration) float64 { return 9 }),
		},
		analysis.QPoolSize: {
			gen(pod("order-a"), from, func(time.Duration) float64 { return 10 }),
			gen(pod("order-b"), from.Add(time.Minute), func(time.Duration) float64 { return 10 }),
		},
		analysis.QPoolPending: {
			gen(pod("order-a"), from, func(time.Duration) float64 { return 0 }),
			gen(pod("order-b"), from.Add(time.Minute), func(d time.Duration) float64 {
				if d >= 3*time.Minute {
					return 2
				}
				return 0
			}),
		},
	}
	tl := &timeline.Timeline{Run: timeline.Window{From: from, To: to}, Step: res, Sets: sets,
		Resolution: map[string]time.Duration{analysis.SourcePostgres: res, analysis.SourcePool: res}}
	r := &correlator.Result{TestID: "story2", Connections: analysis.AnalyzeConnections(tl, analysis.Config{}), Series: sets}
	r.Window.Run = tl.Run
	doc := FromCorrelation(r)

	var db *Section
	for i := range doc.Sections {
		if doc.Sections[i].Title == "Database" {
			db = &doc.Sections[i]
		}
	}
	require.NotNil(t, db, "a database section without RDS")
	require.Len(t, db.Tables, 2, "servers and pools; no RDS table")
	require.Equal(t, [][]string{{"shoong-db:5432", "postgres", "24", "10:02:00", "100", "24.00%"}}, db.Tables[0].Rows)
	require.Equal(t, [][]string{
		{"shoong/order-a (HikariPool-1)", "10", "3", "10:00:00", "30.00% at 10:00:00", "0", "none"},
		{"shoong/order-b (HikariPool-1)", "10", "9", "10:01:00", "90.00% at 10:01:00", "2", "10:03:00 (3m0s into the run)"},
		{"all pods", "20", "12", "10:01:00", "60.00% at 10:01:00", "2", "10:03:00 (3m0s into the run)"},
	}, db.Tables[1].Rows)

	var labels []string
	for _, k := range doc.KeyFacts {
		labels = append(labels, k.Label+" = "+k.Value)
	}
	require.Contains(t, labels, "DB connections peak of max_connections shoong-db:5432 = 24.00%")
	require.Contains(t, labels, "Pool busy share peak (all pods) = 60.00%")

	var titles []string
	for _, c := range doc.Charts {
		titles = append(titles, c.Title)
	}
	require.Equal(t, []string{"Database connections (exporter)", "Pool connections busy", "Pool waiters"}, titles)
	require.Equal(t, []RefLine{{Label: "max_connections", Value: 100}}, doc.Charts[0].Lines)

	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, doc))
	require.Contains(t, md.String(), "Connection pools, per pod and in total")
}
