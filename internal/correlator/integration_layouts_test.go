//go:build integration

package correlator

import (
	"cmp"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
	"github.com/tidemark/tidemark/internal/query"
)

// layoutCase is one layout to correlate. alone puts its fixture in a Prometheus of its
// own: RDS series carry no namespace, and the catalog's RDS selector (any job) would find
// the other fixtures' databases and never search for series without a job.
type layoutCase struct {
	opts  layouts.Options
	alone bool
}

// layoutCases are the scrape layouts and k6 sides `tidemark correlate --testid ID` must
// handle with no --from/--to and no catalog of the user's: every fact of story 1's spike
// within one scrape interval of the generator's truth.
func layoutCases() []layoutCase {
	return []layoutCase{
		{opts: layouts.Options{Layout: layouts.KubePrometheusStack}},
		{opts: layouts.Options{Layout: layouts.VMK8sStack}},
		{opts: layouts.Options{Layout: layouts.KubePrometheusStack, KSM: layouts.KSMBoth}},
		{opts: layouts.Options{Layout: layouts.KubePrometheusStack, RDS: layouts.CloudWatchExporter}},
		// Found by discovery (query.Discover): the catalog's job names are kube-prometheus'.
		{opts: layouts.Options{Layout: layouts.PrometheusChart}},
		{opts: layouts.Options{Layout: layouts.K8sMonitoring}},
		{opts: layouts.Options{Layout: layouts.KubePrometheusStack, KSM: layouts.KSMv1}},
		{opts: layouts.Options{Layout: layouts.KubePrometheusStack, Cluster: "prod", DecoyCluster: "staging"}},
		// Runs k6 made: no tidemark_* series; the window from k6_vus, the stages inferred.
		{opts: layouts.Options{Layout: layouts.KubePrometheusStack, K6: layouts.K6Only}},
		{opts: layouts.Options{Layout: layouts.PrometheusChart, K6: layouts.ThreeInstances}},
		{opts: layouts.Options{Layout: layouts.NoJob}, alone: true},
		{opts: layouts.Options{Layout: layouts.NoJob, RDS: layouts.CloudWatchExporter}, alone: true},
	}
}

// TestIntegrationLayouts loads story 1's spike in each layout (one Prometheus 2.42 holds
// most of them, each in its own namespace and testid) and correlates every one of them as
// a user would: by testid alone.
func TestIntegrationLayouts(t *testing.T) {
	var shared []*layouts.Fixture
	type loaded struct {
		f    *layouts.Fixture
		prom string
	}
	var runs []*loaded
	for i, c := range layoutCases() {
		o := c.opts
		o.Namespace, o.TestID = fmt.Sprintf("shop%d", i), fmt.Sprintf("spike-50-%d", i)
		f, err := layouts.Story1(o)
		require.NoError(t, err, o)
		r := &loaded{f: f}
		runs = append(runs, r)
		if c.alone {
			r.prom = layoutstest.Load(t, []*layouts.Fixture{f}).URL
			continue
		}
		shared = append(shared, f)
	}
	sharedURL := layoutstest.Load(t, shared).URL
	cat, err := query.Default()
	require.NoError(t, err)
	for _, r := range runs {
		f := r.f
		t.Run(f.Options.String(), func(t *testing.T) {
			t.Parallel()
			q, err := query.NewPrometheus(cmp.Or(r.prom, sharedURL), nil)
			require.NoError(t, err)
			cfg := Config{TestID: f.TestID(), Namespace: f.Namespace(), Lookback: time.Since(f.Truth.RunFrom) + time.Hour}
			if f.Options.Cluster != "" {
				cfg.Selector = map[string]string{"cluster": f.Options.Cluster} // --selector cluster=prod
			}
			res, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), cfg)
			require.NoError(t, err)
			for _, n := range res.Notes {
				t.Logf("note: %s/%s %s: %s", n.Section, n.Object, n.Level, n.Text)
			}
			requireStory1Truth(t, res, &f.Truth)
		})
	}
}

// requireStory1Truth checks a correlation of story 1's spike against the generator's
// truth, each fact within the resolution of the sources it is read from.
func requireStory1Truth(t *testing.T, res *Result, tr *layouts.Truth) {
	t.Helper()
	push, ksm, cadv := tr.PushInterval, tr.KSMInterval, tr.CadvisorInterval
	within := func(want, got time.Time, slack time.Duration, what string) {
		t.Helper()
		require.LessOrEqual(t, got.Sub(want).Abs(), slack, "%s: %s vs the truth %s", what, got.UTC(), want.UTC())
	}
	within(tr.RunFrom, res.Window.Run.From, push, "run start")
	within(tr.RunTo, res.Window.Run.To, push, "run end")

	require.InDelta(t, tr.Requests, res.Load.Requests, 1e-6, "requests")
	require.InDelta(t, tr.Failures, res.Load.Failures, 1e-6, "failures")
	require.NotEmpty(t, res.Load.LoadSteps)
	within(tr.LoadStep, res.Load.LoadSteps[0], push, "load step")

	require.Len(t, res.Autoscaling, len(tr.HPAs))
	for _, want := range tr.HPAs {
		var h *analysis.HPA
		for i := range res.Autoscaling {
			if res.Autoscaling[i].Name == want.Name {
				h = &res.Autoscaling[i]
			}
		}
		require.NotNil(t, h, "HPA %s", want.Name)
		require.InDelta(t, want.Baseline, h.Baseline.Value, 0, "%s baseline", want.Name)
		require.InDelta(t, want.Max, h.Peak.Value, 0, "%s peak", want.Name)
		require.NotNil(t, h.ReactionFromLoadStep, "%s reaction", want.Name)
		first := want.Steps[0]
		require.InDelta(t, first.DesiredAt.Sub(tr.LoadStep).Seconds(), h.ReactionFromLoadStep.Value, (push + ksm).Seconds(), "%s reaction from the load step", want.Name)
		var ups []analysis.ScaleStep
		for _, s := range h.Steps {
			if s.Direction == "up" {
				ups = append(ups, s)
			}
		}
		var wantUps []layouts.ScaleStep
		for _, s := range want.Steps {
			if s.To > s.From {
				wantUps = append(wantUps, s)
			}
		}
		require.Len(t, ups, len(wantUps), "%s scale-ups", want.Name)
		for i, s := range wantUps {
			require.NotNil(t, ups[i].ReadyGap, "%s step %d gap", want.Name, i+1)
			require.InDelta(t, s.Gap.Seconds(), ups[i].ReadyGap.Value, 2*ksm.Seconds(), "%s step %d start-up gap", want.Name, i+1)
		}
	}

	for _, want := range tr.Workloads {
		if want.Limit == 0 || len(want.Onsets) == 0 {
			continue
		}
		var w *analysis.WorkloadCPU
		for i := range res.CPU {
			if res.CPU[i].Workload == want.Name {
				w = &res.CPU[i]
			}
		}
		require.NotNil(t, w, "CPU of %s", want.Name)
		require.InDelta(t, want.Limit, w.Limit.Value, 1e-9, "%s limit", want.Name)
		require.NotEmpty(t, w.Onsets, "%s onsets", want.Name)
		require.NotNil(t, w.Onsets[0].At)
		// The onset is read from a rate over two scrapes, and must be sustained.
		within(want.Onsets[0].At, w.Onsets[0].At.At, 3*cadv, want.Name+" throttling onset")
	}

	// RDS series carry no namespace: every instance in the window is reported.
	var db *analysis.Database
	for i := range res.Database {
		if res.Database[i].Instance == tr.DB.Instance {
			db = &res.Database[i]
		}
	}
	require.NotNil(t, db, "database %s", tr.DB.Instance)
	require.NotNil(t, db.ConnectionsGrowth)
	require.InDelta(t, tr.DB.ConnectionsGrowth, db.ConnectionsGrowth.Value, 1e-9, "DB connection growth")
	require.NotNil(t, res.Errors.InGapShare)
	require.InDelta(t, tr.FailuresInGaps/tr.Failures, res.Errors.InGapShare.Value, 0.2, "share of failures inside start-up gaps")
}
