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

func TestWebVitalsSection(t *testing.T) {
	from := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	stage := func(i int, a, b time.Duration, target float64) analysis.StageFacts {
		return analysis.StageFacts{Stage: timeline.Stage{Index: i, Scenario: "load", Unit: "vus", Kind: timeline.Hold,
			Window: timeline.Window{From: from.Add(a), To: from.Add(b)}, StartTarget: target, EndTarget: target}}
	}
	vital := func(metric, stat string, v float64, unit, rating string) analysis.VitalStat {
		return analysis.VitalStat{Metric: metric, Stat: stat, Value: &analysis.Fact{Value: v, Unit: unit}, Rating: rating, Source: analysis.VitalHistogram}
	}
	r := &correlator.Result{TestID: "wv", Window: correlator.Windows{Run: timeline.Window{From: from, To: from.Add(3 * time.Minute)}}}
	r.Load.Stages = []analysis.StageFacts{stage(0, 0, time.Minute, 10), stage(1, time.Minute, 2*time.Minute, 40), stage(2, 2*time.Minute, 3*time.Minute, 10)}

	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, FromCorrelation(r)))
	require.NotContains(t, md.String(), "Web Vitals", "a run without browser metrics has no Web Vitals section")

	r.WebVitals = &analysis.WebVitals{
		Run: []analysis.VitalStat{
			vital("browser_web_vital_lcp", "p(75)", 1.2, analysis.UnitSeconds, "good"),
			vital("browser_web_vital_lcp", "p(95)", 4.6, analysis.UnitSeconds, "poor"),
			vital("browser_web_vital_cls", "p(75)", 0.02, analysis.UnitScore, "good"),
		},
		Stages: []analysis.StageVitals{
			{Stage: 0, Scenario: "load", NotReady: &analysis.Fact{Value: 0}, Vitals: []analysis.VitalStat{vital("browser_web_vital_lcp", "p(75)", 0.98, analysis.UnitSeconds, "good")}},
			{Stage: 1, Scenario: "load", NotReady: &analysis.Fact{Value: 2}, Vitals: []analysis.VitalStat{vital("browser_web_vital_lcp", "p(75)", 4.6, analysis.UnitSeconds, "poor")}},
			{Stage: 2, Scenario: "load", NotReady: &analysis.Fact{Value: 0}, Vitals: []analysis.VitalStat{vital("browser_web_vital_lcp", "p(75)", 1.1, analysis.UnitSeconds, "good")}},
		},
	}
	md.Reset()
	require.NoError(t, WriteMarkdown(&md, FromCorrelation(r)))
	out := md.String()
	for _, want := range []string{
		"## Web Vitals",
		"| LCP p75 | 1.20 s (good) | LCP was worst in stage 2",
		"LCP was worst in stage 2: 4.60 s (p75, poor) against 980 ms in stage 1, while up to 2 replicas the HPA asked for were not Ready.",
		"| LCP (Largest Contentful Paint) | 1.20 s | 4.60 s | good | histogram |",
		"| CLS (Cumulative Layout Shift) | 0.020 | — | good | histogram |",
		"| Stage | Scenario | Window | Target | LCP | Not Ready (max) |",
		"| 2 (hold) | load | +1:00 – +2:00 | hold at 40 VUs | 4.60 s p75 poor | 2 |",
	} {
		require.Contains(t, out, want)
	}
	var html bytes.Buffer
	require.NoError(t, WriteHTML(&html, FromCorrelation(r)))
	require.Contains(t, html.String(), "Per stage of the load")
}

// TestWebVitalsSectionK6DefaultStats: a run k6 wrote with its default trend stats has
// only the p99 gauges (k6_browser_web_vital_lcp_p99): the section and the key fact show
// p99, in its own column.
func TestWebVitalsSectionK6DefaultStats(t *testing.T) {
	from := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	cumulative := func(metric string, v float64, unit, rating string) analysis.VitalStat {
		return analysis.VitalStat{Metric: metric, Stat: "p(99)", Value: &analysis.Fact{Value: v, Unit: unit}, Rating: rating, Source: analysis.VitalCumulative}
	}
	r := &correlator.Result{TestID: "k6", Window: correlator.Windows{Run: timeline.Window{From: from, To: from.Add(time.Minute)}}}
	r.WebVitals = &analysis.WebVitals{Run: []analysis.VitalStat{
		cumulative("browser_web_vital_lcp", 3, analysis.UnitSeconds, "needs_improvement"),
		cumulative("browser_web_vital_cls", 0.05, analysis.UnitScore, "good"),
	}}
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, FromCorrelation(r)))
	out := md.String()
	for _, want := range []string{
		"| LCP p99 | 3.00 s (needs improvement) |",
		"| Vital | p75 | p95 | p99 | Rating | Read from |",
		"| LCP (Largest Contentful Paint) | — | — | 3.00 s | needs improvement | cumulative |",
		"| CLS (Cumulative Layout Shift) | — | — | 0.050 | good | cumulative |",
	} {
		require.Contains(t, out, want)
	}
}
