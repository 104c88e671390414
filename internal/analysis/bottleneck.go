package analysis

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Resources a bottleneck verdict names (Bottleneck.Resource).
const (
	ResourceCPU           = "cpu"
	ResourceReplicas      = "replicas"
	ResourceStartup       = "startup"
	ResourceDatabase      = "database"
	ResourcePool          = "pool"
	ResourceMemory        = "memory"
	ResourceLoadGenerator = "load-generator"
	ResourceNone          = "none"
	ResourceUnknown       = "unknown"
)

// Bottleneck is what limited the load: the first resource that saturated in the first
// stage that broke, when, at what load, with its evidence and the resources ruled out
// with their numbers. "none" when every stage held, "unknown" when no rule explains a
// broken stage and a source is missing (NotChecked names it).
type Bottleneck struct {
	Resource string `json:"resource"`
	// Object is the workload, HPA or database instance that saturated.
	Object string `json:"object,omitempty"`
	// Stage is the broken stage's number (1-based); 0 for "none".
	Stage int `json:"stage,omitempty"`
	// At is the moment the resource saturated.
	At       *Fact          `json:"at,omitempty"`
	Load     BottleneckLoad `json:"load"`
	Text     string         `json:"text"`
	Evidence []string       `json:"evidence"`
	RuledOut []RuledOut     `json:"ruled_out"`
	// NotChecked are the resources no rule could judge, with the source that is missing.
	NotChecked []NotChecked `json:"not_checked,omitempty"`
	// Stages has the verdict of every stage that broke, the first one included.
	Stages []StageBottleneck `json:"stages,omitempty"`
}

// BottleneckLoad is the load at the moment of saturation: VUs and the achieved rates.
type BottleneckLoad struct {
	VUs         *Fact `json:"vus,omitempty"`
	RequestRate *Fact `json:"request_rate,omitempty"`
	// Achieved is the broken stage's achieved iteration rate.
	Achieved *Fact `json:"achieved,omitempty"`
}

// StageBottleneck is the verdict of one broken stage.
type StageBottleneck struct {
	Stage    int            `json:"stage"`
	Resource string         `json:"resource"`
	Object   string         `json:"object,omitempty"`
	At       *Fact          `json:"at,omitempty"`
	Load     BottleneckLoad `json:"load"`
	Evidence []string       `json:"evidence"`
}

// RuledOut is a resource that did not saturate, with the numbers that say so. In JSON
// the numbers sit beside resource and text: {"resource":"database","text":"…",
// "cpu_peak_percent":12}.
type RuledOut struct {
	Resource string `json:"resource"`
	Text     string `json:"text"`
	// Numbers are written as keys of the object itself (the schema lists them as *).
	Numbers map[string]float64 `json:"*"`
}

// MarshalJSON writes resource, text and the numbers as one object.
func (r RuledOut) MarshalJSON() ([]byte, error) {
	m := map[string]any{"resource": r.Resource, "text": r.Text}
	for k, v := range r.Numbers {
		m[k] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *RuledOut) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	r.Resource, _ = m["resource"].(string)
	r.Text, _ = m["text"].(string)
	for k, v := range m {
		if f, ok := v.(float64); ok {
			if r.Numbers == nil {
				r.Numbers = map[string]float64{}
			}
			r.Numbers[k] = f
		}
	}
	return nil
}

// NotChecked is a resource no rule could judge, and the source that would tell.
type NotChecked struct {
	Resource string `json:"resource"`
	Missing  string `json:"missing"`
}

// RuleInput is what a bottleneck rule reads: the timeline, the detectors' results, the
// window from the run's start to the end of the stage judged, and the thresholds.
type RuleInput struct {
	TL       *timeline.Timeline
	Analysis *Analysis
	// Window runs from the run's start to the end of the judged stage: a resource that
	// saturated earlier, in a stage that still held, saturated first.
	Window timeline.Window
	Stage  *StageFacts
	Rules  query.BottleneckRules
	Cfg    Config
}

// Check is one rule's judgement of one resource.
type Check struct {
	Resource string
	// Missing names the source without which the rule cannot judge; set, the check
	// neither saturates nor rules out.
	Missing   string
	Saturated bool
	Object    string
	At        time.Time
	Res       time.Duration
	Evidence  []string
	// Text says why the resource is ruled out ("pool at most 27% busy"); Numbers are
	// its numbers.
	Text    string
	Numbers map[string]float64
}

// BottleneckRule judges one resource. Each is a pure function of its input.
type BottleneckRule func(RuleInput) Check

// ServiceRules are the rules of the service's resources, in the order a tie at the
// same moment is broken.
func ServiceRules() []BottleneckRule {
	return []BottleneckRule{StartupRule, ReplicasRule, CPURule, MemoryRule, DatabaseRule, PoolRule}
}

// DecideBottleneck names what limited the load. It is pure.
func DecideBottleneck(tl *timeline.Timeline, a *Analysis, cfg Config) Bottleneck {
	rules := cfg.Bottleneck
	if rules == (query.BottleneckRules{}) {
		rules = query.DefaultBottleneckRules()
	}
	stages := a.Load.Stages
	if len(stages) == 0 || a.Load.Requests == 0 && a.Load.Dropped == 0 {
		return Bottleneck{Resource: ResourceUnknown, Text: "unknown: the run has no measured load (no k6 series)",
			Evidence: []string{}, RuledOut: []RuledOut{}, NotChecked: []NotChecked{{Resource: "load", Missing: "k6 series of the run"}}}
	}
	var out Bottleneck
	first := true
	for i := range stages {
		st := &stages[i]
		if st.Held || st.Requests == 0 && st.Dropped == 0 && st.Achieved == nil {
			continue
		}
		in := RuleInput{TL: tl, Analysis: a, Window: timeline.Window{From: tl.Run.From, To: st.To}, Stage: st, Rules: rules, Cfg: cfg}
		b := decideStage(in)
		out.Stages = append(out.Stages, StageBottleneck{Stage: b.Stage, Resource: b.Resource, Object: b.Object, At: b.At, Load: b.Load, Evidence: b.Evidence})
		if first {
			stagesSoFar := out.Stages
			out = b
			out.Stages = stagesSoFar
			first = false
		}
	}
	if first {
		out = heldEveryStage(tl, a, rules, cfg)
	}
	if out.Evidence == nil {
		out.Evidence = []string{}
	}
	if out.RuledOut == nil {
		out.RuledOut = []RuledOut{}
	}
	return out
}

// heldEveryStage is the verdict of a run whose stages all held: "none", unless a
// resource saturated and the p95 of a stage from then on rose beyond
// load_generator.latency_rise times the run's lowest stage p95 (story 3: latency rising
// at 0% errors, the CPU throttled), which the thresholds did not catch: that resource
// limited the load, in that stage. When the p95 rose so, no resource read saturated and
// the app's CPU was not checked, the verdict is "unknown", naming what was not checked.
func heldEveryStage(tl *timeline.Timeline, a *Analysis, rules query.BottleneckRules, cfg Config) Bottleneck {
	in := RuleInput{TL: tl, Analysis: a, Window: tl.Run, Rules: rules, Cfg: cfg}
	out := Bottleneck{Resource: ResourceNone, Evidence: []string{fmt.Sprintf("every stage held (%s)", a.Load.Capacity.Text)}}
	var sat []Check
	for _, r := range ServiceRules() {
		c := r(in)
		switch {
		case c.Missing != "":
			out.NotChecked = append(out.NotChecked, NotChecked{Resource: c.Resource, Missing: c.Missing})
		case c.Saturated:
			sat = append(sat, c)
		default:
			out.RuledOut = append(out.RuledOut, RuledOut{Resource: c.Resource, Text: c.Text, Numbers: c.Numbers})
		}
	}
	out.Text = "none: the service held every stage"
	if g := loadGeneratorCPU(in); g.saturated {
		out.Evidence = append(out.Evidence, g.saturatedText(rules.LoadGenerator.CPUOfAvailable.V)+" while every stage held: the run's latencies include the generator's own delays")
	} else if g.judged {
		out.RuledOut = append(out.RuledOut, RuledOut{Resource: ResourceLoadGenerator, Text: "not the load generator: " + g.peakText(),
			Numbers: map[string]float64{"cpu_peak_of_available": roundTo(g.share, 4), "cpu_cores": roundTo(g.cores, 4)}})
	}
	lowest := lowestP95(a.Load.Stages)
	if len(sat) == 0 {
		if slices.ContainsFunc(out.NotChecked, func(n NotChecked) bool { return n.Resource == ResourceCPU }) {
			// The latency rose past latency_rise and the app's CPU, whose throttling
			// raises latency at 0% errors (story 3), was not read: whatever the thresholds
			// said, "none" would be a guess; that is unknown.
			for i := range a.Load.Stages {
				st := &a.Load.Stages[i]
				if st.P95 == nil || math.IsInf(lowest, 1) || st.P95.Value/lowest <= rules.LoadGenerator.LatencyRise.V {
					continue
				}
				rise := st.P95.Value / lowest
				u := Bottleneck{Resource: ResourceUnknown, Stage: StageNumber(st.Stage), RuledOut: out.RuledOut, NotChecked: out.NotChecked,
					Evidence: append([]string{fmt.Sprintf("every stage held its thresholds, but stage %d's p95 %s is %.1f× the run's lowest stage p95 (rule: > %g×)",
						StageNumber(st.Stage), FormatSeconds(st.P95.Value), rise, rules.LoadGenerator.LatencyRise.V)}, out.Evidence[1:]...)}
				u.Text = fmt.Sprintf("unknown: stage %d's p95 rose %.1f× while every stage held, and no resource read saturated; not checked: %s",
					u.Stage, rise, notCheckedText(u.NotChecked))
				u.Stages = []StageBottleneck{{Stage: u.Stage, Resource: u.Resource, Evidence: u.Evidence}}
				return u
			}
		}
		return out
	}
	first := slices.MinFunc(sat, func(x, y Check) int { return x.At.Compare(y.At) })
	for i := range a.Load.Stages {
		st := &a.Load.Stages[i]
		if st.To.Before(first.At) || st.P95 == nil || math.IsInf(lowest, 1) {
			continue
		}
		if rise := st.P95.Value / lowest; rise > rules.LoadGenerator.LatencyRise.V {
			stageIn := in
			stageIn.Window, stageIn.Stage = timeline.Window{From: tl.Run.From, To: st.To}, st
			b := decideStage(stageIn)
			b.Evidence = append(b.Evidence, fmt.Sprintf("every stage held its thresholds, but stage %d's p95 %s is %.1f× the run's lowest stage p95 (rule: > %g×)",
				b.Stage, FormatSeconds(st.P95.Value), rise, rules.LoadGenerator.LatencyRise.V))
			b.Stages = []StageBottleneck{{Stage: b.Stage, Resource: b.Resource, Object: b.Object, At: b.At, Load: b.Load, Evidence: b.Evidence}}
			return b
		}
	}
	for _, c := range sat {
		out.Evidence = append(out.Evidence, fmt.Sprintf("%s saturated while every stage held and latency stayed within %g× (%s)", c.Resource, rules.LoadGenerator.LatencyRise.V, strings.Join(c.Evidence, "; ")))
	}
	return out
}

func lowestP95(stages []StageFacts) float64 {
	lowest := math.Inf(1)
	for _, s := range stages {
		if s.P95 != nil && s.Requests > 0 && s.P95.Value > 0 {
			lowest = min(lowest, s.P95.Value)
		}
	}
	return lowest
}

func decideStage(in RuleInput) Bottleneck {
	st := in.Stage
	b := Bottleneck{Stage: StageNumber(st.Stage)}
	var sat []Check
	for _, r := range ServiceRules() {
		c := r(in)
		switch {
		case c.Missing != "":
			b.NotChecked = append(b.NotChecked, NotChecked{Resource: c.Resource, Missing: c.Missing})
		case c.Saturated:
			sat = append(sat, c)
		default:
			b.RuledOut = append(b.RuledOut, RuledOut{Resource: c.Resource, Text: c.Text, Numbers: c.Numbers})
		}
	}
	load := func(t time.Time) BottleneckLoad {
		res := in.TL.Res(SourceK6)
		return BottleneckLoad{VUs: atSet(timeline.Set{loadVUs(in.TL, res)}, QVUs, t, UnitVUs, res), RequestRate: at(in.TL, QHTTPReqRate, t, UnitPerSec, res), Achieved: st.Achieved}
	}
	if len(sat) > 0 {
		// The first resource that saturated; the others that also did are evidence. A
		// workload's CPU that its HPA scales on is the HPA's signal: when its HPA ran
		// out of replicas or its new pods were not Ready, that is what limited the load.
		cand := slices.DeleteFunc(slices.Clone(sat), func(c Check) bool {
			return c.Resource == ResourceCPU && hpaScaled(in.Analysis, c.Object) && slices.ContainsFunc(sat, func(o Check) bool {
				// Start-up is the cluster's: failures while any HPA's new pods were not
				// Ready; replicas are one HPA's.
				return o.Resource == ResourceStartup || o.Resource == ResourceReplicas && scaledWorkload(in.Analysis, o.Object) == c.Object
			})
		})
		first := slices.MinFunc(cand, func(x, y Check) int { return x.At.Compare(y.At) })
		b.Resource, b.Object = first.Resource, first.Object
		b.At = instant(first.At, first.Res)
		b.Load = load(first.At)
		b.Evidence = first.Evidence
		for _, c := range sat {
			switch {
			case c.Resource == first.Resource && c.Object == first.Object:
			case !slices.ContainsFunc(cand, func(o Check) bool { return o.Resource == c.Resource && o.Object == c.Object }):
				b.Evidence = append(b.Evidence, fmt.Sprintf("%s's CPU saturated at %s, which its HPA scales on: %s", c.Object, c.At.UTC().Format(time.TimeOnly), strings.Join(c.Evidence, "; ")))
			default:
				b.Evidence = append(b.Evidence, fmt.Sprintf("then %s at %s: %s", c.Resource, c.At.UTC().Format(time.TimeOnly), strings.Join(c.Evidence, "; ")))
			}
		}
		if g := loadGeneratorCPU(in); g.saturated {
			b.Evidence = append(b.Evidence, "also "+g.saturatedText(in.Rules.LoadGenerator.CPUOfAvailable.V)+": the measurements from then on include the generator's own delays")
		}
		b.Text = fmt.Sprintf("%s saturated first in stage %d, at %s%s", b.Resource, b.Stage, b.At.At.UTC().Format(time.TimeOnly), loadText(b.Load))
		return b
	}
	if c := LoadGeneratorRule(in); c.Saturated {
		b.Resource = ResourceLoadGenerator
		b.At = instant(c.At, c.Res)
		b.Load = load(c.At)
		b.Evidence = c.Evidence
		b.Text = fmt.Sprintf("load-generator: stage %d was limited by the load generator, not the service%s", b.Stage, loadText(b.Load))
		return b
	} else if c.Text != "" {
		b.RuledOut = append(b.RuledOut, RuledOut{Resource: c.Resource, Text: c.Text, Numbers: c.Numbers})
	}
	b.Resource = ResourceUnknown
	b.Evidence = []string{"stage " + fmt.Sprint(b.Stage) + " " + st.Why}
	if !loadGeneratorCPU(in).judged {
		// The generator's CPU could have explained the stage: say it was not read.
		b.NotChecked = append(b.NotChecked, NotChecked{Resource: ResourceLoadGenerator, Missing: loadGeneratorCPUMissing})
	}
	if len(b.NotChecked) == 0 {
		b.Text = fmt.Sprintf("unknown: stage %d broke and no resource Tidemark reads saturated", b.Stage)
		return b
	}
	b.Text = fmt.Sprintf("unknown: stage %d broke and no resource read saturated; not checked: %s", b.Stage, notCheckedText(b.NotChecked))
	return b
}

// notCheckedText lists what was not checked: "cpu (cAdvisor's …), memory (…)".
func notCheckedText(nc []NotChecked) string {
	var miss []string
	for _, n := range nc {
		miss = append(miss, n.Resource+" ("+n.Missing+")")
	}
	return strings.Join(miss, ", ")
}

// hpaScaled reports whether an HPA scales the workload namespace/deployment.
func hpaScaled(a *Analysis, workload string) bool {
	return slices.ContainsFunc(a.Autoscaling, func(h HPA) bool { return h.Deployment != "" && h.Namespace+"/"+h.Deployment == workload })
}

// scaledWorkload is namespace/deployment of the HPA named by object (namespace/name).
func scaledWorkload(a *Analysis, object string) string {
	for _, h := range a.Autoscaling {
		if h.Object() == object && h.Deployment != "" {
			return h.Namespace + "/" + h.Deployment
		}
	}
	return ""
}

func loadText(l BottleneckLoad) string {
	var parts []string
	if l.VUs != nil {
		parts = append(parts, FormatValue(UnitVUs, l.VUs.Value))
	}
	if l.RequestRate != nil {
		parts = append(parts, FormatValue(UnitPerSec, l.RequestRate.Value)+" requests")
	}
	if l.Achieved != nil {
		parts = append(parts, FormatValue(UnitPerSec, l.Achieved.Value)+" iterations achieved in the stage")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// firstAtLeast returns the first point of ps in w at or above level.
func firstAtLeast(ps []timeline.Point, w timeline.Window, level float64) (timeline.Point, bool) {
	for _, p := range ps {
		if w.Contains(p.T) && p.V >= level {
			return p, true
		}
	}
	return timeline.Point{}, false
}

// peakIn returns the highest value of ps in w.
func peakIn(ps []timeline.Point, w timeline.Window) (float64, bool) {
	hi, ok := math.Inf(-1), false
	for _, p := range ps {
		if w.Contains(p.T) && !math.IsNaN(p.V) {
			hi, ok = max(hi, p.V), true
		}
	}
	return hi, ok
}

func pct(r float64) string { return fmt.Sprintf("%.0f%%", 100*r) }

// CPURule says per-pod CPU usage at cpu.usage_of_limit of the limit, or throttled in
// cpu.throttled_ratio of the CFS periods.
func CPURule(in RuleInput) Check {
	c := Check{Resource: ResourceCPU, Numbers: map[string]float64{}}
	if len(in.Analysis.CPU) == 0 {
		c.Missing = cpuMissing
		return c
	}
	thr, use := in.Rules.CPU.ThrottledRatio.V, in.Rules.CPU.UsageOfLimit.V
	var texts []string
	var best *Check
	judged := false
	for _, w := range in.Analysis.CPU {
		_, used := peakIn(w.Usage.Points, in.Window)
		_, throttled := peakIn(w.Throttled.Points, in.Window)
		if !used && !throttled {
			// kube-state-metrics' requests and limits without cAdvisor's samples: no
			// measurement to judge by.
			continue
		}
		judged = true
		res := in.TL.Res(SourceCAdvisor)
		var usageOfLimit []timeline.Point
		if w.Limit != nil && w.Limit.Value > 0 {
			for _, p := range w.Usage.Points {
				usageOfLimit = append(usageOfLimit, timeline.Point{T: p.T, V: p.V / w.Limit.Value})
			}
		}
		var cand []Check
		if p, ok := firstAtLeast(w.Throttled.Points, in.Window, thr); ok {
			cand = append(cand, Check{At: p.T, Evidence: []string{fmt.Sprintf("%s throttled in %s of its CFS periods at %s (rule: ≥ %s)", w.Workload, pct(p.V), p.T.UTC().Format(time.TimeOnly), pct(thr))}})
		}
		if p, ok := firstAtLeast(usageOfLimit, in.Window, use); ok {
			cand = append(cand, Check{At: p.T, Evidence: []string{fmt.Sprintf("%s CPU at %s of its %s limit per pod at %s (rule: ≥ %s)", w.Workload, pct(p.V), FormatValue(UnitCores, w.Limit.Value), p.T.UTC().Format(time.TimeOnly), pct(use))}})
		}
		if len(cand) > 0 {
			f := slices.MinFunc(cand, func(x, y Check) int { return x.At.Compare(y.At) })
			for _, o := range cand {
				if o.At != f.At {
					f.Evidence = append(f.Evidence, o.Evidence...)
				}
			}
			// The throttling onset (the first hold throttled in most of its periods) is
			// evidence, not the moment: latency can break at a lower share (story 3's
			// fixture: 35% of the periods at 30 users, p95 6×; the onset hold is 40).
			if o := w.StageOnset; o != nil && o.Share != nil {
				if win, ok := stageWindow(in.Analysis, o.Stage); ok && in.Window.Contains(win.From) && win.From.Before(in.Window.To) {
					f.Evidence = append(f.Evidence, fmt.Sprintf("%s's throttling onset: throttled in %s of its CFS periods over the hold at %s (%s → %s; > %s)",
						w.Workload, pct(o.Share.Value), holdLoad(o), win.From.UTC().Format(time.TimeOnly), win.To.UTC().Format(time.TimeOnly), pct(w.StageOnsetShare)))
				}
			}
			if best == nil || f.At.Before(best.At) {
				f.Object, f.Res = w.Object(), res
				best = &f
			}
			continue
		}
		t := w.Workload + ":"
		if hi, ok := peakIn(usageOfLimit, in.Window); ok {
			t += " CPU at most " + pct(hi) + " of its limit"
			c.Numbers[w.Workload+"_peak_usage_of_limit"] = roundTo(hi, 4)
		} else if hi, ok := peakIn(w.Usage.Points, in.Window); ok {
			t += " no CPU limit, at most " + FormatValue(UnitCores, hi) + " per pod"
			c.Numbers[w.Workload+"_peak_usage_cores"] = roundTo(hi, 4)
		}
		if hi, ok := peakIn(w.Throttled.Points, in.Window); ok {
			t += ", throttled in at most " + pct(hi) + " of its CFS periods"
			c.Numbers[w.Workload+"_peak_throttled_ratio"] = roundTo(hi, 4)
		}
		texts = append(texts, t)
	}
	if best != nil {
		best.Resource, best.Saturated = ResourceCPU, true
		return *best
	}
	if !judged {
		c.Missing = cpuMissing
		return c
	}
	c.Text = "not the app's CPU: " + strings.Join(texts, "; ")
	return c
}

// cpuMissing is what the CPU rule names as not checked without cAdvisor's samples.
const cpuMissing = "cAdvisor's container_cpu_usage_seconds_total for the app's pods"

// stageWindow is the window of the stage whose Index is i.
func stageWindow(a *Analysis, i int) (timeline.Window, bool) {
	for _, st := range a.Load.Stages {
		if st.Index == i {
			return st.Window, true
		}
	}
	return timeline.Window{}, false
}

// holdLoad is a hold's level: "20 VUs", "40.0/s".
func holdLoad(h *HoldThrottling) string {
	if h.Unit == StageUnitVUs {
		return FormatValue(UnitVUs, h.Target)
	}
	return FormatValue(UnitPerSec, h.Target)
}

// ReplicasRule says an HPA at its max replicas with its metric still over its target
// (beyond the HPA's tolerance).
func ReplicasRule(in RuleInput) Check {
	c := Check{Resource: ResourceReplicas, Numbers: map[string]float64{}}
	if len(in.Analysis.Autoscaling) == 0 {
		if len(in.TL.Set(QDeploymentSpec)) == 0 {
			c.Missing = "kube-state-metrics' HPA and Deployment series"
			return c
		}
		c.Text = "not replicas: no HPA scales the workload"
		c.Numbers["hpas"] = 0
		return c
	}
	var texts []string
	for _, h := range in.Analysis.Autoscaling {
		peak := 0.0
		if h.Peak != nil {
			peak = h.Peak.Value
		}
		mx := math.NaN()
		if h.Max != nil {
			mx = h.Max.Value
		}
		if h.MaxReached != nil && in.Window.Contains(h.MaxReached.At) && h.TargetValue != nil {
			status := hpaStatus(in.TL, h)
			if status.Empty() {
				c.Missing = "kube_horizontalpodautoscaler_status_target_metric (is the metric over target at max replicas?)"
				return c
			}
			limit := h.TargetValue.Value * (1 + h.Tolerance)
			w := timeline.Window{From: h.MaxReached.At, To: in.Window.To}
			if p, ok := firstAtLeast(status.Points, w, math.Nextafter(limit, math.Inf(1))); ok {
				return Check{Resource: ResourceReplicas, Saturated: true, Object: h.Object(), At: p.T, Res: in.TL.Res(SourceKSM),
					Evidence: []string{fmt.Sprintf("%s at max %g replicas from %s, its metric %g over target %g×(1+%g) at %s",
						h.Name, mx, h.MaxReached.At.UTC().Format(time.TimeOnly), p.V, h.TargetValue.Value, h.Tolerance, p.T.UTC().Format(time.TimeOnly))}}
			}
		}
		texts = append(texts, fmt.Sprintf("%s at most %g of %g replicas", h.Name, peak, mx))
		c.Numbers[h.Name+"_peak_replicas"] = peak
		if !math.IsNaN(mx) {
			c.Numbers[h.Name+"_max_replicas"] = mx
		}
	}
	c.Text = "not replicas: " + strings.Join(texts, "; ")
	return c
}

func hpaStatus(tl *timeline.Timeline, h HPA) timeline.Series {
	set := tl.Set(QHPAStatusMetric).Match(map[string]string{"namespace": h.Namespace, "horizontalpodautoscaler": h.Name})
	if h.TargetMetric != "" {
		if f := strings.Fields(h.TargetMetric); len(f) >= 2 {
			if m := set.Match(map[string]string{"metric_name": f[0], "metric_target_type": f[1]}); len(m) > 0 {
				return m.First()
			}
		}
	}
	return set.First()
}

// StartupRule says most of the failures answered while an HPA's current replicas were
// ahead of Ready (startup.failures_in_gap_share).
func StartupRule(in RuleInput) Check {
	c := Check{Resource: ResourceStartup, Numbers: map[string]float64{}}
	e := in.Analysis.Errors
	if len(in.Analysis.Autoscaling) == 0 {
		if len(in.TL.Set(QDeploymentSpec)) == 0 {
			c.Missing = "kube-state-metrics' HPA and Ready replicas"
			return c
		}
		c.Text = "not start-up: no HPA added pods"
		c.Numbers["hpas"] = 0
		return c
	}
	var inGap float64
	var firstGap *GapShare
	byHPA := map[string]float64{}
	for i, g := range e.Gaps {
		if g.From.After(in.Window.To) {
			continue
		}
		inGap += g.Failures
		byHPA[g.Object] += g.Failures
		if g.Failures > 0 && (firstGap == nil || g.From.Before(firstGap.From)) {
			firstGap = &e.Gaps[i]
		}
	}
	most := ""
	for _, o := range slices.Sorted(maps.Keys(byHPA)) {
		if most == "" || byHPA[o] > byHPA[most] {
			most = o
		}
	}
	// The HPAs' gaps overlap in time (kitchen and order scale together): a failure in
	// both is counted once, as Errors.InGapShare counts it over the run.
	if e.InGapShare != nil {
		inGap = min(inGap, math.Round(e.InGapShare.Value*e.Failures))
	}
	share := 0.0
	if e.Failures > 0 {
		share = inGap / e.Failures
	}
	c.Numbers["failures"] = e.Failures
	c.Numbers["failures_in_gap_share"] = roundTo(share, 4)
	if firstGap != nil && share >= in.Rules.Startup.FailuresInGapShare.V {
		var per []string
		for _, o := range slices.Sorted(maps.Keys(byHPA)) {
			per = append(per, fmt.Sprintf("%s %s", o, FormatNum(byHPA[o])))
		}
		return Check{Resource: ResourceStartup, Saturated: true, Object: most, At: firstGap.From, Res: in.TL.Res(SourceKSM),
			Evidence: []string{fmt.Sprintf("%s of %s failures (%s) answered while an HPA's current replicas were ahead of Ready (rule: ≥ %s); inside each HPA's gaps: %s; first such gap %s (%s → %s)",
				FormatNum(inGap), FormatNum(e.Failures), pct(share), pct(in.Rules.Startup.FailuresInGapShare.V), strings.Join(per, ", "),
				firstGap.Object, firstGap.From.UTC().Format(time.TimeOnly), firstGap.To.UTC().Format(time.TimeOnly))}}
	}
	if e.Failures == 0 {
		c.Text = "not start-up: no request failed while Ready lagged"
		return c
	}
	c.Text = fmt.Sprintf("not start-up: %s of %s failures (%s) inside start-up gaps", FormatNum(inGap), FormatNum(e.Failures), pct(share))
	return c
}

// MemoryRule says a container's working set at memory.working_set_of_limit of its
// memory limit, or a container OOM-killed. Without working set and limit it is not
// checked, nor is a workload whose working set is 0 in every sample (no memory cgroup
// read); without kube-state-metrics' restarts and termination reasons it judges by the
// working set alone.
func MemoryRule(in RuleInput) Check {
	c := Check{Resource: ResourceMemory, Numbers: map[string]float64{}}
	r := in.Rules.Memory.WorkingSetOfLimit.V
	var texts, unread []string
	var sat []Check
	judged := false
	var mem []WorkloadMemory
	if in.Analysis != nil {
		mem = in.Analysis.Memory
	}
	for _, w := range mem {
		for _, t := range w.OOMKills {
			if in.Window.Contains(t) {
				sat = append(sat, Check{Object: w.Object(), At: t, Res: in.TL.Res(SourceKSM),
					Evidence: []string{fmt.Sprintf("%s: a container OOM-killed at %s (kube_pod_container_status_last_terminated_reason=\"OOMKilled\")", w.Object(), t.UTC().Format(time.TimeOnly))}})
				break
			}
		}
		hi, ok := peakIn(w.OfLimit.Points, in.Window)
		if !ok {
			continue
		}
		if hi <= 0 {
			// A running container's working set is never 0: cAdvisor read no memory
			// cgroup of its pods (cgroup v1 pods outside the memory controller, as the
			// process runtime's). Zeros are no measurement to rule memory out with.
			unread = append(unread, w.Object())
			continue
		}
		judged = true
		if p, ok := firstAtLeast(w.OfLimit.Points, in.Window, r); ok {
			lim := ""
			if w.Limit != nil {
				lim = " " + FormatBytes(w.Limit.Value)
			}
			sat = append(sat, Check{Object: w.Object(), At: p.T, Res: in.TL.Res(SourceCAdvisor),
				Evidence: []string{fmt.Sprintf("%s working set at %s of its%s memory limit at %s (rule: ≥ %s)", w.Object(), pct(p.V), lim, p.T.UTC().Format(time.TimeOnly), pct(r))}})
			continue
		}
		t := fmt.Sprintf("%s working set at most %s of its limit", w.Object(), pct(hi))
		c.Numbers[w.Object()+"_peak_of_limit"] = roundTo(hi, 4)
		if w.Restarts != nil {
			n := 0.0
			for _, p := range w.RestartsAt.Points {
				if in.Window.Contains(p.T) {
					n += p.V
				}
			}
			t += fmt.Sprintf(", %s restarts", FormatNum(n))
			c.Numbers[w.Object()+"_restarts"] = n
		}
		texts = append(texts, t)
	}
	if len(sat) > 0 {
		f := slices.MinFunc(sat, func(x, y Check) int { return x.At.Compare(y.At) })
		f.Resource, f.Saturated = ResourceMemory, true
		for _, o := range sat {
			if !o.At.Equal(f.At) || o.Object != f.Object {
				f.Evidence = append(f.Evidence, "then "+strings.Join(o.Evidence, "; "))
			}
		}
		return f
	}
	if !judged {
		c.Missing = "cAdvisor's container_memory_working_set_bytes with kube-state-metrics' memory limits (kube_pod_container_resource_limits{resource=\"memory\"}) for the app's pods"
		if len(unread) > 0 {
			c.Missing += fmt.Sprintf(" (%s: a working set of 0 in every sample, no memory cgroup read)", strings.Join(unread, ", "))
		}
		return c
	}
	if len(unread) > 0 {
		texts = append(texts, fmt.Sprintf("not checked: %s (a working set of 0 in every sample, no memory cgroup read)", strings.Join(unread, ", ")))
	}
	c.Text = "not memory: " + strings.Join(texts, "; ")
	return c
}

// DatabaseRule says the database server's CPU at database.cpu_percent, its CPU credit
// balance at database.credit_balance_min, or its connections at
// database.connections_of_max of max_connections: the exporter's own for
// postgres_exporter and mysqld_exporter, params.db_max_connections (Config.DBMaxConnections)
// for RDS, whose CloudWatch metrics have none; without it RDS connections are not
// checked against max_connections, and the ruled-out text says so.
func DatabaseRule(in RuleInput) Check {
	c := Check{Resource: ResourceDatabase, Numbers: map[string]float64{}}
	cpus, credits, conns := in.TL.Set(QRDSCPU), in.TL.Set(QRDSCreditBalance), in.TL.Set(QRDSConnections)
	maxConns := in.Cfg.DBMaxConnections
	rds := len(in.Analysis.Database) > 0 && (len(cpus) > 0 || len(credits) > 0 || len(conns) > 0 && maxConns > 0)
	if !rds && len(in.Analysis.Connections.Servers) == 0 {
		c.Missing = "the database server's metrics (CloudWatch RDS via YACE or cloudwatch_exporter, postgres_exporter or mysqld_exporter)"
		return c
	}
	r := in.Rules.Database
	res := in.TL.Res(SourceRDS)
	sat, texts, numbers := serverConnectionsRule(in)
	maps.Copy(c.Numbers, numbers)
	uncheckedMax := false
	for _, d := range in.Analysis.Database {
		key := func(s timeline.Series) bool { return dbInstance(s) == d.Instance }
		cpu := pick(cpus, key)
		credit := pick(credits, key)
		t := d.Instance + ":"
		if p, ok := firstAtLeast(cpu.Points, in.Window, r.CPUPercent.V); ok {
			sat = append(sat, Check{Object: d.Instance, At: p.T, Evidence: []string{fmt.Sprintf("%s CPU %.0f%% at %s (rule: ≥ %.0f%%)", d.Instance, p.V, p.T.UTC().Format(time.TimeOnly), r.CPUPercent.V)}})
		} else if hi, ok := peakIn(cpu.Points, in.Window); ok {
			t += fmt.Sprintf(" CPU at most %.0f%%", hi)
			c.Numbers[d.Instance+"_cpu_peak_percent"] = roundTo(hi, 2)
		}
		low := timeline.Series{}
		for _, p := range credit.Points {
			low.Points = append(low.Points, timeline.Point{T: p.T, V: -p.V})
		}
		if p, ok := firstAtLeast(low.Points, in.Window, -r.CreditBalanceMin.V); ok {
			sat = append(sat, Check{Object: d.Instance, At: p.T, Evidence: []string{fmt.Sprintf("%s CPU credits at %g at %s (rule: ≤ %g)", d.Instance, -p.V, p.T.UTC().Format(time.TimeOnly), r.CreditBalanceMin.V)}})
		} else if d.CreditEnd != nil {
			t += fmt.Sprintf(", CPU credits %s (%s at the end)", d.CreditTrend, FormatNum(d.CreditEnd.Value))
			c.Numbers[d.Instance+"_credit_balance_end"] = roundTo(d.CreditEnd.Value, 4)
		}
		conn := pick(conns, key)
		if maxConns > 0 {
			if p, ok := firstAtLeast(conn.Points, in.Window, r.ConnectionsOfMax.V*maxConns); ok {
				sat = append(sat, Check{Object: d.Instance, At: p.T, Evidence: []string{fmt.Sprintf("%s connections %s of max_connections %s (params.db_max_connections) at %s (rule: ≥ %s)",
					d.Instance, FormatNum(p.V), FormatNum(maxConns), p.T.UTC().Format(time.TimeOnly), pct(r.ConnectionsOfMax.V))}})
				texts = append(texts, t)
				continue
			}
		}
		peak, ok := peakIn(conn.Points, in.Window)
		if !ok && d.ConnectionsPeak != nil {
			peak, ok = d.ConnectionsPeak.Value, true
		}
		switch {
		case ok && maxConns > 0:
			t += fmt.Sprintf(", connections %s of %s", FormatNum(peak), FormatNum(maxConns))
			c.Numbers[d.Instance+"_connections_peak"] = roundTo(peak, 4)
			c.Numbers[d.Instance+"_max_connections"] = maxConns
		case ok:
			t += ", connections at most " + FormatNum(peak)
			c.Numbers[d.Instance+"_connections_peak"] = roundTo(peak, 4)
			uncheckedMax = true
		}
		texts = append(texts, t)
	}
	if len(sat) > 0 {
		f := slices.MinFunc(sat, func(x, y Check) int { return x.At.Compare(y.At) })
		f.Resource, f.Saturated = ResourceDatabase, true
		if f.Res == 0 {
			f.Res = res
		}
		return f
	}
	if len(c.Numbers) == 0 {
		// Series of the server, none with a number to judge it by (an exporter without
		// max_connections, an RDS instance without samples in the window).
		c.Missing = "the database server's CPU, CPU credits, or connections with max_connections (postgres_exporter's pg_settings_max_connections, mysqld_exporter's mysql_global_variables_max_connections, params.db_max_connections for RDS)"
		return c
	}
	c.Text = "not the database: " + strings.Join(texts, "; ")
	if uncheckedMax {
		c.Text += "; not checked: max_connections (params.db_max_connections)"
	}
	return c
}

func pick(set timeline.Set, keep func(timeline.Series) bool) timeline.Series {
	for _, s := range set {
		if keep(s) {
			return s
		}
	}
	return timeline.Series{}
}

// PoolRule says the database's connections held a plateau at pool.busy_of_size of the
// application's pool (ready pods × params.db_pool_per_pod).
func PoolRule(in RuleInput) Check {
	if c, ok := poolMetricsRule(in); ok {
		return c
	}
	c := Check{Resource: ResourcePool, Numbers: map[string]float64{}}
	if in.Cfg.PoolPerPod <= 0 || len(in.Analysis.Database) == 0 {
		c.Missing = "the pool's metrics (HikariCP, Prisma, database/sql), or its size (params.db_pool_per_pod) with the database's connections"
		return c
	}
	var texts []string
	for _, d := range in.Analysis.Database {
		if d.PoolCeiling == nil || d.PoolCeiling.Value <= 0 {
			continue
		}
		used := 0.0
		if d.Plateau != nil {
			used = d.Plateau.Value
		} else if d.ConnectionsPeak != nil {
			used = d.ConnectionsPeak.Value
		}
		share := used / d.PoolCeiling.Value
		if d.Plateau != nil && share >= in.Rules.Pool.BusyOfSize.V && in.Window.Contains(d.Plateau.At) {
			return Check{Resource: ResourcePool, Saturated: true, Object: d.Instance, At: d.Plateau.At, Res: in.TL.Res(SourceRDS),
				Evidence: []string{fmt.Sprintf("%s connections held at %s from %s, %s of the pool (%s; rule: ≥ %s)",
					d.Instance, FormatNum(d.Plateau.Value), d.Plateau.At.UTC().Format(time.TimeOnly), pct(share), d.PlateauText, pct(in.Rules.Pool.BusyOfSize.V))}}
		}
		texts = append(texts, fmt.Sprintf("%s at most %s busy (%s of %s connections)", d.Instance, pct(share), FormatNum(used), FormatNum(d.PoolCeiling.Value)))
		c.Numbers[d.Instance+"_busy_of_size"] = roundTo(share, 4)
	}
	if len(texts) == 0 {
		c.Missing = "the database's connections at the moment of their peak, with the Ready replicas"
		return c
	}
	c.Text = "not the pool: " + strings.Join(texts, "; ")
	return c
}

// LoadGeneratorRule says the load generator limited a broken stage while no resource of
// the service saturated (DecideBottleneck asks it only then). Either its own CPU
// (QLoadGeneratorCPU, which `tidemark run` writes) reached
// load_generator.cpu_of_available of the cores it may use: the tool then set the pace,
// whatever its drops, latency and errors, since a generator short of CPU starts
// iterations late and times its requests with its own queueing; or the stage broke only
// by its drops or a missed rate, with errors within defaults.error_ratio_ok and its p95
// within load_generator.latency_rise of the run's lowest stage p95. Without the CPU
// series (a run k6 made) it judges by the drops alone. `at` is the earlier of the CPU's
// first moment at the threshold and the first push with drops.
func LoadGeneratorRule(in RuleInput) Check {
	c := Check{Resource: ResourceLoadGenerator, Numbers: map[string]float64{}}
	st := in.Stage
	if st == nil {
		return c
	}
	cpu := loadGeneratorCPU(in)
	missed := st.Dropped > 0 || st.AchievedRatio != nil && st.AchievedRatio.Value < in.Cfg.StageAchievedOK
	errRate := 0.0
	if st.ErrorRate != nil {
		errRate = st.ErrorRate.Value
	}
	c.Numbers["dropped_iterations"] = st.Dropped
	c.Numbers["error_rate"] = roundTo(errRate, 6)
	thresholdBroke := slices.ContainsFunc(st.Thresholds, func(t StageThreshold) bool {
		return t.Judged && !t.Passed && t.Metric != "dropped_iterations" && t.Metric != "iterations"
	})
	lowest := lowestP95(in.Analysis.Load.Stages)
	slow := false
	var p95 string
	if st.P95 != nil && !math.IsInf(lowest, 1) {
		rise := st.P95.Value / lowest
		c.Numbers["p95_rise"] = roundTo(rise, 3)
		slow = rise > in.Rules.LoadGenerator.LatencyRise.V
		p95 = fmt.Sprintf(", p95 %s (%.1f× the lowest stage p95; rule: ≤ %g×)", FormatSeconds(st.P95.Value), rise, in.Rules.LoadGenerator.LatencyRise.V)
	}
	byDrops := missed && errRate <= in.Cfg.ErrorRatioOK && !thresholdBroke && !slow
	if !byDrops && !cpu.saturated {
		c.Text = fmt.Sprintf("not the load generator: %s dropped, error rate %s%s", FormatNum(st.Dropped), formatPercent(errRate), p95)
		if thresholdBroke {
			c.Text += ", a threshold of the service broke"
		}
		if cpu.judged {
			c.Text += ", " + cpu.peakText()
			c.Numbers["cpu_peak_of_available"] = roundTo(cpu.share, 4)
			c.Numbers["cpu_cores"] = roundTo(cpu.cores, 4)
		}
		return c
	}
	c.Saturated = true
	c.Res = in.TL.Res(SourceK6)
	var dropsAt time.Time
	if byDrops {
		dropsAt = st.From
		if p, ok := firstAtLeast(in.TL.Set(QDropped).Sum(2*c.Res).Points, timeline.Window{From: st.From, To: st.To}, math.SmallestNonzeroFloat64); ok {
			dropsAt = p.T
		}
	}
	stage := fmt.Sprintf("stage %d: %s dropped iterations, error rate %s%s, while no resource of the service saturated",
		StageNumber(st.Stage), FormatNum(st.Dropped), formatPercent(errRate), p95)
	switch {
	case cpu.saturated:
		// The CPU is the cause, the drops its symptom: it leads the evidence, and `at` is
		// the earlier of the two (the share is a rate, a push or two behind the drops).
		c.At = cpu.at
		if byDrops && dropsAt.Before(cpu.at) {
			c.At = dropsAt
			stage += ", the first drops at " + dropsAt.UTC().Format(time.TimeOnly)
		}
		c.Evidence = []string{cpu.saturatedText(in.Rules.LoadGenerator.CPUOfAvailable.V), stage}
		if errRate > in.Cfg.ErrorRatioOK || thresholdBroke || slow {
			c.Evidence = append(c.Evidence, "the stage's failures and latency were measured by a load generator short of CPU: rerun with more CPU for the generator (or more instances) to judge the service")
		}
	default:
		c.At = dropsAt
		c.Evidence = []string{stage}
		if cpu.judged {
			c.Evidence = append(c.Evidence, cpu.peakText())
		}
	}
	if st.MaxVUs != nil {
		c.Evidence = append(c.Evidence, fmt.Sprintf("VUs at most %s: the script's maxVUs (or the generator) could not start more iterations", FormatNum(st.MaxVUs.Value)))
	}
	if st.AchievedRatio != nil {
		c.Evidence = append(c.Evidence, fmt.Sprintf("achieved %s of the target", formatPercent(st.AchievedRatio.Value)))
	}
	return c
}

// generatorCPU is the load generator's own CPU over a rule's window, from
// QLoadGeneratorCPU (its share of the cores it may use, per instance_id).
type generatorCPU struct {
	// judged is true when the series has points in the window.
	judged bool
	// saturated: the share reached load_generator.cpu_of_available at at, first on
	// instance (empty on a single instance).
	saturated bool
	at        time.Time
	instance  string
	// share is the share at at when saturated, else the peak share (at its instance);
	// cores are that instance's cores then (0 when unknown).
	share, cores float64
}

// loadGeneratorCPU reads the load generator's CPU in the rule's window.
func loadGeneratorCPU(in RuleInput) generatorCPU {
	var g generatorCPU
	lvl := in.Rules.LoadGenerator.CPUOfAvailable.V
	res := in.TL.Res(SourceK6)
	cores := func(inst string, t time.Time) float64 {
		v, _ := in.TL.Set(QLoadGeneratorCPUCores).Match(map[string]string{"instance_id": inst}).First().At(t, 2*res)
		return v
	}
	for _, s := range in.TL.Set(QLoadGeneratorCPU) {
		inst := s.Label("instance_id")
		peak, ok := timeline.ArgMax(s.Between(in.Window))
		if !ok {
			continue
		}
		g.judged = true
		if lvl > 0 {
			if p, ok := firstAtLeast(s.Points, in.Window, lvl); ok {
				if !g.saturated || p.T.Before(g.at) {
					g = generatorCPU{judged: true, saturated: true, at: p.T, instance: inst, share: p.V, cores: cores(inst, p.T)}
				}
				continue
			}
		}
		if !g.saturated && peak.V >= g.share {
			g.instance, g.share, g.cores = inst, peak.V, cores(inst, peak.T)
		}
	}
	return g
}

func (g generatorCPU) of() string {
	s := "the load generator's own CPU"
	if g.instance != "" {
		s += " (instance_id " + g.instance + ")"
	}
	return s
}

func (g generatorCPU) coresText() string {
	switch {
	case g.cores <= 0:
		return "the cores it may use"
	case g.cores == 1:
		return "its 1 core"
	}
	return "its " + FormatNum(g.cores) + " cores"
}

// saturatedText is the evidence of a saturated generator: "the load generator's own CPU
// at 97% of its 0.2 cores at 10:03:10 (rule: ≥ 90%)".
func (g generatorCPU) saturatedText(lvl float64) string {
	return fmt.Sprintf("%s at %s of %s at %s (rule: ≥ %s)", g.of(), pct(g.share), g.coresText(), g.at.UTC().Format(time.TimeOnly), pct(lvl))
}

// peakText rules the generator's CPU out: "the load generator's own CPU at most 43% of
// its 2 cores".
func (g generatorCPU) peakText() string {
	return fmt.Sprintf("%s at most %s of %s", g.of(), pct(g.share), g.coresText())
}

// loadGeneratorCPUMissing is what a verdict names as not checked when a broken stage has
// no explanation and the run has no load generator CPU series.
const loadGeneratorCPUMissing = "the load generator's own CPU (tidemark_load_generator_cpu_seconds_total and _cores, which `tidemark run` writes with remote write; a run k6 made has none)"

// serverConnectionsRule is the database server's connections against its
// max_connections (postgres_exporter, mysqld_exporter): saturated at
// database.connections_of_max.
func serverConnectionsRule(in RuleInput) (sat []Check, texts []string, numbers map[string]float64) {
	numbers = map[string]float64{}
	r := in.Rules.Database.ConnectionsOfMax.V
	for _, s := range in.Analysis.Connections.Servers {
		if s.MaxConnections == nil || s.MaxConnections.Value <= 0 {
			continue
		}
		mx := s.MaxConnections.Value
		conns := serverConnections(in.TL, s)
		var share []timeline.Point
		for _, p := range conns.Points {
			share = append(share, timeline.Point{T: p.T, V: p.V / mx})
		}
		if p, ok := firstAtLeast(share, in.Window, r); ok {
			sat = append(sat, Check{Object: s.Server, At: p.T, Res: time.Duration(s.MaxConnections.ResolutionSeconds * float64(time.Second)), Evidence: []string{fmt.Sprintf("%s (%s) at %s of max_connections %s at %s (rule: ≥ %s)",
				s.Server, s.Engine, FormatNum(math.Round(p.V*mx)), FormatNum(mx), p.T.UTC().Format(time.TimeOnly), pct(r))}})
			continue
		}
		if hi, ok := peakIn(share, in.Window); ok {
			texts = append(texts, fmt.Sprintf("%s connections %s of %s", s.Server, FormatNum(math.Round(hi*mx)), FormatNum(mx)))
			numbers[s.Server+"_connections_peak"] = math.Round(hi * mx)
			numbers[s.Server+"_max_connections"] = mx
		}
	}
	return sat, texts, numbers
}

// poolMetricsRule reads the application's pools (HikariCP, Prisma, database/sql): a
// pool is exhausted when its busy connections reach pool.busy_of_size of its size, or
// a query waited for a connection.
func poolMetricsRule(in RuleInput) (c Check, ok bool) {
	pools := in.Analysis.Connections.Pools
	if len(pools) == 0 {
		return Check{}, false
	}
	c = Check{Resource: ResourcePool, Numbers: map[string]float64{}}
	r := in.Rules.Pool.BusyOfSize.V
	var sat []Check
	peak, waiters := 0.0, 0.0
	for _, p := range pools {
		if p.WaitersFirst != nil && in.Window.Contains(p.WaitersFirst.At) {
			e := fmt.Sprintf("%s: queries waited for a connection from %s", p.Name(), p.WaitersFirst.At.UTC().Format(time.TimeOnly))
			if p.PendingPeak != nil && p.PendingPeak.Value > 0 {
				e += fmt.Sprintf(" (at most %s waiting at once)", FormatNum(p.PendingPeak.Value))
			}
			sat = append(sat, Check{Object: p.Name(), At: p.WaitersFirst.At, Evidence: []string{e}})
		}
		if p.PendingPeak != nil {
			waiters = max(waiters, p.PendingPeak.Value)
		}
		if p.Size == nil || p.Size.Value <= 0 {
			continue
		}
		var share []timeline.Point
		for _, q := range p.Busy.Points {
			share = append(share, timeline.Point{T: q.T, V: q.V / p.Size.Value})
		}
		if q, ok := firstAtLeast(share, in.Window, r); ok {
			sat = append(sat, Check{Object: p.Name(), At: q.T, Evidence: []string{fmt.Sprintf("%s: %s of %s connections busy at %s (rule: ≥ %s)",
				p.Name(), FormatNum(math.Round(q.V*p.Size.Value)), FormatNum(p.Size.Value), q.T.UTC().Format(time.TimeOnly), pct(r))}})
		} else if hi, ok := peakIn(share, in.Window); ok {
			peak = max(peak, hi)
		}
	}
	if len(sat) > 0 {
		// The first check names the moment; every other one is evidence too, the busy
		// connections at the same scrape as the first waiter included.
		first := 0
		for i, o := range sat {
			if o.At.Before(sat[first].At) {
				first = i
			}
		}
		f := sat[first]
		f.Resource, f.Saturated, f.Res = ResourcePool, true, in.TL.Res(SourcePool)
		for i, o := range sat {
			switch {
			case i == first:
			case o.At.Equal(f.At):
				f.Evidence = append(f.Evidence, strings.Join(o.Evidence, "; "))
			default:
				f.Evidence = append(f.Evidence, "then "+strings.Join(o.Evidence, "; "))
			}
		}
		return f, true
	}
	c.Numbers["busy_of_size_peak"] = roundTo(peak, 4)
	c.Numbers["pending_peak"] = waiters
	c.Text = fmt.Sprintf("not the pool: %d pool(s) at most %s busy, %s waiting", len(pools), pct(peak), FormatNum(waiters))
	return c, true
}

// serverConnections is the connections series of a server seen through its exporter.
func serverConnections(tl *timeline.Timeline, srv DBServer) timeline.Series {
	for _, q := range []string{QPGConnections, QMySQLConnections} {
		for _, x := range tl.Set(q) {
			if serverName(x) == srv.Server {
				return x
			}
		}
	}
	return timeline.Series{}
}
