package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sampleDocument is a small story-1-shaped report: a spike, HPA steps and a gap.
func sampleDocument() *Document {
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	to := from.Add(10 * time.Minute)
	var load, current, ready, thr []Point
	for s := 0; s <= 600; s += 15 {
		t := from.Add(time.Duration(s) * time.Second)
		rps := 10.0
		if s >= 120 && s < 420 {
			rps = 50
		}
		cur, rdy := 2.0, 2.0
		switch {
		case s >= 150 && s < 165:
			cur, rdy = 4, 2
		case s >= 165 && s < 240:
			cur, rdy = 4, 4
		case s >= 240 && s < 270:
			cur, rdy = 5, 4
		case s >= 270:
			cur, rdy = 5, 5
		}
		v := 0.02
		if s == 300 {
			v = math.NaN() // a scrape gap
		}
		load = append(load, Point{t, rps})
		current = append(current, Point{t, cur})
		ready = append(ready, Point{t, rdy})
		thr = append(thr, Point{t, v})
	}
	return &Document{
		Title:     "Run spike-20261130-100000",
		Subtitle:  "namespace shoong · 10 → 50 RPS spike",
		Generated: to.Add(time.Minute),
		Window:    Window{From: from, To: to},
		KeyFacts: []KeyFact{
			{Label: "HPA reaction", Value: "30 s", Detail: "±15 s, kube-state-metrics scrape interval"},
			{Label: "Start-up gap order 4→5", Value: "30 s"},
		},
		Charts: []Chart{
			{Title: "Load", Unit: "req/s", Series: []Series{{Name: "achieved", Points: load}}},
			{Title: "Replicas order", Unit: "replicas", Series: []Series{
				{Name: "current", Points: current, Step: true}, {Name: "ready", Points: ready, Step: true},
			}, Lines: []RefLine{{Label: "max", Value: 5}}},
			{Title: "Throttled", Unit: "ratio", Series: []Series{{Name: "order", Points: thr}}},
		},
		Events: []Event{
			{Time: from.Add(150 * time.Second), Kind: "scale_up", Label: "order 2→4"},
			{Time: from.Add(120 * time.Second), Kind: "load_step", Label: "load 10→50 req/s"},
		},
		Sections: []Section{{
			Title: "Autoscaling",
			Tables: []Table{{
				Title:   "HPA current → ready",
				Columns: []string{"HPA", "Step", "Gap"},
				Rows:    [][]string{{"order", "2→4", "15 s"}, {"order", "4→5"}},
			}},
		}},
		Notes: []string{"no RDS series in the window — is the exporter scraped?"},
	}
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteMarkdown(&buf, sampleDocument()))
	out := buf.String()
	for _, want := range []string{
		"# Run spike-20261130-100000\n",
		"Window: 2026-11-30 10:00:00 → 2026-11-30 10:10:00 (10m0s), times in UTC.",
		"## Notes\n\n- no RDS series in the window — is the exporter scraped?\n",
		"| HPA reaction | 30 s | ±15 s, kube-state-metrics scrape interval |",
		// Events are sorted by time with their offset from the window start.
		"| 2026-11-30 10:02:00 | +2:00 | load 10→50 req/s |\n| 2026-11-30 10:02:30 | +2:30 | order 2→4 |",
		"### HPA current → ready",
		"| order | 4→5 |  |", // short rows are padded
		"| Replicas order | ready | 2 replicas | 5 replicas |",
		"| Throttled | order | 0.02 ratio | 0.02 ratio |", // NaN is skipped, not a number
	} {
		require.Contains(t, out, want)
	}
}

func TestWriteHTMLSelfContained(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, sampleDocument()))
	out := buf.String()
	require.Equal(t, 1, strings.Count(out, "<svg"), "one aligned figure")
	require.Contains(t, out, `data-charts="3"`)
	require.Contains(t, out, "Charts, top to bottom: Load · Replicas order · Throttled.")
	require.NotContains(t, out, "<script")
	require.NotContains(t, out, `src="http`)
	require.NotContains(t, out, `href="http`)
	require.NotContains(t, out, "@import")
	// Text from the document is escaped.
	d := sampleDocument()
	d.Title = `<img src=x onerror=alert(1)>`
	buf.Reset()
	require.NoError(t, WriteHTML(&buf, d))
	require.NotContains(t, buf.String(), "<img")
}

func TestWriteHTMLNoCharts(t *testing.T) {
	d := &Document{Title: "empty", Notes: []string{"no data"}}
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, d))
	require.NotContains(t, buf.String(), "<svg")
	require.Contains(t, buf.String(), "<li>no data</li>")
}

func TestSegmentsSplitOnGaps(t *testing.T) {
	from := time.Unix(0, 0)
	win := Window{From: from, To: from.Add(time.Minute)}
	pts := []Point{{from, 1}, {from.Add(time.Second), math.NaN()}, {from.Add(2 * time.Second), 2}, {from.Add(3 * time.Second), 3}, {from.Add(2 * time.Minute), 4}}
	segs := segments(pts, win)
	require.Len(t, segs, 2)
	require.Len(t, segs[0], 1)
	require.Len(t, segs[1], 2)
}
