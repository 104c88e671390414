package facts

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Names of the key facts others refer to: the dashboards and the report.
const (
	Requests          = "requests_total"
	ErrorRatio        = "error_ratio"
	PeakRequestRate   = "peak_request_rate"
	StageP95          = "stage_p95_seconds"
	HPAReaction       = "hpa_reaction_seconds"
	HPATimeToMax      = "hpa_time_to_max_seconds"
	HPAScaleInDelay   = "hpa_scale_in_delay_seconds"
	HPAReadyGap       = "hpa_ready_gap_seconds"
	ThrottlingOnsetVU = "throttling_onset_vus"
	DBGrowth          = "db_connections_growth"
	// DBPeakShare is a database server's peak connections ÷ its max_connections
	// (postgres_exporter, mysqld_exporter); PoolBusyShare the peak share of the pools'
	// connections in use, all pods together.
	DBPeakShare   = "db_connections_peak_of_max_ratio"
	PoolBusyShare = "pool_busy_share_peak_ratio"
	ErrorsInGap   = "errors_in_gap_ratio"
	// LargestReadyGap is the largest start-up gap of an HPA, compared but not written
	// back (HPAReadyGap has each step's).
	LargestReadyGap = "hpa_max_ready_gap_seconds"
	// LoadP95 is the whole run's p95 latency, compared but not written back.
	LoadP95 = "p95_seconds"
)

// Values of the HPA reaction's from label: the reaction is counted from the load step
// or from the moment the HPA's metric crossed its target.
const (
	FromLoadStep      = "load_step"
	FromMetricCrossed = "metric_crossed"
)

// Default returns the facts of a correlated run, in report order: the table production
// uses. Each call returns a new table, which the caller may extend.
func Default() Table {
	return slices.Concat(loadFacts(), stageFacts(), autoscalingFacts(), cpuFacts(), databaseFacts(), errorFacts())
}

func loadFacts() Table {
	s := SectionLoad
	l := func(get func(l analysis.Load) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value { return []Value{{Fact: get(a.Load)}} }
	}
	stageTarget := func(idx func(c analysis.Capacity) *int) func(Analysis) []Value {
		return l(func(l analysis.Load) *analysis.Fact {
			i := idx(l.Capacity)
			if i == nil {
				return nil
			}
			return &analysis.Fact{Value: l.Stages[*i].EndTarget, Unit: l.Stages[*i].Unit}
		})
	}
	return Table{
		{Name: Requests, Key: true, Compare: "requests", Unit: analysis.UnitCount, Direction: Neutral, Title: "Requests", Section: s,
			Read: l(func(l analysis.Load) *analysis.Fact { return count(l.Requests) })},
		{Name: "failures_total", Key: true, Compare: "failures", Unit: analysis.UnitCount, Direction: UpIsWorse, Title: "Failures", Section: s,
			Read: l(func(l analysis.Load) *analysis.Fact { return count(l.Failures) })},
		{Name: ErrorRatio, Key: true, Compare: "error_rate", Unit: analysis.UnitRatio, Direction: UpIsWorse, Title: "Error rate", Section: s,
			Read: l(func(l analysis.Load) *analysis.Fact { return l.ErrorRate })},
		{Name: "dropped_iterations_total", Key: true, Compare: "dropped_iterations", Unit: analysis.UnitCount, Direction: UpIsWorse, Title: "Dropped iterations", Section: s,
			Read: l(func(l analysis.Load) *analysis.Fact { return count(l.Dropped) })},
		{Name: PeakRequestRate, Key: true, Compare: PeakRequestRate, Unit: analysis.UnitPerSec, Direction: DownIsWorse, Title: "Peak request rate", Section: s,
			Read: l(func(l analysis.Load) *analysis.Fact { return l.PeakRate })},
		{Name: "peak_vus", Compare: "peak_vus", Unit: analysis.UnitVUs, Title: "Peak VUs", Section: s,
			Read: l(func(l analysis.Load) *analysis.Fact { return l.PeakVUs })},
		{Name: LoadP95, Compare: "p95", Unit: analysis.UnitSeconds, Title: "p95 latency", Section: s,
			Read: l(func(l analysis.Load) *analysis.Fact { return l.P95 })},
		{Name: "last_held_stage_target", Compare: "last_held_stage_target", Title: "Target of the last stage held", Section: s,
			Read: stageTarget(func(c analysis.Capacity) *int { return c.LastHeld })},
		{Name: "first_broken_stage_target", Compare: "first_broken_stage_target", Title: "Target of the first stage broken", Section: s,
			Read: stageTarget(func(c analysis.Capacity) *int { return c.FirstBroke })},
	}
}

func stageFacts() Table {
	s := SectionStages
	labels := []string{"stage", "scenario"}
	st := func(get func(st analysis.StageFacts) (*analysis.Fact, float64)) func(Analysis) []Value {
		return func(a Analysis) []Value {
			out := make([]Value, 0, len(a.Load.Stages))
			for i, st := range a.Load.Stages {
				f, res := get(st)
				out = append(out, Value{Fact: f, Resolution: res, Order: [2]int{i},
					Labels: map[string]string{"stage": strconv.Itoa(st.Index), "scenario": st.Scenario}})
			}
			return out
		}
	}
	return Table{
		{Name: "stage_held", Key: true, Labels: labels, Unit: analysis.UnitCount, Direction: DownIsWorse, Title: "held", Section: s,
			Read: st(func(st analysis.StageFacts) (*analysis.Fact, float64) {
				held := 0.0
				if st.Held {
					held = 1
				}
				return count(held), 0
			})},
		{Name: "stage_achieved_ratio", Key: true, Labels: labels, Unit: analysis.UnitRatio, Direction: DownIsWorse, Title: "achieved of target", Section: s,
			Read: st(func(st analysis.StageFacts) (*analysis.Fact, float64) {
				return st.AchievedRatio, achievedResolution(st)
			})},
		{Name: "stage_error_ratio", Key: true, Labels: labels, Unit: analysis.UnitRatio, Direction: UpIsWorse, Title: "error rate", Section: s,
			Read: st(func(st analysis.StageFacts) (*analysis.Fact, float64) { return st.ErrorRate, 0 })},
		// A latency's resolution is 0: the sample interval says nothing about its precision.
		{Name: StageP95, Key: true, Labels: labels, Unit: analysis.UnitSeconds, Direction: UpIsWorse, Title: "p95 latency", Section: s,
			Read: st(func(st analysis.StageFacts) (*analysis.Fact, float64) { return st.P95, 0 })},
	}
}

func autoscalingFacts() Table {
	s := SectionAutoscaling
	object := []string{"object"}
	h := func(get func(h analysis.HPA) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			out := make([]Value, 0, len(a.Autoscaling))
			for i, h := range a.Autoscaling {
				out = append(out, Value{Fact: get(h), Labels: map[string]string{"object": h.Object()}, Order: [2]int{i}})
			}
			return out
		}
	}
	return Table{
		{Name: "hpa_baseline_replicas", Key: true, Compare: "baseline_replicas", Labels: object, Unit: analysis.UnitReplicas, Direction: Neutral, Title: "HPA baseline replicas", Section: s,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.Baseline })},
		{Name: "hpa_peak_replicas", Key: true, Compare: "peak_replicas", Labels: object, Unit: analysis.UnitReplicas, Direction: Neutral, Title: "HPA peak replicas", Section: s,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.Peak })},
		{Name: HPAReaction, Key: true, Compare: "reaction_from_load_step", Fixed: map[string]string{"from": FromLoadStep}, Labels: object, Unit: analysis.UnitSeconds,
			Direction: UpIsWorse, Title: "HPA reaction", Section: s, Span: true,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.ReactionFromLoadStep })},
		{Name: HPAReaction, Key: true, Compare: "reaction_from_crossing", Fixed: map[string]string{"from": FromMetricCrossed}, Labels: object, Unit: analysis.UnitSeconds,
			Direction: UpIsWorse, Title: "HPA reaction after crossing", Section: s, Span: true,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.ReactionFromCrossing })},
		{Name: HPATimeToMax, Key: true, Compare: "time_to_max", Labels: object, Unit: analysis.UnitSeconds, Direction: UpIsWorse, Title: "Time to max", Section: s, Span: true,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.TimeToMax })},
		{Name: "hpa_held_at_max_seconds", Key: true, Compare: "held_at_max", Labels: object, Unit: analysis.UnitSeconds, Direction: Neutral, Title: "Held at max", Section: s, Span: true,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.HeldAtMax })},
		{Name: LargestReadyGap, Compare: "max_ready_gap", Labels: object, Unit: analysis.UnitSeconds, Title: "Largest start-up gap", Section: s, Span: true,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.LargestStartupGap() })},
		{Name: HPAScaleInDelay, Key: true, Compare: "scale_in_delay", Labels: object, Unit: analysis.UnitSeconds, Direction: UpIsWorse, Title: "Scale-in delay", Section: s, Span: true,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.ScaleInDelay })},
		{Name: "hpa_recovery_seconds", Key: true, Compare: "recovery_after_load_end", Labels: object, Unit: analysis.UnitSeconds, Direction: UpIsWorse, Title: "Recovery to min", Section: s, Span: true,
			Read: h(func(h analysis.HPA) *analysis.Fact { return h.RecoveryAfterLoadEnd })},
		{Name: HPAReadyGap, Key: true, Labels: []string{"object", "step", "to"}, Unit: analysis.UnitSeconds, Direction: UpIsWorse, Title: "Start-up gap", Section: s, Span: true,
			Read: func(a Analysis) []Value {
				var out []Value
				for i, h := range a.Autoscaling {
					for j, st := range h.Steps {
						out = append(out, Value{Fact: st.ReadyGap, Order: [2]int{i}, Labels: map[string]string{
							"object": h.Object(), "step": strconv.Itoa(j), "to": strconv.FormatFloat(st.To, 'f', -1, 64)}})
					}
				}
				return out
			}},
	}
}

func cpuFacts() Table {
	s := SectionCPU
	object := []string{"object"}
	w := func(get func(w analysis.WorkloadCPU) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			out := make([]Value, 0, len(a.CPU))
			for i, w := range a.CPU {
				out = append(out, Value{Fact: get(w), Labels: map[string]string{"object": w.Object()}, Order: [2]int{i}})
			}
			return out
		}
	}
	// An onset's load is read within one interval of the throttling source before the
	// sample that showed it: its resolution is the range of the load series there.
	onset := func(q string, get func(on analysis.Onset) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			var out []Value
			for i, w := range a.CPU {
				for j, on := range w.Onsets {
					out = append(out, Value{Fact: get(on), Resolution: onsetResolution(a, q, on), Order: [2]int{i, j + 1},
						Labels: map[string]string{"object": w.Object(), "threshold": fmt.Sprintf("%g", on.Threshold)}})
				}
			}
			return out
		}
	}
	// The throttling onset of the report: the first hold throttled in most of its CFS
	// periods, read at its configured target (VUs) and achieved request rate.
	hold := func(get func(h analysis.HoldThrottling) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			var out []Value
			for i, w := range a.CPU {
				if w.StageOnset != nil {
					out = append(out, Value{Fact: get(*w.StageOnset), Labels: map[string]string{"object": w.Object()}, Order: [2]int{i}})
				}
			}
			return out
		}
	}
	// Onsets are compared by threshold: throttled_over_5%_vus.
	onsetRow := func(suffix string) func(map[string]string) string {
		return func(l map[string]string) string {
			th, err := strconv.ParseFloat(l["threshold"], 64)
			if err != nil {
				return ""
			}
			return fmt.Sprintf("throttled_over_%g%%", 100*th) + suffix
		}
	}
	return Table{
		{Name: "cpu_peak_usage_of_request", Compare: "peak_usage_of_request", Labels: object, Unit: analysis.UnitRatio, Title: "Peak CPU of request", Section: s,
			Read: w(func(w analysis.WorkloadCPU) *analysis.Fact { return w.PeakUsageOfRequest })},
		{Name: "cpu_peak_usage_of_limit_ratio", Key: true, Compare: "peak_usage_of_limit", Labels: object, Unit: analysis.UnitRatio, Direction: UpIsWorse, Title: "Peak CPU of limit", Section: s,
			Read: w(func(w analysis.WorkloadCPU) *analysis.Fact { return w.PeakUsageOfLimit })},
		{Name: "cpu_peak_throttled_ratio", Key: true, Compare: "peak_throttled_ratio", Labels: object, Unit: analysis.UnitRatio, Direction: UpIsWorse, Title: "Peak CPU throttling", Section: s,
			Read: w(func(w analysis.WorkloadCPU) *analysis.Fact { return w.PeakThrottled })},
		{Name: ThrottlingOnsetVU, Key: true, CompareBy: onsetRow("_vus"), Labels: []string{"object", "threshold"}, Unit: analysis.UnitVUs, Direction: DownIsWorse,
			Title: "Throttling onset VUs", Section: s,
			Read: onset(analysis.QVUs, func(on analysis.Onset) *analysis.Fact { return on.VUs })},
		{Name: "throttling_hold_onset_vus", Key: true, Compare: "hold_onset_vus", Labels: object, Unit: analysis.UnitVUs, Direction: DownIsWorse,
			Title: "Throttling onset (hold) VUs", Section: s,
			Read: hold(func(h analysis.HoldThrottling) *analysis.Fact {
				if h.Unit != analysis.StageUnitVUs || h.Share == nil {
					return nil
				}
				return &analysis.Fact{Value: h.Target, Unit: analysis.UnitVUs, At: h.Share.At, Evidence: h.Share.Evidence}
			})},
		{Name: "throttling_hold_onset_request_rate", Key: true, Compare: "hold_onset_request_rate", Labels: object, Unit: analysis.UnitPerSec, Direction: DownIsWorse,
			Title: "Throttling onset (hold) request rate", Section: s,
			Read: hold(func(h analysis.HoldThrottling) *analysis.Fact { return h.RequestRate })},
		{Name: "throttling_onset_request_rate", Key: true, CompareBy: onsetRow("_request_rate"), Labels: []string{"object", "threshold"}, Unit: analysis.UnitPerSec,
			Direction: DownIsWorse, Title: "Throttling onset request rate", Section: s,
			Read: onset(analysis.QHTTPReqRate, func(on analysis.Onset) *analysis.Fact { return on.RequestRate })},
	}
}

func databaseFacts() Table {
	s := SectionDatabase
	object := []string{"object"}
	d := func(get func(d analysis.Database) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			out := make([]Value, 0, len(a.Database))
			for i, d := range a.Database {
				out = append(out, Value{Fact: get(d), Labels: map[string]string{"object": d.Instance}, Order: [2]int{i}})
			}
			return out
		}
	}
	srv := func(get func(d analysis.DBServer) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			out := make([]Value, 0, len(a.Connections.Servers))
			for i, d := range a.Connections.Servers {
				out = append(out, Value{Fact: get(d), Labels: map[string]string{"object": d.Server}, Order: [2]int{len(a.Database) + i}})
			}
			return out
		}
	}
	total := func(get func(p analysis.Pool) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			if a.Connections.Total == nil {
				return []Value{{}}
			}
			return []Value{{Fact: get(*a.Connections.Total)}}
		}
	}
	pod := func(get func(p analysis.Pool) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value {
			out := make([]Value, 0, len(a.Connections.Pools))
			for i, p := range a.Connections.Pools {
				out = append(out, Value{Fact: get(p), Labels: map[string]string{"object": p.Name()}, Order: [2]int{i}})
			}
			return out
		}
	}
	return Table{
		{Name: "db_cpu_peak_percent", Key: true, Compare: "cpu_peak_percent", Labels: object, Unit: analysis.UnitPercent, Direction: UpIsWorse, Title: "DB CPU peak", Section: s,
			Read: d(func(d analysis.Database) *analysis.Fact { return d.CPUPeak })},
		// RDS instances, then the servers seen through postgres_exporter or mysqld_exporter.
		{Name: "db_connections_peak", Compare: "connections_peak", Labels: object, Unit: analysis.UnitCount, Title: "DB connections peak", Section: s,
			Read: func(a Analysis) []Value {
				return append(d(func(d analysis.Database) *analysis.Fact { return d.ConnectionsPeak })(a),
					srv(func(d analysis.DBServer) *analysis.Fact { return d.ConnectionsPeak })(a)...)
			}},
		{Name: "db_max_connections", Compare: "max_connections", Labels: object, Unit: analysis.UnitCount, Title: "DB max_connections", Section: s,
			Read: srv(func(d analysis.DBServer) *analysis.Fact { return d.MaxConnections })},
		{Name: DBPeakShare, Key: true, Compare: "connections_peak_of_max", Labels: object, Unit: analysis.UnitRatio, Direction: UpIsWorse,
			Title: "DB connections peak of max_connections", Section: s,
			Read: srv(func(d analysis.DBServer) *analysis.Fact { return d.PeakShare })},
		// The pools of all pods together are key facts; each pod's are compared (pod names
		// change between runs, so they are no series of their own).
		{Name: "pool_busy_peak", Key: true, Compare: "pool_busy_peak", Unit: analysis.UnitCount, Direction: Neutral, Title: "Pool connections busy peak (all pods)", Section: s,
			Read: total(func(p analysis.Pool) *analysis.Fact { return p.BusyPeak })},
		{Name: PoolBusyShare, Key: true, Compare: "pool_busy_share_peak", Unit: analysis.UnitRatio, Direction: UpIsWorse, Title: "Pool busy share peak (all pods)", Section: s,
			Read: total(func(p analysis.Pool) *analysis.Fact { return p.BusyShare })},
		{Name: "pool_pending_peak", Key: true, Compare: "pool_pending_peak", Unit: analysis.UnitCount, Direction: UpIsWorse, Title: "Pool waiters peak (all pods)", Section: s,
			Read: total(func(p analysis.Pool) *analysis.Fact { return p.PendingPeak })},
		{Name: "pool_waiters_first_seconds", Compare: "pool_waiters_first", Unit: analysis.UnitSeconds, Title: "First pool waiter after the run start", Section: s, Span: true,
			Read: total(func(p analysis.Pool) *analysis.Fact { return p.WaitersAfterStart })},
		{Name: "pool_pod_busy_share_peak_ratio", Compare: "pod_busy_share_peak", Labels: object, Unit: analysis.UnitRatio, Title: "Pool busy share peak", Section: s,
			Read: pod(func(p analysis.Pool) *analysis.Fact { return p.BusyShare })},
		{Name: "pool_pod_pending_peak", Compare: "pod_pending_peak", Labels: object, Unit: analysis.UnitCount, Title: "Pool waiters peak", Section: s,
			Read: pod(func(p analysis.Pool) *analysis.Fact { return p.PendingPeak })},
		{Name: DBGrowth, Key: true, Compare: "connections_growth", Labels: object, Unit: analysis.UnitCount, Direction: UpIsWorse, Title: "DB connections growth", Section: s,
			Read: d(func(d analysis.Database) *analysis.Fact { return d.ConnectionsGrowth })},
		{Name: "db_freeable_memory_min", Compare: "freeable_memory_min", Labels: object, Unit: analysis.UnitBytes, Title: "DB freeable memory min", Section: s,
			Read: d(func(d analysis.Database) *analysis.Fact { return d.FreeableMin })},
	}
}

func errorFacts() Table {
	s := SectionErrors
	e := func(get func(e analysis.Errors) *analysis.Fact) func(Analysis) []Value {
		return func(a Analysis) []Value { return []Value{{Fact: get(a.Errors)}} }
	}
	largest := func(e analysis.Errors) (analysis.Burst, bool) {
		if len(e.Bursts) == 0 {
			return analysis.Burst{}, false
		}
		return slices.MaxFunc(e.Bursts, func(a, b analysis.Burst) int { return cmp.Compare(a.Share, b.Share) }), true
	}
	return Table{
		{Name: ErrorsInGap, Key: true, Compare: "in_gap_share", Unit: analysis.UnitRatio, Direction: UpIsWorse, Title: "Failures inside start-up gaps", Section: s,
			Read: e(func(e analysis.Errors) *analysis.Fact { return e.InGapShare })},
		{Name: "errors_bursts_total", Compare: "bursts", Unit: analysis.UnitCount, Title: "Error bursts", Section: s,
			Read: e(func(e analysis.Errors) *analysis.Fact { return count(float64(len(e.Bursts))) })},
		{Name: "errors_largest_burst_share_ratio", Compare: "largest_burst_share", Unit: analysis.UnitRatio, Title: "Largest error burst's share of failures", Section: s,
			Read: e(func(e analysis.Errors) *analysis.Fact {
				if b, ok := largest(e); ok {
					return &analysis.Fact{Value: b.Share, Unit: analysis.UnitRatio}
				}
				return nil
			})},
		{Name: "errors_largest_burst_seconds", Compare: "largest_burst_seconds", Unit: analysis.UnitSeconds, Title: "Largest error burst", Section: s,
			Read: e(func(e analysis.Errors) *analysis.Fact {
				if b, ok := largest(e); ok {
					return &analysis.Fact{Value: b.Duration().Round(time.Second).Seconds(), Unit: analysis.UnitSeconds}
				}
				return nil
			})},
	}
}

// count is a count read from the run, exact.
func count(v float64) *analysis.Fact { return &analysis.Fact{Value: v, Unit: analysis.UnitCount} }

// achievedResolution bounds a stage's achieved ratio: the rate is counted over the stage,
// whose ends are each known to within the fact's resolution.
func achievedResolution(st analysis.StageFacts) float64 {
	f := st.AchievedRatio
	if f == nil {
		return 0
	}
	d := st.To.Sub(st.From).Seconds()
	if d <= 0 || f.ResolutionSeconds <= 0 {
		return 0
	}
	return min(f.Value*2*f.ResolutionSeconds/d, f.Value)
}

// onsetResolution bounds the load read at a throttling onset: the onset happened within
// one interval (of the throttling source) before the sample that showed it, and the load
// took every value of its series over that interval.
func onsetResolution(a Analysis, q string, on analysis.Onset) float64 {
	if on.At == nil || on.At.ResolutionSeconds <= 0 || len(a.Series[q]) == 0 {
		return 0
	}
	res := time.Duration(on.At.ResolutionSeconds * float64(time.Second))
	s := a.Series[q].Sum(res)
	lo, hi, _, ok := timeline.Stats(s.Between(timeline.Window{From: on.At.At.Add(-res), To: on.At.At}))
	if !ok {
		return 0
	}
	return hi - lo
}
