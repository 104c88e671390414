package analysis

import (
	"fmt"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// Burst is a span in which the error ratio stayed at or above the burst threshold.
type Burst struct {
	timeline.Window
	Failures  float64 `json:"failures"`
	Requests  float64 `json:"requests"`
	ErrorRate float64 `json:"error_rate"`
	// Share is this burst's part of all failures of the run.
	Share float64 `json:"share_of_failures"`
}

// GapShare is the failures that fell inside one scale-up gap (ready < current).
type GapShare struct {
	Object string `json:"object"`
	timeline.Window
	Failures float64 `json:"failures"`
	Share    float64 `json:"share_of_failures"`
}

// Bounds are the lowest and the highest value a fact can have.
type Bounds struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Errors holds the error facts.
type Errors struct {
	Requests  float64    `json:"requests"`
	Failures  float64    `json:"failures"`
	ErrorRate *Fact      `json:"error_rate,omitempty"`
	Bursts    []Burst    `json:"bursts"`
	Gaps      []GapShare `json:"gaps"`
	// InGapShare is the share of failures that fell while some HPA had ready < current.
	InGapShare *Fact `json:"in_gap_share,omitempty"`
	// InGapShareBounds is how low and how high InGapShare can be, given that a failure is
	// known to within its push interval and a gap's ends to within a kube-state-metrics
	// scrape: the failures whose push lies surely inside a gap, and those whose push
	// touches one.
	InGapShareBounds *Bounds `json:"in_gap_share_bounds,omitempty"`
	// TimeInGapShare is the share of the run during which some HPA had ready < current.
	TimeInGapShare *Fact `json:"time_in_gap_share,omitempty"`
	// Lift is InGapShare ÷ TimeInGapShare: above 1, failures concentrate in start-up gaps.
	Lift *Fact  `json:"lift,omitempty"`
	Text string `json:"text,omitempty"`
}

// AnalyzeErrors finds error bursts and relates failures to scale-up gaps.
func AnalyzeErrors(tl *timeline.Timeline, hpas []HPA, cfg Config) (Errors, []Event, []Note) {
	var (
		out    Errors
		events []Event
		notes  []Note
	)
	res := tl.Res(SourceK6)
	span := tl.Span()
	reqD, _ := counterDeltas(tl.Set(QHTTPReqs), span.From, res)
	failD, _ := counterDeltas(tl.Set(QHTTPFailures), span.From, res)
	out.Requests, out.Failures = sumIn(reqD, tl.Run), sumIn(failD, tl.Run)
	if out.Requests == 0 {
		notes = append(notes, note(NoteMissing, "errors", "", "no requests counted in the run window: error facts are unknown"))
		return out, nil, notes
	}
	out.ErrorRate = value(out.Failures/out.Requests, UnitRatio, time.Time{}, res, Evidence{Query: QHTTPFailures, Series: tl.Set(QHTTPFailures).First().String()})
	if out.Failures == 0 {
		out.Text = "no failed requests"
		return out, nil, notes
	}
	// Bursts: consecutive intervals with error ratio >= the threshold; one quiet interval may sit inside.
	fails := map[time.Time]float64{}
	for _, p := range failD {
		fails[p.T] = p.V
	}
	var cur *Burst
	quiet := 0
	var pendF, pendR float64 // a quiet interval inside a burst, added only if the burst goes on
	var prev time.Time
	closeBurst := func() {
		if cur != nil && cur.Failures > 0 {
			cur.ErrorRate = cur.Failures / max(cur.Requests, 1)
			cur.Share = cur.Failures / out.Failures
			out.Bursts = append(out.Bursts, *cur)
			events = append(events, Event{At: cur.From, Kind: EventErrorBurst, Object: "run", ResolutionSeconds: res.Seconds(),
				Text: fmt.Sprintf("%.0f failures (%.0f%% of all) until %s", cur.Failures, 100*cur.Share, cur.To.Format(time.TimeOnly))})
		}
		cur, quiet, pendF, pendR = nil, 0, 0, 0
	}
	for _, p := range reqD {
		if !tl.Run.Contains(p.T) {
			prev = p.T
			continue
		}
		f := fails[p.T]
		hot := p.V > 0 && f/p.V >= cfg.ErrorBurstRatio
		switch {
		case hot && cur == nil:
			from := prev
			if from.IsZero() {
				from = p.T
			}
			cur = &Burst{Window: timeline.Window{From: from, To: p.T}}
			fallthrough
		case hot:
			cur.To, cur.Failures, cur.Requests = p.T, cur.Failures+f+pendF, cur.Requests+p.V+pendR
			quiet, pendF, pendR = 0, 0, 0
		case cur != nil && quiet == 0:
			quiet, pendF, pendR = 1, f, p.V
		case cur != nil:
			closeBurst()
		}
		prev = p.T
	}
	closeBurst()

	// Failures inside scale-up gaps.
	var gapUnion []timeline.Window
	for _, h := range hpas {
		for _, g := range h.Gaps {
			f := sumIn(failD, g)
			out.Gaps = append(out.Gaps, GapShare{Object: h.Object(), Window: g, Failures: f, Share: f / out.Failures})
			gapUnion = append(gapUnion, g)
		}
	}
	if len(hpas) == 0 {
		notes = append(notes, note(NoteInfo, "errors", "", "no HPA data: failures cannot be related to start-up gaps"))
		return out, events, notes
	}
	var inGap float64
	for _, p := range failD {
		if tl.Run.Contains(p.T) && deltaInAny(p.T, gapUnion) {
			inGap += p.V
		}
	}
	var gapTime time.Duration
	for _, p := range reqD {
		if tl.Run.Contains(p.T) && deltaInAny(p.T, gapUnion) {
			gapTime += res
		}
	}
	ksm := tl.Res(SourceKSM)
	// A gap [From, To] was first seen at the sample From and last at the one before To:
	// it surely covers [From, To−ksm] and at most (From−ksm, To]. A push's failures fell
	// in (T−res, T].
	var surely, maybe float64
	for _, p := range failD {
		if !tl.Run.Contains(p.T) || p.V == 0 {
			continue
		}
		from := p.T.Add(-res)
		if slices.ContainsFunc(gapUnion, func(g timeline.Window) bool { return !from.Before(g.From) && !p.T.After(g.To.Add(-ksm)) }) {
			surely += p.V
		}
		if slices.ContainsFunc(gapUnion, func(g timeline.Window) bool { return p.T.After(g.From.Add(-ksm)) && from.Before(g.To) }) {
			maybe += p.V
		}
	}
	out.InGapShareBounds = &Bounds{Low: min(surely, inGap) / out.Failures, High: max(maybe, inGap) / out.Failures}
	out.InGapShare = value(inGap/out.Failures, UnitRatio, time.Time{}, max(res, ksm), Evidence{Query: QHTTPFailures}, Evidence{Query: QDeploymentReady}, Evidence{Query: QHPACurrent})
	if d := tl.Run.Duration(); d > 0 {
		out.TimeInGapShare = value(min(gapTime.Seconds()/d.Seconds(), 1), UnitRatio, time.Time{}, ksm)
		if out.TimeInGapShare.Value > 0 {
			out.Lift = value(out.InGapShare.Value/out.TimeInGapShare.Value, UnitRatio, time.Time{}, ksm)
		}
	}
	out.Text = fmt.Sprintf("%.0f%% of failures fell while ready < current replicas", 100*out.InGapShare.Value)
	if out.TimeInGapShare != nil {
		out.Text += fmt.Sprintf(" (%.0f%% of the run)", 100*out.TimeInGapShare.Value)
	}
	return out, events, notes
}
