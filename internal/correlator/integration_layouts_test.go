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
	// Every layout of layouts.Coverage: the catalog's job names are kube-prometheus',
	// the others are found by discovery (query.Discover); runs k6 made have no tidemark_*
	// series, so the window comes from k6_vus and the stages are inferred.
	for i, o := range layouts.Coverage() {
		o.Namespace, o.TestID = fmt.Sprintf("shop%d", i), fmt.Sprintf("spike-50-%d", i)
		f, err := layouts.Story1(o)
		require.NoError(t, err, o)
		r := &loaded{f: f}
		runs = append(runs, r)
		if !o.SharesPrometheus() {
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
			if f.Options.Pool == layouts.Prisma {
				cfg.Params = map[string]float64{"db_pool_per_pod": layouts.PrismaLimit} // Prisma exports no pool size
			}
			res, err := New(q, cat, promslog.NewNopLogger()).Correlate(context.Background(), cfg)
			require.NoError(t, err)
			for _, n := range res.Notes {
				t.Logf("note: %s/%s %s: %s", n.Section, n.Object, n.Level, n.Text)
			}
			requireStory1Truth(t, res, f)
			requireConnectionsTruth(t, res, f)
		})
	}
}

// requireStory1Truth checks a correlation of story 1's spike against the generator's
// truth, each fact within the resolution of the sources it is read from.
func requireStory1Truth(t *testing.T, res *Result, f *layouts.Fixture) {
	t.Helper()
	tr := &f.Truth
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
		switch {
		case f.Options.Layout == layouts.K8sMonitoring:
			// Alloy's allow-list drops the HPA's target metrics: nothing to cross.
			require.Nil(t, h.MetricCrossed, "%s metric crossing", want.Name)
		case f.Options.KSM == layouts.KSMv1:
			// No status metric: read from cAdvisor's usage over the requests, a rate
			// over two scrapes.
			require.NotNil(t, h.MetricCrossed, "%s metric crossing", want.Name)
			within(want.MetricCrossedAt, h.MetricCrossed.At, 2*cadv, want.Name+" metric crossing (cAdvisor)")
		default:
			// kube-state-metrics exposes the status at its next scrape; the range
			// queries' grid falls on its scrapes.
			require.NotNil(t, h.MetricCrossed, "%s metric crossing", want.Name)
			within(want.MetricCrossedAt, h.MetricCrossed.At, ksm, want.Name+" metric crossing")
		}
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
			require.InDelta(t, s.Gap.Seconds(), ups[i].ReadyGap.Value, ksm.Seconds(), "%s step %d start-up gap", want.Name, i+1)
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

// requireConnectionsTruth checks the database exporter's and the pools' facts against the
// generator's truth: values read at the samples exactly, moments within one scrape.
func requireConnectionsTruth(t *testing.T, res *Result, f *layouts.Fixture) {
	t.Helper()
	tr := f.Truth.Connections
	c := res.Connections
	// Database exporters' series carry no namespace: every server in the window is
	// reported (in a Prometheus shared with other fixtures, theirs too), this fixture's
	// by its name.
	if f.Options.DBExporter != layouts.NoDBExporter {
		var s *analysis.DBServer
		for i := range c.Servers {
			if c.Servers[i].Server == tr.Server {
				s = &c.Servers[i]
			}
		}
		require.NotNil(t, s, "server %s among %v", tr.Server, c.Servers)
		require.NotNil(t, s.PeakShare, "%s peak share", tr.Server)
		require.InDelta(t, tr.ConnectionsPeak, s.ConnectionsPeak.Value, 0, "connections peak")
		require.InDelta(t, tr.MaxConnections, s.MaxConnections.Value, 0, "max_connections")
		require.InDelta(t, tr.ConnectionsPeak/tr.MaxConnections, s.PeakShare.Value, 1e-12, "peak share")
		require.LessOrEqual(t, s.ConnectionsPeak.At.Sub(tr.ConnectionsAt).Abs(), layouts.DBInterval*time.Second, "connections peak at %s, truth %s", s.ConnectionsPeak.At, tr.ConnectionsAt)
	}
	if f.Options.Pool == layouts.NoPool {
		require.Empty(t, c.Pools, "no pool metrics in the fixture")
		return
	}
	require.Len(t, c.Pools, 5, "the order Deployment's five pods")
	require.NotNil(t, c.Total)
	require.NotNil(t, c.Total.BusyShare)
	require.InDelta(t, tr.BusyPeak, c.Total.BusyPeak.Value, 0, "busy peak, all pods")
	require.InDelta(t, tr.BusyShare, c.Total.BusyShare.Value, 1e-12, "busy share peak, all pods")
	var waited *analysis.Finding
	for i := range res.Findings {
		if res.Findings[i].Rule == "pool_waiters" {
			waited = &res.Findings[i]
		}
	}
	if f.Options.Pool == layouts.GoSQL {
		require.Nil(t, c.Total.PendingPeak, "database/sql has no gauge of waiters")
		require.Nil(t, waited, "nor a finding of them")
	} else {
		require.NotNil(t, c.Total.PendingPeak)
		require.InDelta(t, tr.PendingPeak, c.Total.PendingPeak.Value, 0, "waiters peak, all pods")
		require.NotNil(t, waited, "the catalog's pool_waiters finding")
		require.LessOrEqual(t, waited.From.Sub(tr.WaitersFirst).Abs(), layouts.PoolInterval*time.Second, "finding from %s, truth %s", waited.From, tr.WaitersFirst)
	}
	require.NotNil(t, c.Total.WaitersFirst)
	require.LessOrEqual(t, c.Total.WaitersFirst.At.Sub(tr.WaitersFirst).Abs(), layouts.PoolInterval*time.Second, "first waiter at %s, truth %s", c.Total.WaitersFirst.At, tr.WaitersFirst)
}
