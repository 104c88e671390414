package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/timeline"
)

// FromCorrelation turns a correlated run into a report document: key facts first, then
// load, autoscaling, CPU, database and errors on one time axis, the tables users build
// by hand, the findings, and every note about missing or partial data. With
// [WithRegressions], the run's changes against its group's history come first.
func FromCorrelation(r *correlator.Result, opts ...Option) *Document {
	o := applyOptions(opts)
	win := r.Window.Run
	if !r.Window.After.To.IsZero() && r.Window.After.To.After(win.To) {
		win.To = r.Window.After.To
	}
	if !r.Window.Baseline.From.IsZero() && r.Window.Baseline.From.Before(win.From) {
		win.From = r.Window.Baseline.From
	}
	d := &Document{
		Title:     "Tidemark run " + r.TestID,
		Subtitle:  subtitle(r),
		Generated: r.GeneratedAt,
		Window:    Window{From: win.From, To: win.To},
	}
	d.Lead = bottleneckSection(r)
	d.KeyFacts = keyFacts(r)
	d.Charts = charts(r)
	for _, e := range r.Events {
		d.Events = append(d.Events, Event{Time: e.At, Kind: e.Kind, Label: eventLabel(e)})
	}
	if s, ok := regressionsSection(o.changes, false); ok {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, loadSection(r))
	if s, ok := webVitalsSection(r); ok {
		d.Sections = append(d.Sections, s)
	}
	if s, ok := autoscalingSection(r); ok {
		d.Sections = append(d.Sections, s)
	}
	if s, ok := cpuSection(r); ok {
		d.Sections = append(d.Sections, s)
	}
	if s, ok := databaseSection(r); ok {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, errorsSection(r))
	if len(r.Findings) > 0 {
		d.Sections = append(d.Sections, findingsSection(r))
	}
	if s, ok := sloSection(r); ok {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, sourcesSection(r))
	for _, n := range r.Notes {
		text := n.Text
		if n.Object != "" && !strings.Contains(text, n.Object) {
			text = n.Object + ": " + text
		}
		d.Notes = append(d.Notes, fmt.Sprintf("[%s, %s] %s", n.Section, n.Level, text))
	}
	return d
}

func subtitle(r *correlator.Result) string {
	parts := []string{fmt.Sprintf("run %s → %s UTC (%s)", fmtTime(r.Window.Run.From), fmtTime(r.Window.Run.To), windowFrom(r.Window.From))}
	if r.Filters.Namespace != "" {
		parts = append(parts, "namespace "+r.Filters.Namespace)
	}
	if r.Filters.Workload != "" {
		parts = append(parts, "workload "+r.Filters.Workload)
	}
	if r.Window.Live {
		parts = append(parts, "still running when correlated")
	}
	return strings.Join(parts, " · ")
}

// windowFrom says where the run window came from.
func windowFrom(src string) string {
	switch src {
	case correlator.WindowFromRunInfo:
		return "window from the run's tidemark_run_info series"
	case correlator.WindowFromK6:
		return "window from the run's k6 series: no tidemark_run_info"
	case correlator.WindowFromFlags:
		return "window as given by --from and --to"
	case correlator.WindowMixed:
		return "window from the run's series and --from or --to"
	}
	return "window from " + src
}

func eventLabel(e analysis.Event) string {
	if e.Object != "" && !strings.Contains(e.Text, e.Object) {
		return e.Object + ": " + e.Text
	}
	return e.Text
}

// keyFacts picks the headline numbers: what a reader of the seed stories looked for first.
func keyFacts(r *correlator.Result) []KeyFact {
	var out []KeyFact
	add := func(label string, f *analysis.Fact, detail string) {
		if f == nil {
			return
		}
		out = append(out, KeyFact{Label: label, Value: FormatFact(f), Detail: joinDetail(detail, precision(f))})
	}
	// The facts' titles are the table's.
	t := facts.Default()
	title := func(name string, labels map[string]string) string {
		return t.Title(facts.KeyFact{Name: name, Labels: labels})
	}
	l := r.Load
	out = append(out, KeyFact{Label: title(facts.Requests, nil), Value: fmt.Sprintf("%.0f", l.Requests),
		Detail: fmt.Sprintf("%.0f failed, %.0f dropped iterations", l.Failures, l.Dropped)})
	add(title(facts.ErrorRatio, nil), l.ErrorRate, "")
	add(title(facts.LoadP95, nil), l.P95, "whole run")
	if kf, ok := webVitalsKeyFact(r); ok {
		out = append(out, kf)
	}
	if l.Capacity.Text != "" {
		kf := KeyFact{Label: "Capacity", Value: capacityValue(l), Detail: l.Capacity.Text}
		if r.Bottleneck.Resource == analysis.ResourceLoadGenerator {
			// The stage broke on the generator's side: not the service's capacity.
			kf.Value = fmt.Sprintf("not measured past stage %d: the load generator was the limit", r.Bottleneck.Stage)
		}
		out = append(out, kf)
	}
	for _, h := range r.Autoscaling {
		name := " " + h.Name
		add(title(facts.HPAReaction, map[string]string{"from": facts.FromLoadStep})+name, h.ReactionFromLoadStep, "from the load step to the first scale-up")
		add(title(facts.HPAReaction, map[string]string{"from": facts.FromMetricCrossed})+name, h.ReactionFromCrossing, "from target×(1+tolerance) to the first scale-up")
		if g := h.LargestStartupGap(); g != nil {
			add(title(facts.LargestReadyGap, nil)+name, g, "HPA current replicas until Ready caught up")
		}
		add(title(facts.HPATimeToMax, nil)+name, h.TimeToMax, "")
		add(title(facts.HPAScaleInDelay, nil)+name, h.ScaleInDelay, "after the load ended")
	}
	for _, c := range r.CPU {
		if h := c.StageOnset; h != nil {
			out = append(out, KeyFact{Label: "Throttling onset " + c.Workload, Value: holdLoad(h),
				Detail: fmt.Sprintf("first hold throttled in more than %s of its active CFS periods (%s); per hold: %s",
					FormatFact(&analysis.Fact{Value: c.StageOnsetShare, Unit: analysis.UnitRatio}), FormatFact(h.Share), holdShares(c.Holds))})
			continue
		}
		if len(c.Holds) > 0 {
			// The load had holds and none was throttled in most of its periods: the bursts
			// a timed onset saw are no onset (docs/correlation.md).
			if len(c.Onsets) > 0 {
				out = append(out, KeyFact{Label: "Throttling onset " + c.Workload, Value: "none",
					Detail: fmt.Sprintf("no hold throttled in more than %s of its active CFS periods; per hold: %s",
						FormatFact(&analysis.Fact{Value: c.StageOnsetShare, Unit: analysis.UnitRatio}), holdShares(c.Holds))})
			}
			continue
		}
		for _, o := range c.Onsets {
			if o.At == nil {
				continue
			}
			detail := fmt.Sprintf("throttled > %.0f%% of active CFS periods", o.Threshold*100)
			if o.RequestRate != nil {
				detail += fmt.Sprintf(" at %s", FormatFact(o.RequestRate))
			}
			if o.VUs != nil {
				detail += fmt.Sprintf(", %s", FormatFact(o.VUs))
			}
			out = append(out, KeyFact{Label: fmt.Sprintf("Throttling onset %s (>%.0f%%)", c.Workload, o.Threshold*100),
				Value: FormatFact(o.At), Detail: joinDetail(detail, precision(o.At))})
			break
		}
	}
	for _, db := range r.Database {
		if g := db.ConnectionsGrowth; g != nil && g.Value == 0 {
			out = append(out, KeyFact{Label: title(facts.DBGrowth, nil) + " " + db.Instance, Value: "no change", Detail: joinDetail("peak minus baseline", precision(g))})
			continue
		}
		add(title(facts.DBGrowth, nil)+" "+db.Instance, db.ConnectionsGrowth, "peak minus baseline")
	}
	for _, d := range r.Connections.Servers {
		add(title(facts.DBPeakShare, nil)+" "+d.Server, d.PeakShare, "peak connections ÷ max_connections")
	}
	if t := r.Connections.Total; t != nil {
		add(title(facts.PoolBusyShare, nil), t.BusyShare, "connections in use ÷ pool size, all pods together")
	}
	if f, b := r.Errors.InGapShare, r.Errors.InGapShareBounds; f != nil && b != nil {
		out = append(out, KeyFact{Label: title(facts.ErrorsInGap, nil), Value: FormatFact(f),
			Detail: fmt.Sprintf("share of all failed requests; between %s and %s given the push and scrape intervals",
				FormatFact(&analysis.Fact{Value: b.Low, Unit: analysis.UnitRatio}), FormatFact(&analysis.Fact{Value: b.High, Unit: analysis.UnitRatio}))})
	} else {
		add(title(facts.ErrorsInGap, nil), f, "share of all failed requests")
	}
	return out
}

func capacityValue(l analysis.Load) string {
	switch {
	case l.Capacity.FirstBroke != nil && l.Capacity.LastHeld != nil:
		return fmt.Sprintf("held to stage %d, broke at %d", *l.Capacity.LastHeld+1, *l.Capacity.FirstBroke+1)
	case l.Capacity.FirstBroke != nil:
		return fmt.Sprintf("broke at stage %d", *l.Capacity.FirstBroke+1)
	case l.Capacity.LastHeld != nil:
		return fmt.Sprintf("held through stage %d", *l.Capacity.LastHeld+1)
	}
	return "—"
}

// holdTarget is a hold's target: "20 VUs", "50 iterations/s".
func holdTarget(h *analysis.HoldThrottling) string {
	if h.Unit == analysis.StageUnitIterations {
		return analysis.FormatNum(h.Target) + " iterations/s"
	}
	return FormatFact(&analysis.Fact{Value: h.Target, Unit: h.Unit})
}

// holdLoad is a hold's target and achieved request rate: "20 VUs (18.1/s)".
func holdLoad(h *analysis.HoldThrottling) string {
	v := holdTarget(h)
	if h.RequestRate != nil {
		v += " (" + FormatFact(h.RequestRate) + ")"
	}
	return v
}

// holdShares lists the throttled share of every hold: "10 VUs 12%, 20 VUs 86%".
func holdShares(hs []analysis.HoldThrottling) string {
	parts := make([]string, 0, len(hs))
	for i := range hs {
		parts = append(parts, holdTarget(&hs[i])+" "+FormatFact(hs[i].Share))
	}
	return strings.Join(parts, ", ")
}

func joinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// precision says how exact a fact is, from the resolution of its source: a span
// between two moments (a reaction, a gap) or a moment itself is known to ± that
// resolution; any other value (a ratio, a latency, a count) was read from samples that
// far apart, which is no error bar on the value: "p95 5 s (±5 s)" would read as one.
func precision(f *analysis.Fact) string {
	if f == nil || f.ResolutionSeconds <= 0 {
		return ""
	}
	res := analysis.FormatSeconds(f.ResolutionSeconds)
	if f.Unit == analysis.UnitTime || f.Unit == analysis.UnitSeconds && f.At.IsZero() {
		return "±" + res
	}
	return "sampled every " + res
}

// FormatFact prints a fact's value in its unit, the way a person writes it.
func FormatFact(f *analysis.Fact) string {
	if f == nil {
		return "—"
	}
	switch f.Unit {
	case analysis.UnitSeconds:
		if f.Value == 0 && f.At.IsZero() && f.ResolutionSeconds > 0 {
			// A span whose ends fell in the same samples: shorter than the samples can
			// show, not "0 ms".
			return "< " + analysis.FormatSeconds(f.ResolutionSeconds)
		}
	case analysis.UnitTime:
		return f.At.UTC().Format(time.TimeOnly)
	}
	return analysis.FormatValue(f.Unit, f.Value)
}

// at prints the clock time of an instant fact, or "—".
func at(f *analysis.Fact) string {
	if f == nil {
		return "—"
	}
	if !f.At.IsZero() {
		return f.At.UTC().Format(time.TimeOnly)
	}
	return FormatFact(f)
}

func loadSection(r *correlator.Result) Section {
	l := r.Load
	s := Section{Title: "Load"}
	if l.Capacity.Text != "" {
		s.Text = append(s.Text, l.Capacity.Text)
	}
	if l.VerdictRule != "" {
		s.Text = append(s.Text, "Verdict: "+l.VerdictRule+".")
	}
	t := Table{Title: "Stages", Columns: []string{"Stage", "Scenario", "Window", "Target", "Achieved", "req/s", "p50", "p95", "p99", "Errors", "Dropped", "Verdict"}}
	for i, st := range l.Stages {
		unit := " " + analysis.TargetUnit(st.Unit)
		if st.Inferred {
			unit += " (inferred)"
		}
		t.Rows = append(t.Rows, []string{
			fmt.Sprintf("%d (%s)", st.Index+1, st.Kind), st.Scenario,
			fmtOffset(st.From.Sub(r.Window.Run.From)) + " – " + fmtOffset(st.To.Sub(r.Window.Run.From)),
			analysis.FormatNum(st.TargetAvg) + unit, FormatFact(st.Achieved), FormatFact(st.RequestRate),
			FormatFact(st.P50), FormatFact(st.P95), FormatFact(st.P99), FormatFact(st.ErrorRate), analysis.FormatNum(st.Dropped), st.Why + stageRules(r, i),
		})
	}
	s.Tables = append(s.Tables, t)
	return s
}

func autoscalingSection(r *correlator.Result) (Section, bool) {
	if len(r.Autoscaling) == 0 {
		return Section{}, false
	}
	s := Section{Title: "Autoscaling"}
	sum := Table{Title: "Per HPA", Columns: []string{"HPA", "Deployment", "Min–max", "Baseline", "Peak", "Metric crossed", "First scale-up", "Reaction (load step)", "Reaction (crossing)", "Time to max", "Held at max", "Scale-in start", "Scale-in delay", "Back to min"}}
	steps := Table{Title: "HPA current → ready, per step", Columns: []string{"HPA", "Step", "Desired at", "Current at", "Ready at", "Start-up gap"}}
	pods := Table{Title: "Pod start-up (created → Ready)", Columns: []string{"HPA", "Pod", "Created", "Ready", "Start-up"}}
	for _, h := range r.Autoscaling {
		name := h.Namespace + "/" + h.Name
		sum.Rows = append(sum.Rows, []string{name, h.Deployment, analysis.FormatNum(factValue(h.Min)) + "–" + analysis.FormatNum(factValue(h.Max)),
			FormatFact(h.Baseline), FormatFact(h.Peak), at(h.MetricCrossed), at(h.FirstScaleUp),
			FormatFact(h.ReactionFromLoadStep), FormatFact(h.ReactionFromCrossing), FormatFact(h.TimeToMax),
			FormatFact(h.HeldAtMax), at(h.ScaleInStart), FormatFact(h.ScaleInDelay), at(h.RecoveredToMin)})
		for _, st := range h.Steps {
			gap := FormatFact(st.ReadyGap)
			if st.NeverReady {
				gap = fmt.Sprintf("never Ready (reached %s)", analysis.FormatNum(st.ReadyMax))
			}
			steps.Rows = append(steps.Rows, []string{name, fmt.Sprintf("%s %s→%s", st.Direction, analysis.FormatNum(st.From), analysis.FormatNum(st.To)),
				at(st.DesiredAt), at(st.CurrentAt), at(st.ReadyAt), gap})
		}
		for _, p := range h.Pods {
			ready, startup := "—", FormatFact(p.Startup)
			if !p.Ready.IsZero() {
				ready = p.Ready.UTC().Format(time.TimeOnly)
			}
			if p.NeverReady {
				startup = "never Ready"
			}
			pods.Rows = append(pods.Rows, []string{name, p.Pod, p.Created.UTC().Format(time.TimeOnly), ready, startup})
		}
	}
	s.Tables = append(s.Tables, sum, steps)
	if len(pods.Rows) > 0 {
		s.Tables = append(s.Tables, pods)
	}
	return s, true
}

func factValue(f *analysis.Fact) float64 {
	if f == nil {
		return math.NaN()
	}
	return f.Value
}

func cpuSection(r *correlator.Result) (Section, bool) {
	if len(r.CPU) == 0 {
		return Section{}, false
	}
	s := Section{Title: "CPU and throttling"}
	t := Table{Columns: []string{"Workload", "Request", "Limit", "HPA target", "Peak usage", "Peak of limit", "Peak throttled", "Onset > 5%", "Onset > 25%", "Usage of limit while throttled"}}
	for _, c := range r.CPU {
		limit := FormatFact(c.Limit)
		if c.NoLimit {
			limit = "none: cannot throttle"
		}
		onset := func(th float64) string {
			for _, o := range c.Onsets {
				if o.Threshold == th && o.At != nil {
					v := at(o.At)
					var load []string
					if o.RequestRate != nil {
						load = append(load, FormatFact(o.RequestRate))
					}
					if o.VUs != nil {
						load = append(load, FormatFact(o.VUs))
					}
					if len(load) > 0 {
						v += " at " + strings.Join(load, ", ")
					}
					return v
				}
			}
			return "—"
		}
		t.Rows = append(t.Rows, []string{c.Namespace + "/" + c.Workload, FormatFact(c.Request), limit, FormatFact(c.HPATarget),
			FormatFact(c.PeakUsage), FormatFact(c.PeakUsageOfLimit), FormatFact(c.PeakThrottled), onset(0.05), onset(0.25),
			FormatFact(c.UsageOfLimitWhileThrottled)})
	}
	s.Tables = append(s.Tables, t)
	holds := Table{Columns: []string{"Workload", "Hold", "Throttled share of CFS periods", "Throttling onset"}}
	for _, c := range r.CPU {
		for i := range c.Holds {
			h := &c.Holds[i]
			mark := ""
			if c.StageOnset != nil && c.StageOnset.Stage == h.Stage {
				mark = "onset: over " + FormatFact(&analysis.Fact{Value: c.StageOnsetShare, Unit: analysis.UnitRatio})
			}
			holds.Rows = append(holds.Rows, []string{c.Namespace + "/" + c.Workload, holdLoad(h), FormatFact(h.Share), mark})
		}
	}
	if len(holds.Rows) > 0 {
		s.Tables = append(s.Tables, holds)
	}
	return s, true
}

func databaseSection(r *correlator.Result) (Section, bool) {
	if len(r.Database) == 0 && r.Connections.Empty() {
		return Section{}, false
	}
	s := Section{Title: "Database"}
	connectionTables(&s, r.Connections)
	if len(r.Database) == 0 {
		return s, true
	}
	t := Table{Columns: []string{"Instance", "CPU baseline", "CPU peak", "Connections baseline", "Peak", "Growth", "Plateau", "Credit balance", "Freeable memory min", "Cadence", "Lag"}}
	for _, db := range r.Database {
		plateau := FormatFact(db.Plateau)
		if db.PlateauText != "" {
			plateau = db.PlateauText
		}
		credit := "—"
		if db.CreditStart != nil && db.CreditEnd != nil {
			credit = fmt.Sprintf("%s → %s (%s)", analysis.FormatNum(db.CreditStart.Value), analysis.FormatNum(db.CreditEnd.Value), db.CreditTrend)
		}
		t.Rows = append(t.Rows, []string{db.Instance, FormatFact(db.CPUBaseline), FormatFact(db.CPUPeak),
			FormatFact(db.ConnectionsBaseline), FormatFact(db.ConnectionsPeak), FormatFact(db.ConnectionsGrowth), plateau,
			credit, FormatFact(db.FreeableMin), FormatFact(db.Cadence), FormatFact(db.Lag)})
	}
	s.Tables = append(s.Tables, t)
	return s, true
}

// connectionTables adds the servers seen through their exporters and the pools, per pod
// and in total, to the database section.
func connectionTables(s *Section, c analysis.Connections) {
	if len(c.Servers) > 0 {
		t := Table{Title: "Connections (postgres_exporter, mysqld_exporter)", Columns: []string{"Server", "Engine", "Peak connections", "At", "max_connections", "Peak of max"}}
		for _, d := range c.Servers {
			t.Rows = append(t.Rows, []string{d.Server, d.Engine, FormatFact(d.ConnectionsPeak), at(d.ConnectionsPeak), FormatFact(d.MaxConnections), FormatFact(d.PeakShare)})
		}
		s.Tables = append(s.Tables, t)
	}
	if len(c.Pools) == 0 {
		return
	}
	t := Table{Title: "Connection pools, per pod and in total", Columns: []string{"Pod (pool)", "Size", "Busy peak", "At", "Peak busy share", "Waiters peak", "First waiter"}}
	row := func(p analysis.Pool) []string {
		size := FormatFact(p.Size)
		if p.SizeFrom == analysis.SizeFromParam {
			size += " (db_pool_per_pod)"
		}
		share := FormatFact(p.BusyShare)
		if p.BusyShare != nil {
			share += " at " + at(p.BusyShare)
		}
		first := "none"
		if p.WaitersFirst != nil {
			first = at(p.WaitersFirst)
			if p.WaitersAfterStart != nil {
				first += " (" + FormatFact(p.WaitersAfterStart) + " into the run)"
			}
		}
		return []string{p.Name(), size, FormatFact(p.BusyPeak), at(p.BusyPeak), share, FormatFact(p.PendingPeak), first}
	}
	for _, p := range c.Pools {
		t.Rows = append(t.Rows, row(p))
	}
	if c.Total != nil {
		t.Rows = append(t.Rows, row(*c.Total))
	}
	s.Tables = append(s.Tables, t)
	if c.Total != nil && c.Total.Size == nil {
		s.Text = append(s.Text, "The pools' size is unknown (Prisma reports none): give it with --param db_pool_per_pod=N for the busy share.")
	}
}

func errorsSection(r *correlator.Result) Section {
	e := r.Errors
	s := Section{Title: "Errors"}
	s.Text = append(s.Text, fmt.Sprintf("%.0f of %.0f requests failed (%s).", e.Failures, e.Requests, FormatFact(e.ErrorRate)))
	if e.Text != "" {
		s.Text = append(s.Text, e.Text)
	}
	if len(e.Bursts) > 0 {
		t := Table{Title: "Error bursts", Columns: []string{"From", "To", "Failures", "Requests", "Error rate", "Share of all failures"}}
		for _, b := range e.Bursts {
			t.Rows = append(t.Rows, []string{fmtTime(b.From), fmtTime(b.To), analysis.FormatNum(b.Failures), analysis.FormatNum(b.Requests),
				fmt.Sprintf("%.1f%%", b.ErrorRate*100), fmt.Sprintf("%.0f%%", b.Share*100)})
		}
		s.Tables = append(s.Tables, t)
	}
	if len(e.Gaps) > 0 {
		t := Table{Title: "Failures inside start-up gaps (ready < current)", Columns: []string{"Workload", "From", "To", "Failures", "Share of all failures"}}
		for _, g := range e.Gaps {
			t.Rows = append(t.Rows, []string{g.Object, fmtTime(g.From), fmtTime(g.To), analysis.FormatNum(g.Failures), fmt.Sprintf("%.0f%%", g.Share*100)})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

func findingsSection(r *correlator.Result) Section {
	t := Table{Columns: []string{"Severity", "Finding", "When", "Rule"}}
	for _, f := range r.Findings {
		when := "—"
		if !f.From.IsZero() {
			when = f.From.UTC().Format(time.TimeOnly) + " – " + f.To.UTC().Format(time.TimeOnly)
		}
		t.Rows = append(t.Rows, []string{f.Severity, f.Message, when, f.Rule})
	}
	return Section{Title: "Findings", Tables: []Table{t}}
}

func sourcesSection(r *correlator.Result) Section {
	t := Table{Columns: []string{"Source", "Resolution", "Coverage", "Series", "Selector", "Description"}}
	for _, src := range r.Sources {
		res := analysis.FormatSeconds(src.ResolutionSeconds)
		if !src.Measured {
			res += " (assumed)"
		}
		sel := src.Selector
		switch src.Found {
		case "discovered":
			sel += " (discovered)"
		case "":
			sel = "by testid"
		}
		t.Rows = append(t.Rows, []string{src.Name, res, fmt.Sprintf("%.0f%%", src.Coverage*100), fmt.Sprint(src.Series), sel, src.Description})
	}
	return Section{Title: "Sources", Text: []string{"Every time above is exact to within its source's resolution."}, Tables: []Table{t}}
}

// charts builds the stacked charts from the result's series, in the order a reader
// follows cause and effect: load, latency, replicas per HPA, CPU, throttling, database.
func charts(r *correlator.Result) []Chart {
	var out []Chart
	add := func(c Chart) {
		if !c.empty() {
			out = append(out, c)
		}
	}
	load := Chart{Title: "Load: target vs achieved", Unit: "per second"}
	for _, s := range r.Series[analysis.QScenarioTarget] {
		if s.Labels["unit"] == "vus" {
			continue
		}
		load.Series = append(load.Series, series("target "+s.Labels["scenario"], s, 1, true))
	}
	for _, s := range r.Series[analysis.QHTTPReqRate] {
		load.Series = append(load.Series, series("achieved req/s"+suffix(s.Labels, "scenario"), s, 1, false))
	}
	add(load)
	vus := Chart{Title: "Virtual users", Unit: "VUs"}
	for _, s := range r.Series[analysis.QVUs] {
		vus.Series = append(vus.Series, series("VUs", s, 1, true))
	}
	for _, s := range r.Series[analysis.QScenarioTarget] {
		if s.Labels["unit"] == "vus" {
			vus.Series = append(vus.Series, series("target "+s.Labels["scenario"], s, 1, true))
		}
	}
	add(vus)
	lat := Chart{Title: "Latency p95", Unit: "ms"}
	for _, s := range r.Series[analysis.QLatencyP95] {
		lat.Series = append(lat.Series, series("p95"+suffix(s.Labels, "scenario"), s, 1000, false))
	}
	add(lat)
	add(webVitalsChart(r))
	for _, h := range r.Autoscaling {
		c := Chart{Title: "Replicas " + h.Namespace + "/" + h.Name, Unit: "replicas"}
		m := map[string]string{"namespace": h.Namespace, "horizontalpodautoscaler": h.Name}
		for _, s := range r.Series[analysis.QHPACurrent].Match(m) {
			c.Series = append(c.Series, series("HPA current", s, 1, true))
		}
		for _, s := range r.Series[analysis.QHPADesired].Match(m) {
			c.Series = append(c.Series, series("HPA desired", s, 1, true))
		}
		if h.Deployment != "" {
			for _, s := range r.Series[analysis.QDeploymentReady].Match(map[string]string{"namespace": h.Namespace, "deployment": h.Deployment}) {
				c.Series = append(c.Series, series("ready", s, 1, true))
			}
		}
		if h.Max != nil {
			c.Lines = append(c.Lines, RefLine{Label: "max", Value: h.Max.Value})
		}
		add(c)
	}
	usage := Chart{Title: "CPU usage", Unit: "cores"}
	thr := Chart{Title: "CPU throttled periods", Unit: "%"}
	for _, c := range r.CPU {
		usage.Series = append(usage.Series, series(c.Workload, c.Usage, 1, false))
		thr.Series = append(thr.Series, series(c.Workload, c.Throttled, 100, false))
	}
	if len(r.CPU) == 1 {
		c := r.CPU[0]
		if c.Request != nil {
			usage.Lines = append(usage.Lines, RefLine{Label: "request", Value: c.Request.Value})
		}
		if c.Limit != nil {
			usage.Lines = append(usage.Lines, RefLine{Label: "limit", Value: c.Limit.Value})
		}
		if c.HPATarget != nil {
			usage.Lines = append(usage.Lines, RefLine{Label: "HPA target", Value: c.HPATarget.Value})
		}
	}
	add(usage)
	add(thr)
	dbCPU := Chart{Title: "Database CPU", Unit: "%"}
	for _, s := range r.Series[analysis.QRDSCPU] {
		dbCPU.Series = append(dbCPU.Series, series(firstLabel(s.Labels, "dimension_DBInstanceIdentifier", "dbinstance_identifier"), s, 1, true))
	}
	add(dbCPU)
	dbConn := Chart{Title: "Database connections", Unit: "connections"}
	for _, s := range r.Series[analysis.QRDSConnections] {
		dbConn.Series = append(dbConn.Series, series(firstLabel(s.Labels, "dimension_DBInstanceIdentifier", "dbinstance_identifier"), s, 1, true))
	}
	add(dbConn)
	srvConn := Chart{Title: "Database connections (exporter)", Unit: "connections"}
	for _, q := range []string{analysis.QPGConnections, analysis.QMySQLConnections} {
		for _, s := range r.Series[q] {
			srvConn.Series = append(srvConn.Series, series(firstLabel(s.Labels, "server", "instance"), s, 1, true))
		}
	}
	if len(r.Connections.Servers) == 1 && r.Connections.Servers[0].MaxConnections != nil {
		srvConn.Lines = append(srvConn.Lines, RefLine{Label: "max_connections", Value: r.Connections.Servers[0].MaxConnections.Value})
	}
	add(srvConn)
	pool := Chart{Title: "Pool connections busy", Unit: "connections"}
	for _, s := range r.Series[analysis.QPoolBusy] {
		pool.Series = append(pool.Series, series(analysis.Pool{Namespace: s.Labels["namespace"], Pod: s.Labels["pod"], Pool: s.Labels["pool"]}.Name(), s, 1, true))
	}
	add(pool)
	waiting := Chart{Title: "Pool waiters", Unit: "queries"}
	for _, s := range r.Series[analysis.QPoolPending] {
		waiting.Series = append(waiting.Series, series(analysis.Pool{Namespace: s.Labels["namespace"], Pod: s.Labels["pod"], Pool: s.Labels["pool"]}.Name(), s, 1, true))
	}
	add(waiting)
	return out
}

func series(name string, s timeline.Series, scale float64, step bool) Series {
	out := Series{Name: name, Step: step, Points: make([]Point, 0, len(s.Points))}
	for _, p := range s.Points {
		out.Points = append(out.Points, Point{T: p.T, V: p.V * scale})
	}
	return out
}

func suffix(labels map[string]string, key string) string {
	if v := labels[key]; v != "" {
		return " " + v
	}
	return ""
}

func firstLabel(labels map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := labels[k]; v != "" {
			return v
		}
	}
	ks := make([]string, 0, len(labels))
	for k, v := range labels {
		ks = append(ks, k+"="+v)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}
