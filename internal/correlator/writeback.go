package correlator

import (
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/timeline"
)

// EventMetric is the name of the written-back events: one sample of value 1 per event,
// at the event's time, labelled testid, kind and object; Grafana annotations and PromQL
// can use it. The key facts are written back as facts.Prefix + the fact's name.
const EventMetric = "tidemark_event"

// BottleneckMetric is the written-back verdict of what limited the run: one sample of
// value 1 at the run's end, labelled testid and resource (analysis.Resource*).
const BottleneckMetric = "tidemark_run_bottleneck"

// Analysis returns what the facts of the run are read from (facts.Table).
func (r *Result) Analysis() facts.Analysis {
	return facts.Analysis{Load: r.Load, Autoscaling: r.Autoscaling, CPU: r.CPU, Database: r.Database, Connections: r.Connections, Errors: r.Errors, Series: r.Series}
}

// KeyFacts returns the key facts of a result (facts.Default): the facts written back as
// tidemark_fact_* and compared between runs. Facts the run does not have are left out.
func KeyFacts(r *Result) []facts.KeyFact { return facts.Default().KeyFacts(r.Analysis()) }

// WriteBack returns the events and key facts of a result as series to write back to
// Prometheus (remote write): tidemark_event{testid,kind,object} and tidemark_fact_*
// (KeyFacts, one sample at the run's end), and with --slo the rules' states
// (tidemark_slo_rule_firing). Every series carries testid; facts the run does not have
// produce no series.
func WriteBack(r *Result) []timeline.Series { return WriteBackWith(facts.Default(), r) }

// WriteBackWith is WriteBack with the key facts of table t.
func WriteBackWith(t facts.Table, r *Result) []timeline.Series {
	var out []timeline.Series
	for _, e := range r.Events {
		out = append(out, timeline.Series{
			Labels: map[string]string{"__name__": EventMetric, "testid": r.TestID, "kind": e.Kind, "object": e.Object},
			Points: []timeline.Point{{T: e.At, V: 1}},
		})
	}
	if b := r.Bottleneck.Resource; b != "" && !r.Window.Run.To.IsZero() {
		out = append(out, timeline.Series{
			Labels: map[string]string{"__name__": BottleneckMetric, "testid": r.TestID, "resource": b},
			Points: []timeline.Point{{T: r.Window.Run.To, V: 1}},
		})
	}
	out = append(out, sloSeries(r)...)
	return append(out, t.Series(r.TestID, r.Window.Run.To, r.Analysis())...)
}

// sloSeries are the run's server-side rules judged over its window (--slo) as
// series.SLORuleFiringMetric, judge="correlate": each rule's state at each of its
// evaluations. Rules of the same name and severity are one series, firing when any
// of them fires.
func sloSeries(r *Result) []timeline.Series {
	if r.SLO == nil {
		return nil
	}
	var out []timeline.Series
	index := map[[2]string]int{}
	for _, o := range r.SLO.Run.Outcomes {
		if len(o.Points) == 0 {
			continue
		}
		key := [2]string{o.Alert, o.Severity}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, timeline.Series{Labels: map[string]string{"__name__": series.SLORuleFiringMetric, "testid": r.TestID,
				"alertname": o.Alert, "severity": o.Severity, "judge": "correlate"}})
		}
		byT := map[time.Time]int{}
		for j, p := range out[i].Points {
			byT[p.T] = j
		}
		for _, p := range o.Points {
			if j, ok := byT[p.T]; ok {
				out[i].Points[j].V = max(out[i].Points[j].V, p.V)
				continue
			}
			out[i].Points = append(out[i].Points, timeline.Point{T: p.T, V: p.V})
		}
		slices.SortFunc(out[i].Points, func(a, b timeline.Point) int { return a.T.Compare(b.T) })
	}
	return out
}
