package correlator

import (
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/timeline"
)

func TestWriteBack(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	at := end.Add(-5 * time.Minute)
	r := &Result{
		TestID: "spike-50",
		Window: Windows{Run: timeline.Window{From: end.Add(-10 * time.Minute), To: end}},
		Events: []analysis.Event{{At: at, Kind: analysis.EventScaleUp, Object: "shoong/order"}},
		Autoscaling: []analysis.HPA{{Namespace: "shoong", Name: "order",
			ReactionFromLoadStep: &analysis.Fact{Value: 30},
			Steps:                []analysis.ScaleStep{{To: 4, ReadyGap: &analysis.Fact{Value: 15}}, {To: 5, NeverReady: true}}}},
	}
	got := map[string]timeline.Series{}
	for _, s := range WriteBack(r) {
		require.Equal(t, "spike-50", s.Label("testid"))
		require.Len(t, s.Points, 1)
		// Every name and label set is valid for remote write.
		_, err := parser.NewParser(parser.Options{}).ParseMetric(s.String())
		require.NoError(t, err, s.String())
		got[s.String()] = s
	}
	ev := got[`tidemark_event{kind="scale_up", object="shoong/order", testid="spike-50"}`]
	require.Equal(t, []timeline.Point{{T: at, V: 1}}, ev.Points)
	gap := got[`tidemark_fact_hpa_ready_gap_seconds{object="shoong/order", step="0", testid="spike-50", to="4"}`]
	require.Equal(t, []timeline.Point{{T: end, V: 15}}, gap.Points)
	require.NotContains(t, got, `tidemark_fact_hpa_ready_gap_seconds{object="shoong/order", step="1", testid="spike-50", to="5"}`, "never ready: no number")
	require.Contains(t, got, `tidemark_fact_hpa_reaction_seconds{from="load_step", object="shoong/order", testid="spike-50"}`)
	require.NotContains(t, got, `tidemark_fact_hpa_reaction_seconds{from="metric_crossed", object="shoong/order", testid="spike-50"}`)
}
