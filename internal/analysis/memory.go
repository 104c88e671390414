package analysis

import (
	"maps"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// WorkloadMemory holds the memory facts of one workload (Deployment): its containers'
// working set against their memory limit, their restarts and OOM kills.
type WorkloadMemory struct {
	Namespace string `json:"namespace"`
	Workload  string `json:"workload"`
	// Limit is the memory limit per pod (its containers' limits summed).
	Limit *Fact `json:"limit_bytes,omitempty"`
	// PeakWorkingSet is the highest working set of one pod.
	PeakWorkingSet *Fact `json:"peak_working_set_bytes,omitempty"`
	// PeakOfLimit is the highest working set ÷ memory limit of one container.
	PeakOfLimit *Fact `json:"peak_of_limit,omitempty"`
	// Restarts is the number of container restarts of the workload's pods in the
	// window; nil when kube-state-metrics' restarts are not in the timeline.
	Restarts *Fact `json:"restarts,omitempty"`
	// OOMKills are the moments a pod's container was seen OOM-killed.
	OOMKills []time.Time `json:"oom_kills,omitempty"`
	// OfLimit is the highest container working set ÷ limit over the pods, over time.
	OfLimit timeline.Series `json:"of_limit"`
	// RestartsAt are the restarts of the workload's pods, per scrape, over time.
	RestartsAt timeline.Series `json:"restarts_at"`
}

// Object names the workload as namespace/workload.
func (w WorkloadMemory) Object() string { return w.Namespace + "/" + w.Workload }

// AnalyzeMemory derives the memory facts of every workload with a working set or a
// memory limit in the timeline. It is pure.
func AnalyzeMemory(tl *timeline.Timeline) []WorkloadMemory {
	type key struct{ ns, wl string }
	var keys []key
	seen := map[key]bool{}
	for _, q := range []string{QMemoryOfLimit, QMemoryWorkingSet, QMemoryLimit} {
		for _, s := range tl.Set(q) {
			k := key{s.Label("namespace"), s.Label("workload")}
			if k.wl != "" && !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	span := tl.Span()
	resC, resK := tl.Res(SourceCAdvisor), tl.Res(SourceKSM)
	var out []WorkloadMemory
	for _, k := range keys {
		m := map[string]string{"namespace": k.ns, "workload": k.wl}
		w := WorkloadMemory{Namespace: k.ns, Workload: k.wl}
		w.OfLimit = maxSeries(tl.Set(QMemoryOfLimit).Match(m))
		w.OfLimit.Labels = m
		if p, ok := timeline.ArgMax(w.OfLimit.Between(span)); ok {
			w.PeakOfLimit = value(p.V, UnitRatio, p.T, resC, Evidence{Query: QMemoryOfLimit, Series: timeline.LabelString(m), Times: []time.Time{p.T}})
		}
		if p, ok := timeline.ArgMax(maxSeries(tl.Set(QMemoryWorkingSet).Match(m)).Between(span)); ok {
			w.PeakWorkingSet = value(p.V, UnitBytes, p.T, resC, Evidence{Query: QMemoryWorkingSet, Series: timeline.LabelString(m), Times: []time.Time{p.T}})
		}
		if s := tl.Set(QMemoryLimit).Match(m); len(s) > 0 {
			_, hi, _, _ := timeline.Stats(s.First().Points)
			w.Limit = value(hi, UnitBytes, time.Time{}, resK, ev(QMemoryLimit, s.First()))
		}
		if rs := tl.Set(QRestarts).Match(m); len(rs) > 0 {
			var deltas timeline.Set
			for _, s := range rs {
				d, _ := timeline.Deltas(s, tl.Run.From)
				d.Points = slices.DeleteFunc(d.Points, func(p timeline.Point) bool { return p.V <= 0 || !span.Contains(p.T) })
				deltas = append(deltas, d)
			}
			w.RestartsAt = sumPoints(deltas)
			total := 0.0
			for _, p := range w.RestartsAt.Points {
				total += p.V
			}
			w.Restarts = value(total, UnitCount, time.Time{}, resK, Evidence{Query: QRestarts, Series: timeline.LabelString(m)})
		}
		w.OOMKills = oomKills(tl, m, tl.Run.From)
		out = append(out, w)
	}
	return out
}

// oomKills are the moments a pod's last termination turned to OOMKilled, or the pod
// restarted while it was: a reason already set at the run's start is an older kill.
func oomKills(tl *timeline.Timeline, m map[string]string, start time.Time) []time.Time {
	restarts := tl.Set(QRestarts).Match(m)
	var out []time.Time
	for _, s := range tl.Set(QOOMKilled).Match(m) {
		var rs timeline.Series
		for _, r := range restarts {
			if r.Label("pod") == s.Label("pod") {
				rs = r
			}
		}
		for i, p := range s.Points {
			if p.V < 1 {
				continue
			}
			switch {
			case i == 0 && p.T.After(start), i > 0 && s.Points[i-1].V < 1:
				out = append(out, p.T)
			case i > 0 && restartedBetween(rs, s.Points[i-1].T, p.T):
				out = append(out, p.T)
			}
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// restartedBetween reports whether the restart counter rs rose in (from, to].
func restartedBetween(rs timeline.Series, from, to time.Time) bool {
	var before, after float64
	seenBefore, seenAfter := false, false
	for _, p := range rs.Points {
		if !p.T.After(from) {
			before, seenBefore = p.V, true
		} else if !p.T.After(to) {
			after, seenAfter = p.V, true
		}
	}
	return seenBefore && seenAfter && after > before
}

// maxSeries is the point-wise highest value of the series, on the union of their
// timestamps.
func maxSeries(set timeline.Set) timeline.Series {
	by := map[time.Time]float64{}
	for _, s := range set {
		for _, p := range s.Points {
			if v, ok := by[p.T]; !ok || p.V > v {
				by[p.T] = p.V
			}
		}
	}
	out := timeline.Series{}
	for _, t := range slices.SortedFunc(maps.Keys(by), time.Time.Compare) {
		out.Points = append(out.Points, timeline.Point{T: t, V: by[t]})
	}
	return out
}

// sumPoints adds the series' points at equal timestamps.
func sumPoints(set timeline.Set) timeline.Series {
	by := map[time.Time]float64{}
	for _, s := range set {
		for _, p := range s.Points {
			by[p.T] += p.V
		}
	}
	out := timeline.Series{}
	for _, t := range slices.SortedFunc(maps.Keys(by), time.Time.Compare) {
		out.Points = append(out.Points, timeline.Point{T: t, V: by[t]})
	}
	return out
}
