package runsummary

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/timeline"
)

// fakeCorrelator returns its loads in turn and records the configs it was asked with.
type fakeCorrelator struct {
	loads []analysis.Load
	cfgs  []correlator.Config
	err   error
}

func (f *fakeCorrelator) Correlate(_ context.Context, cfg correlator.Config) (*correlator.Result, error) {
	f.cfgs = append(f.cfgs, cfg)
	if f.err != nil {
		return nil, f.err
	}
	l := f.loads[0]
	f.loads = f.loads[1:]
	return &correlator.Result{Load: l}, nil
}

func fact(v float64) *analysis.Fact { return &analysis.Fact{Value: v} }

func TestStagesOf(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0).UTC()
	st := func(i int, sc, unit string, from, to time.Duration, start, end float64) timeline.Stage {
		return timeline.Stage{Index: i, Scenario: sc, Unit: unit, Window: timeline.Window{From: t0.Add(from), To: t0.Add(to)}, StartTarget: start, EndTarget: end}
	}
	load := analysis.Load{
		StagesSource: analysis.StagesScenarioTarget,
		VerdictRule:  "held when every threshold of the run passes in the stage (http_reqs: count<450)",
		Stages: []analysis.StageFacts{
			{Stage: st(0, "a", analysis.StageUnitIterations, 0, 4*time.Second, 30, 30), Achieved: fact(29.5), RequestRate: fact(29.5),
				ErrorRate: fact(0), P50: fact(0.025), P95: fact(0.0376), P99: fact(0.039), LatencySource: analysis.LatencyHistogram, Held: true, Why: "held"},
			{Stage: st(1, "b", analysis.StageUnitVUs, 0, 4*time.Second, 0, 5), Achieved: fact(10), MaxVUs: fact(5), RequestRate: fact(10),
				LatencySource: analysis.LatencyHistogram, P95: fact(0.1), Held: false, Why: "broke: 3 dropped, achieved 20/s < 95% of 30/s"},
			{Stage: st(2, "a", analysis.StageUnitIterations, 4*time.Second, 6*time.Second, 30, 90), Dropped: 0, Held: false, Why: "no requests measured in this stage"},
		},
	}
	got := stagesOf(load, 3)
	require.Equal(t, "verdict: "+load.VerdictRule, got.Note)
	require.Len(t, got.Rows, 3)

	a1 := got.Rows[0]
	require.Equal(t, "a", a1.Scenario)
	require.Equal(t, 0, a1.Index)
	require.Equal(t, time.Second, a1.TimeUnit)
	require.InDelta(t, 30, a1.Target, 0)
	require.InDelta(t, 29.5, a1.Achieved, 1e-9)
	require.InDelta(t, 118, a1.Iterations, 1e-9)
	require.NotNil(t, a1.P95)
	// Moved to the middle of its schema-3 bucket (37.2 ms, 40.5 ms]: within ±4.4%.
	require.InDelta(t, middle(0.0376, 3), *a1.P95, 1e-12)
	require.InEpsilon(t, 0.0376, *a1.P95, RelativeError(3))
	require.NotNil(t, a1.ErrorRate)
	require.True(t, a1.Held)
	require.Empty(t, a1.Broke)

	b1 := got.Rows[1]
	require.Equal(t, 0, b1.Index, "indexes count per scenario, as tidemark run's STAGES does")
	require.Zero(t, b1.TimeUnit, "a VU stage")
	require.InDelta(t, 5, b1.Achieved, 0, "the VUs active")
	require.Nil(t, b1.ErrorRate)
	require.Equal(t, []string{"3 dropped", "achieved 20/s < 95% of 30/s"}, b1.Broke)

	a2 := got.Rows[2]
	require.Equal(t, 1, a2.Index)
	require.Nil(t, a2.P95)
	require.False(t, a2.Held)
	require.Equal(t, []string{"no requests measured in this stage"}, a2.Broke)
	require.Contains(t, got.Notes[0], "tidemark_scenario_target of each instance and laid over each other")
	require.Contains(t, got.Notes[1], "±4.4%")
}

func TestStagesOfWithoutHistograms(t *testing.T) {
	t.Parallel()
	load := analysis.Load{StagesSource: analysis.StagesInferred, Stages: []analysis.StageFacts{{
		Stage: timeline.Stage{Unit: analysis.StageUnitIterations}, P95: fact(0.2), LatencySource: analysis.LatencyCumulative, Held: true, Why: "held",
	}}}
	got := stagesOf(load, 0)
	require.Nil(t, got.Rows[0].P95, "a per-instance cumulative gauge is not the stage's p95 of the run")
	require.Contains(t, got.Notes[0], "inferred")
	require.Contains(t, got.Notes[1], "not shown")

	none := stagesOf(analysis.Load{}, 3)
	require.Empty(t, none.Rows)
	require.Empty(t, none.Note)
	require.Contains(t, none.Notes[0], "no stages")
}

func TestComputeStagesFallsBackToGivenStages(t *testing.T) {
	t.Parallel()
	given := []analysis.GivenStage{{Duration: 0, Target: 1}, {Duration: time.Second, Target: 2}}
	f := &fakeCorrelator{loads: []analysis.Load{{StagesSource: analysis.StagesInferred}, {StagesSource: analysis.StagesGiven}}}
	_, err := ComputeStages(t.Context(), f, StagesConfig{TestID: "t", Lookback: time.Hour, Given: given, GivenUnit: analysis.StageUnitVUs})
	require.NoError(t, err)
	require.Len(t, f.cfgs, 2, "inferred stages are replaced by the script's")
	require.Empty(t, f.cfgs[0].Stages)
	require.Equal(t, given, f.cfgs[1].Stages)
	require.Equal(t, analysis.StageUnitVUs, f.cfgs[1].StagesUnit)
	require.Equal(t, time.Hour, f.cfgs[1].Lookback)

	f = &fakeCorrelator{loads: []analysis.Load{{StagesSource: analysis.StagesScenarioTarget}}}
	_, err = ComputeStages(t.Context(), f, StagesConfig{TestID: "t", Given: given})
	require.NoError(t, err)
	require.Len(t, f.cfgs, 1, "the run's own targets win over the script's stages")

	f = &fakeCorrelator{err: errors.New("boom")}
	_, err = ComputeStages(t.Context(), f, StagesConfig{TestID: "t"})
	require.EqualError(t, err, `cut the run "t" into stages: boom`)
}

func TestGivenStages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		test     *scenario.Test
		want     []analysis.GivenStage
		wantUnit string
	}{
		{name: "nil"},
		{name: "no staged scenario", test: &scenario.Test{Scenarios: []*scenario.Scenario{{Executor: scenario.ConstantVUs}}}},
		{name: "two staged scenarios", test: &scenario.Test{Scenarios: []*scenario.Scenario{
			{Executor: scenario.RampingVUs, Stages: []scenario.Stage{{Duration: time.Second, Target: 1}}},
			{Executor: scenario.RampingVUs, Stages: []scenario.Stage{{Duration: time.Second, Target: 1}}},
		}}},
		{name: "ramping VUs", test: &scenario.Test{Scenarios: []*scenario.Scenario{
			{Executor: scenario.RampingVUs, StartVUs: 2, Stages: []scenario.Stage{{Duration: 5 * time.Second, Target: 10}}},
		}}, want: []analysis.GivenStage{{Target: 2}, {Duration: 5 * time.Second, Target: 10}}, wantUnit: analysis.StageUnitVUs},
		{name: "ramping arrival rate per minute", test: &scenario.Test{Scenarios: []*scenario.Scenario{
			{Executor: scenario.RampingArrivalRate, StartRate: 60, TimeUnit: time.Minute, Stages: []scenario.Stage{{Duration: 5 * time.Second, Target: 120}}},
		}}, want: []analysis.GivenStage{{Target: 1}, {Duration: 5 * time.Second, Target: 2}}, wantUnit: analysis.StageUnitIterations},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, unit := GivenStages(tc.test)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.wantUnit, unit)
		})
	}
}

func TestK6Catalog(t *testing.T) {
	t.Parallel()
	cat, err := query.LoadFile("")
	require.NoError(t, err)
	k6 := K6Catalog(cat)
	require.Empty(t, k6.Findings)
	require.Contains(t, k6.Queries, "stage_trend_quantile")
	for name, q := range k6.Queries {
		require.Equal(t, analysis.SourceK6, q.Source, name)
	}
	require.Greater(t, len(cat.Queries), len(k6.Queries), "the catalog given is not changed")
	require.NotEmpty(t, cat.Findings)
}
