package analysis

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

func TestAnalyzeWebVitals(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return from.Add(time.Duration(s) * time.Second) }
	// every makes a series sampled every 5 s over 3 minutes.
	every := func(labels map[string]string, f func(s int) float64) timeline.Series {
		out := timeline.Series{Labels: labels}
		for s := 0; s <= 180; s += 5 {
			out.Points = append(out.Points, timeline.Point{T: at(s), V: f(s)})
		}
		return out
	}
	stage := func(i int, scenario string, a, b int) StageFacts {
		return StageFacts{Stage: timeline.Stage{Index: i, Scenario: scenario, Kind: timeline.Hold, Window: timeline.Window{From: at(a), To: at(b)}}}
	}
	load := Load{Stages: []StageFacts{stage(0, "load", 0, 60), stage(1, "load", 60, 120), stage(2, "load", 120, 180), stage(3, "browser", 0, 180)}}
	base := func() *timeline.Timeline {
		return &timeline.Timeline{
			Run:        timeline.Window{From: from, To: at(180)},
			Resolution: map[string]time.Duration{SourceK6: 5 * time.Second, SourceKSM: 5 * time.Second},
			Sets: map[string]timeline.Set{
				QDeploymentSpec: {every(map[string]string{"namespace": "shop", "deployment": "order"}, func(s int) float64 {
					if s >= 65 {
						return 4
					}
					return 2
				})},
				QDeploymentReady: {every(map[string]string{"namespace": "shop", "deployment": "order"}, func(s int) float64 {
					if s >= 110 {
						return 4
					}
					return 2
				})},
			},
		}
	}

	t.Run("no browser metrics", func(t *testing.T) {
		t.Parallel()
		require.Nil(t, AnalyzeWebVitals(base(), load))
	})

	t.Run("cumulative gauges", func(t *testing.T) {
		t.Parallel()
		tl := base()
		// k6's cumulative p95: 1 s, then 5 s from the slow loads on.
		tl.Sets[QWebVitalsGauge] = timeline.Set{
			every(map[string]string{"vital": "lcp", "stat": "p95", "scenario": "browser"}, func(s int) float64 {
				if s >= 70 {
					return 5
				}
				return 1
			}),
			every(map[string]string{"vital": "ttfb", "stat": "p95", "scenario": "browser"}, func(int) float64 { return 0.1 }),
		}
		tl.Sets[QWebVitalCLSGauge] = timeline.Set{every(map[string]string{"stat": "p95", "scenario": "browser"}, func(int) float64 { return 0.3 })}
		wv := AnalyzeWebVitals(tl, load)
		require.NotNil(t, wv)
		lcp := Vital(wv.Run, "browser_web_vital_lcp", "p(95)")
		require.NotNil(t, lcp)
		require.Equal(t, VitalCumulative, lcp.Source)
		require.InDelta(t, 5, lcp.Value.Value, 0)
		require.Equal(t, "poor", lcp.Rating)
		require.Equal(t, at(180), lcp.Value.At)
		cls := Vital(wv.Run, "browser_web_vital_cls", "p(95)")
		require.NotNil(t, cls)
		require.Equal(t, UnitScore, cls.Value.Unit)
		require.Equal(t, "poor", cls.Rating)
		require.Nil(t, Vital(wv.Run, "browser_web_vital_inp", "p(95)"), "no interaction, no INP")

		require.Len(t, wv.Stages, 3, "the browser scenario's own stage is left out")
		for i, want := range []struct {
			lcp      float64
			rating   string
			notReady float64
		}{{1, "good", 0}, {5, "poor", 2}, {5, "poor", 0}} {
			sv := wv.Stages[i]
			require.Equal(t, i, sv.Stage)
			x := Vital(sv.Vitals, "browser_web_vital_lcp", "p(95)")
			require.NotNil(t, x, "stage %d", i)
			require.InDelta(t, want.lcp, x.Value.Value, 0, "stage %d: the gauge at its end", i)
			require.Equal(t, want.rating, x.Rating, "stage %d", i)
			require.Equal(t, QWebVitalsGauge, x.Value.Evidence[0].Query)
			require.InDelta(t, want.notReady, sv.NotReady.Value, 0, "stage %d", i)
		}
	})

	t.Run("k6's default p99 gauges", func(t *testing.T) {
		t.Parallel()
		tl := base()
		// k6 writes K6_PROMETHEUS_RW_TREND_STATS=p(99) by default: k6_browser_web_vital_lcp_p99
		// in seconds, k6_browser_web_vital_cls_p99 a score.
		tl.Sets[QWebVitalsGauge] = timeline.Set{every(map[string]string{"vital": "lcp", "stat": "p99", "scenario": "browser"}, func(int) float64 { return 3 })}
		tl.Sets[QWebVitalCLSGauge] = timeline.Set{every(map[string]string{"stat": "p99", "scenario": "browser"}, func(int) float64 { return 0.05 })}
		wv := AnalyzeWebVitals(tl, load)
		require.NotNil(t, wv)
		require.Nil(t, Vital(wv.Run, "browser_web_vital_lcp", "p(95)"))
		lcp := Vital(wv.Run, "browser_web_vital_lcp", "p(99)")
		require.NotNil(t, lcp)
		require.Equal(t, VitalCumulative, lcp.Source)
		require.Equal(t, UnitSeconds, lcp.Value.Unit)
		require.InDelta(t, 3, lcp.Value.Value, 0)
		require.Equal(t, "needs_improvement", lcp.Rating, "3 s: between 2.5 s and 4 s")
		cls := Vital(wv.Run, "browser_web_vital_cls", "p(99)")
		require.NotNil(t, cls)
		require.Equal(t, UnitScore, cls.Value.Unit)
		require.Equal(t, "good", cls.Rating)
		require.Len(t, wv.Stages, 3)
		require.NotNil(t, Vital(wv.Stages[0].Vitals, "browser_web_vital_lcp", "p(99)"))
	})

	t.Run("histograms win over gauges", func(t *testing.T) {
		t.Parallel()
		tl := base()
		tl.Sets[QWebVitalsGauge] = timeline.Set{every(map[string]string{"vital": "lcp", "stat": "p95", "scenario": "browser"}, func(int) float64 { return 9 })}
		one := func(t time.Time, v float64) timeline.Set {
			return timeline.Set{{Labels: map[string]string{}, Points: []timeline.Point{{T: t, V: v}}}}
		}
		tl.Sets[WebVitalSet("browser_web_vital_lcp", 0.75, -1)] = one(at(180), 1.5)
		tl.Sets[WebVitalSet("browser_web_vital_lcp", 0.95, -1)] = one(at(180), 4.2)
		tl.Sets[WebVitalSet("browser_web_vital_lcp", 0.75, 1)] = one(at(120), 4.5)
		wv := AnalyzeWebVitals(tl, load)
		require.NotNil(t, wv)
		p75 := Vital(wv.Run, "browser_web_vital_lcp", "p(75)")
		require.NotNil(t, p75)
		require.Equal(t, VitalHistogram, p75.Source)
		require.Equal(t, "good", p75.Rating)
		require.InDelta(t, 4.2, Vital(wv.Run, "browser_web_vital_lcp", "p(95)").Value.Value, 0)
		// Stage 2 has its histogram quantile; stages 1 and 3 fall back to the gauge.
		require.Equal(t, VitalHistogram, Vital(wv.Stages[1].Vitals, "browser_web_vital_lcp", "p(75)").Source)
		require.Equal(t, VitalCumulative, Vital(wv.Stages[0].Vitals, "browser_web_vital_lcp", "p(95)").Source)
	})
}
