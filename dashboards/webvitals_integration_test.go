//go:build integration

package dashboards

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/hist"
	"github.com/tidemark/tidemark/internal/promtest"
)

// Two runs k6 itself wrote with its experimental-prometheus-rw output (reference/k6.md
// §1.4), one browser VU loading a page every 2 s and k6 pushing every 5 s: k6wvTrend with
// k6's default K6_PROMETHEUS_RW_TREND_STATS, p(99) alone (k6_browser_web_vital_lcp_p99,
// time trends divided by 1000 into seconds, CLS unscaled), and k6wvNative with
// K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM (cumulative schema-3 histograms,
// k6_browser_web_vital_lcp_seconds for the time trends, k6_browser_web_vital_cls bare, and
// no gauges). No tidemark_* series: k6 writes none.
const (
	k6wvTrend  = "k6-webvitals-trend"
	k6wvNative = "k6-webvitals-native"
)

// k6wvValues are the page's vitals as k6 measures them (milliseconds for the timed ones,
// as the page reports them) and their ratings.
var k6wvValues = []struct {
	short  string
	ms     float64
	rating string
}{{"lcp", 1500, "good"}, {"fcp", 900, "good"}, {"ttfb", 200, "good"}, {"inp", 120, "good"}, {"cls", 0.05, "good"}}

// writeK6WebVitals remote-writes both runs as k6 would, from start for length.
func writeK6WebVitals(t *testing.T, writeURL string, start time.Time, length time.Duration) {
	t.Helper()
	var b promtest.Batch
	labels := func(testid, name string, kv ...string) map[string]string {
		l := map[string]string{"__name__": name, "testid": testid}
		for i := 0; i+1 < len(kv); i += 2 {
			l[kv[i]] = kv[i+1]
		}
		return l
	}
	page := []string{"scenario", "browser", "url", "http://shop/"}
	hists := map[string]*hist.Histogram{}
	for off := 5 * time.Second; off <= length; off += 5 * time.Second {
		at := start.Add(off)
		for _, id := range []string{k6wvTrend, k6wvNative} {
			b.Add(labels(id, "k6_vus"), at, 1)
			b.Add(labels(id, "k6_iterations_total", "scenario", "browser"), at, off.Seconds()/2)
		}
		for _, v := range k6wvValues {
			base := v.ms / 1000 // a time trend's value in Prometheus: seconds
			name := "k6_browser_web_vital_" + v.short
			if v.short == "cls" {
				base = v.ms
			}
			b.Add(labels(k6wvTrend, name+"_p99", append(page, "rating", v.rating)...), at, base)
			if hists[v.short] == nil {
				hists[v.short] = hist.New()
			}
			for range 2 { // the page loads of the push interval
				hists[v.short].Observe(base)
			}
			h, err := hists[v.short].ToPrometheus(3)
			require.NoError(t, err)
			if v.short != "cls" {
				name += "_seconds"
			}
			b.AddHistogram(labels(k6wvNative, name, append(page, "rating", v.rating)...), at, h)
		}
	}
	b.Write(t, writeURL)
}

// TestWebVitalsRowReadsK6Series: every query of the Run correlation dashboard's Web Vitals
// row reads k6's own series as k6 writes them, in the panels' unit (seconds for the timed
// vitals, a score for CLS): the trend-gauge panels the p99 gauges of a run written with
// k6's defaults, the p75 panels the native histograms of a run written with them.
func TestWebVitalsRowReadsK6Series(t *testing.T) {
	length := 2 * time.Minute
	_, papi, start := promWithRun(t, length, writeK6WebVitals, func(time.Time) string {
		return `count(k6_browser_web_vital_lcp_seconds{testid="` + k6wvNative + `"})`
	})
	ctx := context.Background()
	end := start.Add(length)

	// want is each vital's value in the panels' unit, by short name.
	want := map[string]float64{}
	for _, v := range k6wvValues {
		want[v.short] = v.ms / 1000
		if v.short == "cls" {
			want[v.short] = v.ms
		}
	}
	checked := map[string]int{}
	for _, qu := range generatedQueries(t) {
		if qu.Dashboard != RunCorrelationUID || !strings.Contains(qu.Expr, "k6_browser_web_vital") {
			continue
		}
		native := strings.Contains(qu.Expr, "histogram_")
		id := k6wvTrend
		if native {
			id = k6wvNative
		}
		expr, _ := interpolate(qu.Expr, testVars(id))
		name := qu.Panel + " / " + qu.RefID
		v, _, _, err := papi.Query(ctx, expr, end)
		require.NoError(t, err, "%s:\n%s", name, expr)
		vec := v.(model.Vector)
		require.NotEmpty(t, vec, "%s returned no data for %s:\n%s", name, id, expr)
		checked[id]++
		if strings.Contains(qu.Expr, "histogram_count") {
			continue // page loads per second by rating
		}
		for _, s := range vec {
			short := string(s.Metric["vital"])
			if short == "" {
				short = shortOf(t, qu.Expr)
			}
			if !native {
				require.Equal(t, model.LabelValue("p99"), s.Metric["stat"], "%s: k6's default trend stat", name)
			}
			// A native histogram's quantile is within its schema-3 bucket (±9%).
			require.InEpsilon(t, want[short], float64(s.Value), 0.1, "%s: %s of %s:\n%s", name, short, id, expr)
		}
	}
	require.GreaterOrEqual(t, checked[k6wvTrend], 2, "the trend-gauge panels (timed vitals, CLS)")
	require.GreaterOrEqual(t, checked[k6wvNative], 5, "the p75 panels and the ratings")
}

// shortOf names the one vital a query reads (k6_browser_web_vital_<short>…).
func shortOf(t *testing.T, expr string) string {
	t.Helper()
	for _, v := range k6wvValues {
		if strings.Contains(expr, "k6_browser_web_vital_"+v.short) {
			return v.short
		}
	}
	t.Fatalf("no vital in %s", expr)
	return ""
}
