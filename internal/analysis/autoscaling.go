package analysis

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// ScaleStep is one change of an HPA's desired replicas and how the Deployment followed.
type ScaleStep struct {
	Direction string  `json:"direction"` // "up" or "down"
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	// DesiredAt is when status.desiredReplicas changed (between the previous sample and this one).
	DesiredAt *Fact `json:"desired_at"`
	// CurrentAt is when status.currentReplicas reached To.
	CurrentAt *Fact `json:"current_at,omitempty"`
	// ReadyAt is when the Deployment's ready replicas reached To (scale-up only).
	ReadyAt *Fact `json:"ready_at,omitempty"`
	// ReadyGap is ReadyAt − CurrentAt: how long the new pods took to take traffic.
	ReadyGap *Fact `json:"ready_gap,omitempty"`
	// NeverReady is set when ready replicas never reached To in the window.
	NeverReady bool `json:"never_ready,omitempty"`
	// ReadyMax is the most ready replicas seen after the step when NeverReady.
	ReadyMax float64 `json:"ready_max,omitempty"`
}

// PodStartup is one pod's create → Ready latency from KSM's timestamp-valued gauges.
type PodStartup struct {
	Pod        string    `json:"pod"`
	Created    time.Time `json:"created"`
	Ready      time.Time `json:"ready,omitzero"`
	Startup    *Fact     `json:"startup,omitempty"`
	NeverReady bool      `json:"never_ready,omitempty"`
}

// HPA holds the autoscaling facts of one HorizontalPodAutoscaler.
type HPA struct {
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Deployment string `json:"deployment,omitempty"`
	Min        *Fact  `json:"min_replicas,omitempty"`
	Max        *Fact  `json:"max_replicas,omitempty"`
	// TargetMetric describes the target, e.g. "cpu utilization 70".
	TargetMetric         string       `json:"target_metric,omitempty"`
	TargetValue          *Fact        `json:"target_value,omitempty"`
	Tolerance            float64      `json:"tolerance"`
	ToleranceFrom        string       `json:"tolerance_from"`
	Baseline             *Fact        `json:"baseline_replicas,omitempty"`
	Peak                 *Fact        `json:"peak_replicas,omitempty"`
	MetricCrossed        *Fact        `json:"metric_crossed,omitempty"`
	Steps                []ScaleStep  `json:"steps"`
	FirstScaleUp         *Fact        `json:"first_scale_up,omitempty"`
	LoadStep             time.Time    `json:"load_step,omitzero"`
	ReactionFromLoadStep *Fact        `json:"reaction_from_load_step,omitempty"`
	ReactionFromCrossing *Fact        `json:"reaction_from_crossing,omitempty"`
	MaxReached           *Fact        `json:"max_reached,omitempty"`
	TimeToMax            *Fact        `json:"time_to_max,omitempty"`
	HeldAtMax            *Fact        `json:"held_at_max,omitempty"`
	ScaleInStart         *Fact        `json:"scale_in_start,omitempty"`
	ScaleInDelay         *Fact        `json:"scale_in_delay,omitempty"`
	RecoveredToMin       *Fact        `json:"recovered_to_min,omitempty"`
	RecoveryAfterLoadEnd *Fact        `json:"recovery_after_load_end,omitempty"`
	Pods                 []PodStartup `json:"pods,omitempty"`
	// Gaps are the spans in which current replicas exceeded ready replicas.
	Gaps []timeline.Window `json:"gaps,omitempty"`
}

// Object names the HPA as namespace/name.
func (h HPA) Object() string { return h.Namespace + "/" + h.Name }

// AnalyzeAutoscaling derives the facts of every HPA in the timeline.
func AnalyzeAutoscaling(tl *timeline.Timeline, load Load, cfg Config) ([]HPA, []Event, []Note) {
	var (
		out    []HPA
		events []Event
		notes  []Note
	)
	res := tl.Res(SourceKSM)
	span := tl.Span()
	current := tl.Set(QHPACurrent)
	if len(current) == 0 {
		notes = append(notes, note(NoteMissing, "autoscaling", "", "no kube_horizontalpodautoscaler_* series in the window — is kube-state-metrics scraped, and is there an HPA in the namespace?"))
		return nil, nil, notes
	}
	for _, cur := range current {
		key := map[string]string{"namespace": cur.Label("namespace"), "horizontalpodautoscaler": cur.Label("horizontalpodautoscaler")}
		h := HPA{Namespace: key["namespace"], Name: key["horizontalpodautoscaler"], Tolerance: cfg.HPATolerance, ToleranceFrom: "default"}
		obj := h.Object()
		h.Deployment = tl.Set(QHPADeployment).Match(key).First().Label("deployment")
		if h.Deployment == "" {
			notes = append(notes, note(NotePartial, "autoscaling", obj, "no kube_horizontalpodautoscaler_info with a Deployment scale target: ready replicas and pods cannot be joined"))
		}
		if s := tl.Set(QHPAMin).Match(key).First(); !s.Empty() {
			p := s.Points[len(s.Points)-1]
			h.Min = value(p.V, UnitReplicas, p.T, res, ev(QHPAMin, s, p.T))
		}
		if s := tl.Set(QHPAMax).Match(key).First(); !s.Empty() {
			p := s.Points[len(s.Points)-1]
			h.Max = value(p.V, UnitReplicas, p.T, res, ev(QHPAMax, s, p.T))
		}
		if s := tl.Set(QHPATolerance).Match(key).First(); !s.Empty() {
			h.Tolerance, h.ToleranceFrom = s.Points[len(s.Points)-1].V, "kube-state-metrics"
		}
		desired := tl.Set(QHPADesired).Match(key).First()
		dep := map[string]string{"namespace": h.Namespace, "deployment": h.Deployment}
		ready := tl.Set(QDeploymentReady).Match(dep).First()
		if h.Deployment != "" && ready.Empty() {
			notes = append(notes, note(NoteMissing, "autoscaling", obj, "no kube_deployment_status_replicas_ready for %s: ready catch-up and start-up gaps are unknown", h.Deployment))
		}

		// Baseline: the last current value before the run.
		if p, ok := lastIn(cur, timeline.Window{From: span.From, To: tl.Run.From}); ok {
			h.Baseline = value(p.V, UnitReplicas, p.T, res, ev(QHPACurrent, cur, p.T))
		} else if len(cur.Points) > 0 {
			p := cur.Points[0]
			h.Baseline = value(p.V, UnitReplicas, p.T, res, ev(QHPACurrent, cur, p.T))
			notes = append(notes, note(NotePartial, "autoscaling", obj, "no HPA sample before the run: baseline taken from the first sample at %s", p.T.Format(time.RFC3339)))
		}
		if p, ok := timeline.ArgMax(cur.Between(span)); ok {
			h.Peak = value(p.V, UnitReplicas, p.T, res, ev(QHPACurrent, cur, p.T))
		}

		h.crossing(tl, key, res, &notes)
		added := h.steps(cur, desired, ready, span, res, &notes)
		h.reaction(load, added)
		h.atMax(cur, span, load, res, &notes)
		h.scaleIn(cur, load, res)
		h.Gaps = gaps(cur, ready, span, res)
		h.Pods = pods(tl, h.Namespace, h.Deployment, span, &notes, obj)

		if len(h.Steps) == 0 {
			notes = append(notes, note(NoteInfo, "autoscaling", obj, "no scale step in the window (desired replicas never changed)"))
		}
		for _, st := range h.Steps {
			kind := EventScaleUp
			if st.Direction == "down" {
				kind = EventScaleDown
			}
			events = append(events, Event{At: st.DesiredAt.At, Kind: kind, Object: obj, ResolutionSeconds: res.Seconds(), Text: fmt.Sprintf("desired %g→%g", st.From, st.To)})
			if st.ReadyAt != nil {
				events = append(events, Event{At: st.ReadyAt.At, Kind: EventReadyCaughtUp, Object: obj, ResolutionSeconds: res.Seconds(), Text: fmt.Sprintf("%g ready", st.To)})
			}
		}
		for _, e := range []struct {
			f    *Fact
			kind string
			text string
		}{{h.MetricCrossed, EventMetricCrossed, "metric crossed target×(1+tolerance)"}, {h.MaxReached, EventMaxReached, "at maxReplicas"}, {h.ScaleInStart, EventScaleInStart, "scale-in started"}, {h.RecoveredToMin, EventRecovered, "back to minReplicas"}} {
			if e.f != nil {
				events = append(events, Event{At: e.f.At, Kind: e.kind, Object: obj, Text: e.text, ResolutionSeconds: e.f.ResolutionSeconds})
			}
		}
		out = append(out, h)
	}
	return out, events, notes
}

func (h *HPA) crossing(tl *timeline.Timeline, key map[string]string, res time.Duration, notes *[]Note) {
	targets := tl.Set(QHPATargetMetric).Match(key)
	if len(targets) == 0 {
		*notes = append(*notes, note(NoteMissing, "autoscaling", h.Object(), "no kube_horizontalpodautoscaler_spec_target_metric: the metric crossing cannot be dated"))
		return
	}
	// Prefer CPU utilization, then any utilization, then the first target.
	pick := targets[0]
	for _, t := range targets {
		if t.Label("metric_target_type") == "utilization" && (pick.Label("metric_target_type") != "utilization" || t.Label("metric_name") == "cpu") {
			pick = t
		}
	}
	tv := pick.Points[len(pick.Points)-1]
	h.TargetMetric = fmt.Sprintf("%s %s %g", pick.Label("metric_name"), pick.Label("metric_target_type"), tv.V)
	h.TargetValue = value(tv.V, pick.Label("metric_target_type"), tv.T, res, ev(QHPATargetMetric, pick, tv.T))
	status := tl.Set(QHPAStatusMetric).Match(map[string]string{"namespace": h.Namespace, "horizontalpodautoscaler": h.Name,
		"metric_name": pick.Label("metric_name"), "metric_target_type": pick.Label("metric_target_type")}).First()
	limit := tv.V * (1 + h.Tolerance)
	if !status.Empty() {
		ps := status.Points
		if p, i, ok := firstAtOrAfter(ps, tl.Run.From, func(v float64) bool { return v > limit }); ok {
			h.MetricCrossed = instant(p.T, res, ev(QHPAStatusMetric, status, prevTime(ps, i), p.T))
		}
		return
	}
	// Without the HPA's status (kube-state-metrics v1, an allow-list that drops it), a
	// CPU utilization target is crossed when the pods' usage over their requests is.
	util := timeline.Series{}
	if pick.Label("metric_name") == "cpu" && pick.Label("metric_target_type") == "utilization" && h.Deployment != "" {
		util = cpuUtilization(tl, h.Namespace, h.Deployment)
	}
	if util.Empty() {
		*notes = append(*notes, note(NoteMissing, "autoscaling", h.Object(), "no kube_horizontalpodautoscaler_status_target_metric for %s", h.TargetMetric))
		return
	}
	cres := tl.Res(SourceCAdvisor)
	*notes = append(*notes, note(NotePartial, "autoscaling", h.Object(),
		"no kube_horizontalpodautoscaler_status_target_metric for %s: the crossing is read from cAdvisor, the CPU usage of %s's pods over their requests (what the HPA computes, at cAdvisor's resolution %s and without metrics-server's window)",
		h.TargetMetric, h.Deployment, cres))
	ps := util.Points
	if p, i, ok := firstAtOrAfter(ps, tl.Run.From, func(v float64) bool { return v > limit }); ok {
		h.MetricCrossed = instant(p.T, cres, Evidence{Query: QCPUUsagePod, Series: timeline.LabelString(util.Labels), Times: []time.Time{prevTime(ps, i), p.T}},
			Evidence{Query: QCPURequestPod, Series: timeline.LabelString(util.Labels)})
	}
}

// cpuUtilization is a Deployment's CPU utilization as the HPA computes it, in percent:
// at each cAdvisor sample, the summed usage of its pods (cpu_usage_pod) over the summed
// requests of the same pods (cpu_request_pod). Pods without a request are left out, as
// the HPA leaves them out.
func cpuUtilization(tl *timeline.Timeline, ns, workload string) timeline.Series {
	m := map[string]string{"namespace": ns, "workload": workload}
	usage, requests := tl.Set(QCPUUsagePod).Match(m), tl.Set(QCPURequestPod).Match(m)
	if len(usage) == 0 || len(requests) == 0 {
		return timeline.Series{}
	}
	req := map[string]timeline.Series{}
	for _, r := range requests {
		req[r.Label("pod")] = r
	}
	maxAge := 2 * max(tl.Res(SourceKSM), tl.Step)
	sums := map[time.Time][2]float64{}
	var ts []time.Time
	for _, u := range usage {
		r, ok := req[u.Label("pod")]
		if !ok {
			continue
		}
		for _, p := range u.Points {
			rv, ok := r.At(p.T, maxAge)
			if !ok || rv <= 0 || math.IsNaN(p.V) {
				continue
			}
			s, seen := sums[p.T]
			if !seen {
				ts = append(ts, p.T)
			}
			sums[p.T] = [2]float64{s[0] + p.V, s[1] + rv}
		}
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	out := timeline.Series{Labels: m}
	for _, t := range ts {
		s := sums[t]
		out.Points = append(out.Points, timeline.Point{T: t, V: 100 * s[0] / s[1]})
	}
	return out
}

// steps reads the changes of desired replicas and, per step, whether it added pods.
func (h *HPA) steps(cur, desired, ready timeline.Series, span timeline.Window, res time.Duration, notes *[]Note) (added []bool) {
	src, srcName := desired, QHPADesired
	if src.Empty() {
		src, srcName = cur, QHPACurrent
		*notes = append(*notes, note(NotePartial, "autoscaling", h.Object(), "no desired-replicas series: steps read from current replicas"))
	}
	ps := src.Between(span)
	for i := 1; i < len(ps); i++ {
		from, to := ps[i-1].V, ps[i].V
		if from == to || math.IsNaN(to) {
			continue
		}
		st := ScaleStep{Direction: "up", From: from, To: to, DesiredAt: instant(ps[i].T, res, ev(srcName, src, ps[i-1].T, ps[i].T))}
		reached := func(v float64) bool { return v >= to }
		if to < from {
			st.Direction = "down"
			reached = func(v float64) bool { return v <= to }
		}
		cps := cur.Points
		if p, j, ok := firstAtOrAfter(cps, ps[i].T, reached); ok {
			st.CurrentAt = instant(p.T, res, ev(QHPACurrent, cur, prevTime(cps, j), p.T))
		}
		if st.Direction == "up" && !addedPods(cur, ps[i-1].T, to, res) {
			// The status caught up with replicas the target already had (an HPA whose
			// status was empty before its first sync reads desired 0): no pod was added,
			// so there is no start-up to wait for and no scale-up to react with.
			h.Steps = append(h.Steps, st)
			added = append(added, false)
			continue
		}
		if st.Direction == "up" && !ready.Empty() && st.CurrentAt != nil {
			rps := ready.Points
			if p, j, ok := firstAtOrAfter(rps, prevTime(cps, indexOf(cps, st.CurrentAt.At)), reached); ok {
				if p.T.Before(st.CurrentAt.At) {
					p.T = st.CurrentAt.At // ready already there within the same sample
				}
				st.ReadyAt = instant(p.T, res, ev(QDeploymentReady, ready, prevTime(rps, j), p.T))
				st.ReadyGap = between(st.CurrentAt, st.ReadyAt)
			} else {
				st.NeverReady = true
				_, hi, _, _ := timeline.Stats(ready.Between(timeline.Window{From: ps[i].T, To: span.To}))
				st.ReadyMax = hi
				*notes = append(*notes, note(NotePartial, "autoscaling", h.Object(), "after scaling to %g at %s, ready replicas never reached %g (at most %g) before the window ended — pods that never became Ready", to, ps[i].T.Format(time.RFC3339), to, hi))
			}
		}
		h.Steps = append(h.Steps, st)
		added = append(added, true)
	}
	return added
}

// addedPods reports whether a scale-up to `to` decided after `before` raised current
// replicas: false when current already stood at `to` or more at the sample before.
func addedPods(cur timeline.Series, before time.Time, to float64, res time.Duration) bool {
	v, ok := cur.At(before, 2*res)
	return !ok || v < to
}

func indexOf(ps []timeline.Point, t time.Time) int {
	for i, p := range ps {
		if p.T.Equal(t) {
			return i
		}
	}
	return 0
}

// reaction dates the first scale-up that added pods (added is per step, from steps).
func (h *HPA) reaction(load Load, added []bool) {
	for i, st := range h.Steps {
		if st.Direction == "up" && added[i] {
			h.FirstScaleUp = st.DesiredAt
			break
		}
	}
	if h.FirstScaleUp == nil {
		return
	}
	for _, t := range load.LoadSteps {
		if !t.After(h.FirstScaleUp.At) {
			h.LoadStep = t
		}
	}
	if !h.LoadStep.IsZero() {
		h.ReactionFromLoadStep = between(instant(h.LoadStep, load.res()), h.FirstScaleUp)
	}
	if h.MetricCrossed != nil && !h.MetricCrossed.At.After(h.FirstScaleUp.At) {
		h.ReactionFromCrossing = between(h.MetricCrossed, h.FirstScaleUp)
	}
}

func (h *HPA) atMax(cur timeline.Series, span timeline.Window, load Load, res time.Duration, notes *[]Note) {
	if h.Max == nil {
		return
	}
	mx := h.Max.Value
	if h.Baseline != nil && h.Baseline.Value >= mx {
		*notes = append(*notes, note(NoteInfo, "autoscaling", h.Object(), "already at maxReplicas (%g) before the run: it could not scale up", mx))
	}
	ps := cur.Between(span)
	var held time.Duration
	for i, p := range ps {
		if p.V >= mx && h.MaxReached == nil && !p.T.Before(h.runStart(load)) {
			h.MaxReached = instant(p.T, res, ev(QHPACurrent, cur, prevTime(ps, i), p.T))
		}
		if i > 0 && ps[i-1].V >= mx {
			held += p.T.Sub(ps[i-1].T)
		}
	}
	if h.MaxReached != nil {
		h.HeldAtMax = spanFact(held, res, ev(QHPACurrent, cur))
		if !h.LoadStep.IsZero() && (h.Baseline == nil || h.Baseline.Value < mx) {
			h.TimeToMax = between(instant(h.LoadStep, load.res()), h.MaxReached)
		}
	}
}

func (h *HPA) runStart(load Load) time.Time {
	if len(load.LoadSteps) > 0 {
		return load.LoadSteps[0]
	}
	return time.Time{}
}

func (h *HPA) scaleIn(cur timeline.Series, load Load, res time.Duration) {
	var last *ScaleStep
	for i := range h.Steps {
		if h.Steps[i].Direction == "up" {
			last = &h.Steps[i]
		}
	}
	for i := range h.Steps {
		st := h.Steps[i]
		if st.Direction != "down" || (last != nil && st.DesiredAt.At.Before(last.DesiredAt.At)) {
			continue
		}
		h.ScaleInStart = st.DesiredAt
		break
	}
	if h.ScaleInStart == nil {
		return
	}
	if !load.LoadEnd.IsZero() {
		h.ScaleInDelay = between(instant(load.LoadEnd, load.res()), h.ScaleInStart)
	}
	if h.Min == nil {
		return
	}
	ps := cur.Points
	if p, i, ok := firstAtOrAfter(ps, h.ScaleInStart.At, func(v float64) bool { return v <= h.Min.Value }); ok {
		h.RecoveredToMin = instant(p.T, res, ev(QHPACurrent, cur, prevTime(ps, i), p.T))
		if !load.LoadEnd.IsZero() {
			h.RecoveryAfterLoadEnd = between(instant(load.LoadEnd, load.res()), h.RecoveredToMin)
		}
	}
}

// gaps are the spans where current replicas exceed ready ones.
func gaps(cur, ready timeline.Series, span timeline.Window, res time.Duration) []timeline.Window {
	if ready.Empty() {
		return nil
	}
	var out []timeline.Window
	var open *timeline.Window
	for _, p := range cur.Between(span) {
		r, ok := ready.At(p.T, 2*res)
		inGap := ok && p.V > r
		switch {
		case inGap && open == nil:
			open = &timeline.Window{From: p.T, To: p.T}
		case inGap:
			open.To = p.T
		case open != nil:
			open.To = p.T
			out = append(out, *open)
			open = nil
		}
	}
	if open != nil {
		out = append(out, *open)
	}
	return out
}

func pods(tl *timeline.Timeline, ns, deployment string, span timeline.Window, notes *[]Note, obj string) []PodStartup {
	if deployment == "" {
		return nil
	}
	key := map[string]string{"namespace": ns, "workload": deployment}
	created := tl.Set(QPodCreated).Match(key)
	readyT := tl.Set(QPodReadyTime).Match(key)
	readyNow := tl.Set(QPodReady).Match(key)
	var out []PodStartup
	for _, c := range created {
		if c.Empty() {
			continue
		}
		ct := time.Unix(int64(c.Points[0].V), 0).UTC()
		if ct.Before(span.From) {
			continue // existed before the window: not a scale-up pod
		}
		ps := PodStartup{Pod: c.Label("pod"), Created: ct}
		r := readyT.Match(map[string]string{"pod": ps.Pod}).First()
		if !r.Empty() {
			lo, _, _, _ := timeline.Stats(r.Points) // the first Ready transition seen
			ps.Ready = time.Unix(int64(lo), 0).UTC()
			ps.Startup = spanFact(ps.Ready.Sub(ct), time.Second, ev(QPodCreated, c, c.Points[0].T), ev(QPodReadyTime, r, r.Points[0].T))
		} else {
			rs := readyNow.Match(map[string]string{"pod": ps.Pod}).First()
			if _, hi, _, ok := timeline.Stats(rs.Points); !ok || hi < 1 {
				ps.NeverReady = true
				*notes = append(*notes, note(NotePartial, "autoscaling", obj, "pod %s (created %s) never became Ready in the window", ps.Pod, ct.Format(time.RFC3339)))
			}
		}
		out = append(out, ps)
	}
	if len(created) > 0 && len(readyT) == 0 {
		*notes = append(*notes, note(NoteInfo, "autoscaling", obj, "no kube_pod_status_ready_time (experimental in kube-state-metrics): per-pod start-up not measured"))
	}
	return out
}

// LargestStartupGap is the longest start-up gap of the HPA's steps (only scale-ups have
// one), or nil when no step has one.
func (h HPA) LargestStartupGap() *Fact {
	var best *Fact
	for _, s := range h.Steps {
		if s.ReadyGap != nil && (best == nil || s.ReadyGap.Value > best.Value) {
			best = s.ReadyGap
		}
	}
	return best
}
