package runsummary

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/summary"
)

// Correlator analyses one run; *correlator.Correlator is one. Stages uses its load
// analysis: the stages cut from the run's tidemark_scenario_target summed over its
// instances, their counters' increases summed across instances, their quantiles from
// the summed native histograms (the catalog's stage_trend_quantile), and their verdicts
// by the run's thresholds.
type Correlator interface {
	Correlate(ctx context.Context, cfg correlator.Config) (*correlator.Result, error)
}

var _ Correlator = (*correlator.Correlator)(nil)

// StagesConfig is the run whose STAGES table to compute.
type StagesConfig struct {
	// TestID is the run; Lookback how far back from now to search for it, as for
	// correlator.FindRun (which finds the same window as the summary's).
	TestID   string
	Lookback time.Duration
	// Schema is the run's native-histogram schema (Result.Schema): each quantile is moved
	// to the geometric middle of its bucket, so that it is within RelativeError(Schema)
	// of the exact value, as the run's trends are.
	Schema int32
	// Given are the stages of the script or scenario given, for a run that wrote no
	// tidemark_scenario_target (one k6 made); GivenUnit is what their targets count
	// (analysis.StageUnitVUs or analysis.StageUnitIterations). See GivenStages.
	Given     []analysis.GivenStage
	GivenUnit string
}

// Stages is the run's STAGES table.
type Stages struct {
	// Rows are the stages in time order.
	Rows []summary.StageResult
	// Note is the line under the table that says what the verdicts judged.
	Note string
	// Notes say where the stages came from and how exact their quantiles are; one line
	// each, for summary.Input.Extra.
	Notes []string
}

// K6Catalog is cat with the k6 source's queries only: the load analysis ComputeStages
// needs, without the cluster's queries and findings. The sources stay, for the
// fragments that render their selectors.
func K6Catalog(cat *query.Catalog) *query.Catalog {
	out := *cat
	out.Queries = maps.Clone(cat.Queries)
	maps.DeleteFunc(out.Queries, func(_ string, q query.Query) bool { return q.Source != analysis.SourceK6 })
	out.Findings = nil
	return &out
}

// GivenStages are the stages of test's single staged scenario (ramping-vus or
// ramping-arrival-rate) for StagesConfig.Given, with a jump to its start target first;
// none when the test has no such scenario or several.
func GivenStages(test *scenario.Test) ([]analysis.GivenStage, string) {
	if test == nil {
		return nil, ""
	}
	var sc *scenario.Scenario
	for i := range test.Scenarios {
		if len(test.Scenarios[i].Stages) == 0 {
			continue
		}
		if sc != nil {
			return nil, "" // several: given stages lie over one scenario only
		}
		sc = test.Scenarios[i]
	}
	if sc == nil {
		return nil, ""
	}
	unit, scale, start := analysis.StageUnitVUs, 1.0, float64(sc.StartVUs)
	if sc.Executor == scenario.RampingArrivalRate {
		unit, scale, start = analysis.StageUnitIterations, 1.0, sc.StartRate
		if sc.TimeUnit > 0 {
			scale = 1 / sc.TimeUnit.Seconds()
		}
		start *= scale
	}
	out := []analysis.GivenStage{{Duration: 0, Target: start}} // a 0s stage is a jump to its target
	for _, st := range sc.Stages {
		out = append(out, analysis.GivenStage{Duration: st.Duration, Target: st.Target * scale})
	}
	return out, unit
}

// ComputeStages computes the run's STAGES table with c's load analysis.
func ComputeStages(ctx context.Context, c Correlator, cfg StagesConfig) (*Stages, error) {
	ccfg := correlator.Config{TestID: cfg.TestID, Lookback: cfg.Lookback, Baseline: time.Second, After: time.Second}
	res, err := c.Correlate(ctx, ccfg)
	if err != nil {
		return nil, fmt.Errorf("cut the run %q into stages: %w", cfg.TestID, err)
	}
	if res.Load.StagesSource == analysis.StagesInferred && len(cfg.Given) > 0 {
		ccfg.Stages, ccfg.StagesUnit = cfg.Given, cfg.GivenUnit
		if res, err = c.Correlate(ctx, ccfg); err != nil {
			return nil, fmt.Errorf("lay the script's stages over the run %q: %w", cfg.TestID, err)
		}
	}
	return stagesOf(res.Load, cfg.Schema), nil
}

// stagesOf maps the load analysis' stages to STAGES rows.
func stagesOf(load analysis.Load, schema int32) *Stages {
	out := &Stages{}
	if len(load.Stages) == 0 {
		out.Notes = append(out.Notes, "STAGES: the run has no stages to show (no tidemark_scenario_target and none could be inferred)")
		return out
	}
	out.Note = "verdict: " + load.VerdictRule
	perScenario := map[string]int{}
	var native, cumulative bool
	for _, sf := range load.Stages {
		st := sf.Stage
		d := st.Duration().Seconds()
		row := summary.StageResult{Scenario: st.Scenario, Index: perScenario[st.Scenario], Start: st.From, End: st.To,
			Target: st.EndTarget, Dropped: sf.Dropped, Held: sf.Held, Verdict: sf.Why}
		perScenario[st.Scenario]++
		if sf.Achieved != nil {
			row.Iterations = sf.Achieved.Value * d
		}
		if st.Unit == analysis.StageUnitIterations {
			row.TimeUnit = time.Second
			if sf.Achieved != nil {
				row.Achieved = sf.Achieved.Value
			}
		} else if sf.MaxVUs != nil {
			row.Achieved = sf.MaxVUs.Value
		}
		if sf.RequestRate != nil {
			row.RequestRate = sf.RequestRate.Value
		}
		if sf.ErrorRate != nil {
			v := sf.ErrorRate.Value
			row.ErrorRate = &v
		}
		if sf.LatencySource == analysis.LatencyHistogram {
			for _, q := range []struct {
				src *analysis.Fact
				dst **float64
			}{{sf.P50, &row.P50}, {sf.P95, &row.P95}, {sf.P99, &row.P99}} {
				if q.src != nil {
					native = true
					v := middle(q.src.Value, schema)
					*q.dst = &v
				}
			}
		} else if sf.P95 != nil {
			cumulative = true
		}
		if rest, ok := strings.CutPrefix(sf.Why, "broke: "); ok {
			row.Broke = strings.Split(rest, ", ")
		} else if !sf.Held {
			row.Broke = []string{sf.Why}
		}
		out.Rows = append(out.Rows, row)
	}
	switch load.StagesSource {
	case analysis.StagesScenarioTarget:
		out.Notes = append(out.Notes, "STAGES: cut from the run's tidemark_scenario_target of each instance and laid over each other (targets summed), as tidemark correlate cuts them; "+
			"counts are the stage's increases summed across instances")
	case analysis.StagesGiven:
		out.Notes = append(out.Notes, "STAGES: the script's stages laid from the run's start (the run wrote no tidemark_scenario_target); "+
			"counts are the stage's increases summed across instances")
	case analysis.StagesInferred:
		out.Notes = append(out.Notes, "STAGES: inferred from what the run achieved (it wrote no tidemark_scenario_target): targets are the levels achieved")
	}
	switch {
	case cumulative && !native:
		out.Notes = append(out.Notes, "STAGES: p50, p95 and p99 per stage not shown — the run wrote no native histograms, and per-instance "+
			"percentile gauges cannot be combined")
	case native:
		out.Notes = append(out.Notes, "STAGES: p50, p95 and p99 per stage from the instances' native histograms summed over the stage's window "+
			"(schema "+strconv.Itoa(int(schema))+"): each within ±"+strconv.FormatFloat(100*RelativeError(schema), 'f', 1, 64)+"% of the exact value")
	}
	return out
}
