//go:build integration

package correlator

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/webvital"
)

// A three-minute run: protocol VUs hold 10, then 40, then 10 (scenario load); one browser
// VU (scenario browser) loads a page every 5 s. The HPA wants 4 replicas of order from
// wvScaleUp on, and they are Ready only from wvReady: the page's LCP is 5 s while they
// are not, 1 s otherwise.
const (
	wvTestID  = "webvitals-1"
	wvRun     = 180 * time.Second
	wvPush    = 5 * time.Second
	wvScaleUp = 65 * time.Second
	wvReady   = 110 * time.Second
	wvGoodLCP = 1.0
	wvPoorLCP = 5.0
)

func wvTarget(off time.Duration) float64 {
	if off >= 60*time.Second && off < 120*time.Second {
		return 40
	}
	return 10
}

func wvLCP(off time.Duration) float64 {
	if off >= wvScaleUp && off < wvReady {
		return wvPoorLCP
	}
	return wvGoodLCP
}

// wvWrite remote-writes the run as `tidemark run` would with native histograms: every
// series at every push, trends as cumulative native histograms and p95 gauges.
func wvWrite(t *testing.T, writeURL string, start time.Time) {
	t.Helper()
	type key struct{ name, rating string }
	var b promtest.Batch
	add := func(labels map[string]string, at time.Duration, v float64, h *hist.Histogram) {
		if h != nil {
			ph, err := h.ToPrometheus(3)
			require.NoError(t, err)
			b.AddHistogram(labels, start.Add(at), ph)
			return
		}
		b.Add(labels, start.Add(at), v)
	}
	k6 := func(name string, kv ...string) map[string]string {
		l := map[string]string{"__name__": name, "testid": wvTestID}
		for i := 0; i+1 < len(kv); i += 2 {
			l[kv[i]] = kv[i+1]
		}
		return l
	}
	ksm := func(name string, v float64, at time.Duration) {
		add(map[string]string{"__name__": name, "job": "kube-state-metrics", "namespace": "shop", "deployment": "order"}, at, v, nil)
	}
	// One histogram per vital and rating, as the rating tag splits k6's series.
	hists := map[key]*hist.Histogram{}
	var reqs, iters float64
	for off := time.Duration(0); off <= wvRun; off += wvPush {
		if off > 0 {
			reqs += wvTarget(off) * wvPush.Seconds() * 2
			iters += wvTarget(off) * wvPush.Seconds()
			// The page load of this push interval.
			lcp := wvLCP(off)
			for _, v := range []struct {
				short string
				value float64
			}{{"lcp", lcp}, {"fcp", lcp * 0.6}, {"ttfb", lcp * 0.1}, {"cls", 0.02}} {
				vital, ok := webvital.ByShort(v.short)
				require.True(t, ok)
				k := key{vital.Metric, vital.RateBase(v.value)}
				if hists[k] == nil {
					hists[k] = hist.New()
				}
				hists[k].Observe(v.value)
			}
		}
		add(k6("tidemark_run_info", "version", "dev"), off, 1, nil)
		add(k6("tidemark_scenario_target", "scenario", "load", "unit", "vus"), off, wvTarget(off), nil)
		add(k6("tidemark_scenario_target", "scenario", "browser", "unit", "vus"), off, 1, nil)
		add(k6("k6_vus"), off, wvTarget(off)+1, nil)
		add(k6("k6_iterations_total", "scenario", "load"), off, iters, nil)
		add(k6("k6_http_reqs_total", "scenario", "load", "method", "GET", "status", "200", "expected_response", "true", "name", "http://shop/"), off, reqs, nil)
		for k, h := range hists {
			name := histogramOf(mustVital(t, k.name))
			l := k6(name, "scenario", "browser", "url", "http://shop/", "rating", k.rating)
			add(l, off, 0, h)
			gauge := "k6_" + k.name + "_p95"
			add(k6(gauge, "scenario", "browser", "url", "http://shop/", "rating", k.rating), off, h.Quantile(0.95), nil)
		}
		spec, ready := 2.0, 2.0
		if off >= wvScaleUp {
			spec = 4
		}
		if off >= wvReady {
			ready = 4
		}
		ksm("kube_deployment_spec_replicas", spec, off)
		ksm("kube_deployment_status_replicas_ready", ready, off)
		ksm("kube_deployment_status_replicas_available", ready, off)
	}
	b.Write(t, writeURL)
}

func mustVital(t *testing.T, metric string) webvital.Vital {
	t.Helper()
	v, ok := webvital.ByMetric(metric)
	require.True(t, ok, metric)
	return v
}

// TestIntegrationWebVitalsPerStage correlates a run with a browser VU from a real
// Prometheus: the report's Web Vitals rate the stage in which the Deployment's Ready
// replicas lagged the HPA poor on LCP, and the stages around it good; the whole run's
// p95 is the slow loads'.
func TestIntegrationWebVitalsPerStage(t *testing.T) {
	prom := promtest.StartPrometheus(t)
	start := time.Now().Add(-wvRun - 2*time.Minute).Truncate(time.Second)
	wvWrite(t, prom.WriteURL(), start)
	promtest.WaitForQuery(t, prom.URL, `count(k6_browser_web_vital_lcp_seconds{testid="`+wvTestID+`"})`, 30*time.Second, promtest.NonEmpty)

	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	res, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), Config{TestID: wvTestID, Namespace: "shop"})
	require.NoError(t, err)
	for _, qu := range res.Queries {
		require.Empty(t, qu.Error, qu.Name)
	}
	wv := res.WebVitals
	require.NotNil(t, wv)

	lcpRun := analysis.Vital(wv.Run, "browser_web_vital_lcp", "p(95)")
	require.NotNil(t, lcpRun)
	require.Equal(t, analysis.VitalHistogram, lcpRun.Source)
	require.InEpsilon(t, wvPoorLCP, lcpRun.Value.Value, 0.1)
	require.Equal(t, webvital.Poor, lcpRun.Rating)
	cls := analysis.Vital(wv.Run, "browser_web_vital_cls", "p(75)")
	require.NotNil(t, cls)
	require.InEpsilon(t, 0.02, cls.Value.Value, 0.1)
	require.Equal(t, analysis.UnitScore, cls.Value.Unit)

	// The stage at each offset.
	stageAt := func(off time.Duration) analysis.StageVitals {
		t.Helper()
		at := start.Add(off)
		for _, sv := range wv.Stages {
			st := res.Load.Stages[sv.Stage]
			require.NotEqual(t, "browser", st.Scenario, "the browser scenario's own stage is left out")
			if !at.Before(st.From) && at.Before(st.To) {
				return sv
			}
		}
		t.Fatalf("no stage with Web Vitals at +%s: %+v", off, wv.Stages)
		return analysis.StageVitals{}
	}
	for _, tc := range []struct {
		off      time.Duration
		lcp      float64
		rating   string
		notReady float64
	}{
		{30 * time.Second, wvGoodLCP, webvital.Good, 0},
		{90 * time.Second, wvPoorLCP, webvital.Poor, 2},
		{150 * time.Second, wvGoodLCP, webvital.Good, 0},
	} {
		sv := stageAt(tc.off)
		lcp := analysis.Vital(sv.Vitals, "browser_web_vital_lcp", "p(75)")
		require.NotNil(t, lcp, "stage at +%s", tc.off)
		require.Equal(t, analysis.VitalHistogram, lcp.Source)
		require.InEpsilon(t, tc.lcp, lcp.Value.Value, 0.1, "LCP p75 of the stage at +%s", tc.off)
		require.Equal(t, tc.rating, lcp.Rating, "stage at +%s", tc.off)
		require.NotNil(t, sv.NotReady)
		require.InDelta(t, tc.notReady, sv.NotReady.Value, 0, "stage at +%s", tc.off)
		require.NotNil(t, analysis.Vital(sv.Vitals, "browser_web_vital_ttfb", "p(75)"))
	}
	require.NotEmpty(t, res.Series[analysis.QWebVitalsGauge], "the gauges are charted")
}

// TestIntegrationWebVitalsK6Written correlates two hybrid runs k6 itself wrote
// (reference/k6.md §1.4: no tidemark_* series): protocol VUs at 10 iterations/s in
// scenario load, one browser VU loading a page every 2 s in scenario page. One run has
// k6's default trend stats, p(99) alone (k6_browser_web_vital_lcp_p99 in seconds, CLS
// unscaled), the other native histograms only (k6_browser_web_vital_lcp_seconds,
// k6_browser_web_vital_cls). Each has its Web Vitals, in base units, and the page
// scenario is known as a browser scenario from either kind of series and left out of
// the inferred stages.
func TestIntegrationWebVitalsK6Written(t *testing.T) {
	prom := promtest.StartPrometheus(t)
	const (
		trendID, nativeID = "k6-default-1", "k6-native-1"
		length            = 2 * time.Minute
		lcp, cls          = 1.5, 0.05 // seconds (k6 divides the page's 1500 ms by 1000), score
	)
	start := time.Now().Add(-length - 2*time.Minute).Truncate(time.Second)
	var b promtest.Batch
	k6 := func(id, name string, kv ...string) map[string]string {
		l := map[string]string{"__name__": name, "testid": id}
		for i := 0; i+1 < len(kv); i += 2 {
			l[kv[i]] = kv[i+1]
		}
		return l
	}
	page := []string{"scenario", "page", "url", "http://shop/", "rating", "good"}
	hists := map[string]*hist.Histogram{}
	for off := 5 * time.Second; off <= length; off += 5 * time.Second {
		at, secs := start.Add(off), off.Seconds()
		for _, id := range []string{trendID, nativeID} {
			b.Add(k6(id, "k6_vus"), at, 11)
			b.Add(k6(id, "k6_iterations_total", "scenario", "load"), at, 10*secs)
			b.Add(k6(id, "k6_iterations_total", "scenario", "page"), at, secs/2)
			b.Add(k6(id, "k6_http_reqs_total", "scenario", "load", "method", "GET", "status", "200", "name", "http://shop/api", "url", "http://shop/api", "proto", "HTTP/1.1"), at, 10*secs)
		}
		b.Add(k6(trendID, "k6_browser_web_vital_lcp_p99", page...), at, lcp)
		b.Add(k6(trendID, "k6_browser_web_vital_cls_p99", page...), at, cls)
		for name, v := range map[string]float64{"k6_browser_web_vital_lcp_seconds": lcp, "k6_browser_web_vital_cls": cls} {
			if hists[name] == nil {
				hists[name] = hist.New()
			}
			hists[name].Observe(v)
			hists[name].Observe(v)
			h, err := hists[name].ToPrometheus(3)
			require.NoError(t, err)
			b.AddHistogram(k6(nativeID, name, page...), at, h)
		}
	}
	b.Write(t, prom.WriteURL())
	promtest.WaitForQuery(t, prom.URL, `count(k6_browser_web_vital_lcp_seconds{testid="`+nativeID+`"})`, 30*time.Second, promtest.NonEmpty)

	q, err := query.NewPrometheus(prom.URL, nil)
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	for _, tc := range []struct {
		id, stat, source string
	}{
		{trendID, "p(99)", analysis.VitalCumulative},
		{nativeID, "p(75)", analysis.VitalHistogram},
	} {
		t.Run(tc.id, func(t *testing.T) {
			res, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), Config{TestID: tc.id, Namespace: "shop"})
			require.NoError(t, err)
			for _, qu := range res.Queries {
				require.Empty(t, qu.Error, qu.Name)
				if qu.Name == analysis.QBrowserScenarios {
					require.Equal(t, 1, qu.Series, "the page scenario is a browser scenario")
				}
			}
			require.NotNil(t, res.WebVitals)
			x := analysis.Vital(res.WebVitals.Run, "browser_web_vital_lcp", tc.stat)
			require.NotNil(t, x, "%+v", res.WebVitals.Run)
			require.Equal(t, tc.source, x.Source)
			require.Equal(t, analysis.UnitSeconds, x.Value.Unit)
			require.InEpsilon(t, lcp, x.Value.Value, 0.1, "seconds, as k6 writes them")
			c := analysis.Vital(res.WebVitals.Run, "browser_web_vital_cls", tc.stat)
			require.NotNil(t, c)
			require.Equal(t, analysis.UnitScore, c.Value.Unit)
			require.InEpsilon(t, cls, c.Value.Value, 0.1)
			require.NotEmpty(t, res.Load.Stages)
			for _, st := range res.Load.Stages {
				require.Equal(t, "load", st.Scenario, "the browser scenario is left out of the inferred stages")
				require.InDelta(t, 10, st.EndTarget, 0.2, "the load's iteration rate, without the page loads")
			}
		})
	}
}
