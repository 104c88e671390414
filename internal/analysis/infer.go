package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// The step detector's constants (see inferStages).
const (
	// minStepRatio and minStepAbs are the minimum step: two levels are different stages
	// when they differ by at least max(minStepRatio × the lower level, minStepAbs), in the
	// series' unit (iterations/s, requests/s or VUs). A tenth resolves the stair-step
	// tests people run (story 2: 30 VUs at a time up to 300 is 11% at the top); a
	// smaller change is within what latency alone moves a closed-loop rate. minStepAbs
	// keeps low levels from splitting on a request per second or a VU or two.
	minStepRatio = 0.1
	minStepAbs   = 2.0
	// minHoldPushes is the shortest hold, in pushes: fewer samples at a level are part
	// of a transition (a push or two off the level is noise or a missed push, not a
	// stage).
	minHoldPushes = 3
	// penaltyFactor is the segmentation's cost of one parameter, in units of ln(n) (n
	// the pushes; the squared error is weighted by 1/σ²): 1 is BIC's. Pieces that noise
	// still cuts are joined again by the minimum step.
	penaltyFactor = 1.0
	// significance is how many lines' penalties (3 parameters each) a stage that is no
	// hold must pay for: a ramp at the run's start or end, a reversal without a hold, an
	// excursion between two holds at one level. Noise makes such shapes most easily (a
	// few pushes off the level); a real one lowers the squared error by far more.
	significance = 2.0
	// maxScheduleJitter is the median |second difference| of k6_vus, in VUs, up to which
	// the VUs follow a schedule: whole VUs on holds and linear ramps move by 0 or 1 from
	// one push's change to the next. An arrival-rate run's active VUs, when they follow
	// the latency, jitter by more.
	maxScheduleJitter = 1.0
)

// minStep is the minimum step between levels a and b (see minStepRatio).
func minStep(a, b float64) float64 {
	return max(minStepRatio*min(math.Abs(a), math.Abs(b)), minStepAbs)
}

// xy is one sample for the step detector: x seconds from the run's start, y the value,
// w its weight (1/σ², σ its noise; see weigh).
type xy struct{ x, y, w float64 }

// step is one detected stage, in seconds from the run's start.
type step struct {
	kind       timeline.StageKind
	from, to   float64
	start, end float64
}

// inferStages infers the run's stages from what it achieved, at push resolution, for a
// run without tidemark_scenario_target (one made by k6 alone). It returns the stages,
// marked inferred, and a note that says how they were found.
//
// The driver is the series the load test controlled. k6_vus drives when the run
// dropped no iterations, the VUs move in at least one step of the minimum size, they
// follow a schedule (median |second difference| ≤ maxScheduleJitter VUs: ramping-vus and
// constant-vus set whole VUs on holds and ramps) and every step of the rate falls while
// the VUs step, within followPushes (or at the run's start, when the VUs come up): the
// rate follows the VUs,
// or stops following when the service saturates (story 2: VUs 30→300, the rate flat at
// 10/s). Otherwise the achieved rate drives: the iteration rate (k6_iterations_total per
// push) when the run has it, else the request rate. An arrival-rate run's VUs are a
// pool, which k6 grows only when an iteration would drop, and a rate that steps while
// the VUs hold is an arrival rate's. A closed-model run whose rate moved on its own
// (the service degraded or recovered while the VUs held) is therefore cut by its rate;
// its stages are then the service's response, not the load's: give the stages.
//
// The stages' targets are the levels achieved: a hold's is the median of its pushes,
// a ramp goes from one hold's level to the next.
func inferStages(tl *timeline.Timeline, sc string, dropped float64, res time.Duration) ([]timeline.Stage, []Note) {
	run := tl.Run
	end := run.Duration().Seconds()
	rs := res.Seconds()
	if rs <= 0 {
		return nil, nil
	}
	rateUnit, rateName, rateQuery := StageUnitIterations, "iteration rate", "k6_iterations_total"
	browser := BrowserScenarios(tl)
	iters := loadSeries(tl.Set(QIterationsRaw), browser) // at k6's own stamps, when the correlator read them
	if len(iters) == 0 {
		iters = loadSeries(tl.Set(QIterations), browser)
	}
	rate := rateSamples(iters, tl.Span(), run, res)
	if len(rate) == 0 {
		rateUnit, rateName, rateQuery = StageUnitRequests, "request rate", "k6_http_reqs_total"
		rate = rateSamples(tl.Set(QHTTPReqs), tl.Span(), run, res)
	}
	vus := vuSamples(tl.Set(QVUs), run, res)
	if len(rate) == 0 && len(vus) == 0 {
		return nil, []Note{note(NoteMissing, "load", "", "no tidemark_scenario_target series and no k6 rate or VU samples in the run: no stages")}
	}
	rateSteps := detectSteps(rate, rs, end, 1/rs)
	vuSteps := detectSteps(vus, rs, end, 1)
	unit, steps, why := rateUnit, rateSteps, ""
	switch {
	case len(rate) == 0:
		unit, steps, why = StageUnitVUs, vuSteps, "the run has no rate samples"
	case dropped > 0:
		why = "the run dropped iterations: an arrival-rate executor drove it"
	case !slices.ContainsFunc(vuSteps, func(s step) bool { return s.kind != timeline.Hold }):
		why = "k6_vus made no step"
	case scheduleJitter(vus) > maxScheduleJitter:
		why = "k6_vus follows no schedule (it jitters from push to push)"
	case !follows(rateSteps, vuSteps, rs):
		why = "the rate stepped while the VUs held"
	default:
		unit, steps, why = StageUnitVUs, vuSteps, "k6_vus stepped on a schedule and the rate only moved with it"
	}
	out := make([]timeline.Stage, 0, len(steps))
	for _, s := range steps {
		at := func(x float64) time.Time { return run.From.Add(time.Duration(math.Round(x * float64(time.Second)))) }
		out = append(out, timeline.Stage{Index: len(out), Scenario: sc, Unit: unit, Kind: s.kind,
			Window: timeline.Window{From: at(s.from), To: at(s.to)}, StartTarget: s.start, EndTarget: s.end, Inferred: true})
	}
	from := fmt.Sprintf("the achieved %s (%s per push)", rateName, rateQuery)
	if unit == StageUnitVUs {
		from = "k6_vus"
	}
	u := TargetUnit(unit)
	n := note(NoteInfo, "load", "", "no tidemark_scenario_target series for this testid: the stages were inferred from %s at push resolution (%s), "+
		"a step being a change of at least max(%s of the lower level, %s %s) held for %d pushes or more (%s); "+
		"their targets are the levels achieved, so achieved-vs-target is not judged; give the stages to judge them",
		from, res, formatPercent(minStepRatio), FormatTarget(minStepAbs), u, minHoldPushes, why)
	return out, []Note{n}
}

// rateSamples is a counter set's rate per push interval in the run: the increases
// (counterDeltas from span's start) binned on a grid of res aligned on the first push,
// each bin's sum divided by the time since the previous bin, at the middle of that
// time. An interval shorter than half a push (the final push, stamped at the run's
// end) is left out: its few requests would read as a wild rate.
func rateSamples(set timeline.Set, span, run timeline.Window, res time.Duration) []xy {
	ds, _ := counterDeltas(set, span.From, res)
	var in []timeline.Point
	for _, p := range ds {
		if deltaIn(p.T, run) {
			in = append(in, p)
		}
	}
	if len(in) == 0 {
		return nil
	}
	rs := res.Seconds()
	t0 := in[0].T.Sub(run.From).Seconds()
	bins := map[int]float64{}
	var keys []int
	for _, p := range in {
		k := int(math.Round((p.T.Sub(run.From).Seconds() - t0) / rs))
		if _, ok := bins[k]; !ok {
			keys = append(keys, k)
		}
		bins[k] += p.V
	}
	slices.Sort(keys)
	end := run.Duration().Seconds()
	out := make([]xy, 0, len(keys))
	// The first bin is one push long: its push carried the increase since the one
	// before it (or since the run's start).
	prev := t0 - rs
	for _, k := range keys {
		hi := min(t0+float64(k)*rs, end)
		lo := max(prev, 0)
		prev = hi
		if hi-lo < rs/2 {
			continue
		}
		out = append(out, xy{x: (lo + hi) / 2, y: bins[k] / (hi - lo)})
	}
	return out
}

// vuSamples is k6_vus in the run (summed over instances), without the final push at
// the run's end, which carries the VUs after the run.
func vuSamples(set timeline.Set, run timeline.Window, res time.Duration) []xy {
	if len(set) == 0 {
		return nil
	}
	ps, _ := stagePoints(set.Sum(2*res), run)
	out := make([]xy, 0, len(ps))
	for _, p := range ps {
		out = append(out, xy{x: p.T.Sub(run.From).Seconds(), y: p.V})
	}
	return out
}

// scheduleJitter is the median |second difference| of the samples: 0 or 1 for whole
// VUs on holds and linear ramps.
func scheduleJitter(ps []xy) float64 {
	if len(ps) < 3 {
		return 0
	}
	d2 := make([]float64, 0, len(ps)-2)
	for i := 2; i < len(ps); i++ {
		d2 = append(d2, math.Abs(ps[i].y-2*ps[i-1].y+ps[i-2].y))
	}
	return Median(d2)
}

// followPushes is how far, in pushes, a step of the rate may be from a step of the VUs
// and still be the same: a closed loop's rate lags its VUs by an iteration, and under
// noise as large as a step the rate's step is placed only to within a few pushes.
const followPushes = 4

// follows reports whether every ramp of the rate overlaps a ramp of the VUs, or the
// run's first push (where the VUs come up), within followPushes.
func follows(rate, vus []step, res float64) bool {
	slack := followPushes * res
	for _, r := range rate {
		if r.kind == timeline.Hold || r.from <= slack {
			continue
		}
		if !slices.ContainsFunc(vus, func(v step) bool {
			return v.kind != timeline.Hold && r.from <= v.to+slack && v.from-slack <= r.to
		}) {
			return false
		}
	}
	return true
}

// piece is one least-squares line of the segmentation over points [i, j).
type piece struct {
	i, j          int
	slope, xm, ym float64
	xFirst, xLast float64
	level         float64 // median of the points
	trend         float64 // the points' least-squares slope, even when the piece is a level
	sse           float64 // weighted squared error around the piece
	hold          bool
	firstP, lastP int // for holds: the first and last pieces merged into it
}

func (p piece) at(x float64) float64 { return p.ym + p.slope*(x-p.xm) }

// detectSteps cuts samples into holds and ramps. end is the run's length, res the push
// interval (both in seconds), quantum the series' smallest change (one VU, one request
// per push), a floor for its noise.
//
//  1. Segmentation: the least-squares fit of lines to runs of samples, with a penalty
//     per line (penaltyFactor·σ²·ln n, σ the noise measured from the pushes' changes),
//     solved exactly by dynamic programming (PELT pruning).
//  2. Holds: lines of at least minHoldPushes samples that change by less than the
//     minimum step over their length. Neighbouring holds whose levels differ by less
//     than the minimum step are one hold, when what lies between them is shorter than
//     minHoldPushes or stays within the minimum step of their level.
//  3. Transitions: between two holds, and before the first and after the last, the
//     samples form ramps: one per monotone run (a reversal of at least the minimum step
//     starts another), each a least-squares line refitted on the samples inside it; a
//     ramp begins and ends where its line meets the neighbouring holds' levels (or
//     another ramp's line), within a push of the samples around it. A transition of one
//     sample is a ramp of one push through it; of none, a ramp over the gap.
//  4. A ramp that changes by less than the minimum step joins the holds around it.
func detectSteps(ps []xy, res, end, quantum float64) []step {
	n := len(ps)
	if n == 0 {
		return nil
	}
	ys := make([]float64, n)
	for i, p := range ps {
		ys[i] = p.y
	}
	if n < minHoldPushes {
		lv := Median(ys)
		return []step{{kind: timeline.Hold, from: 0, to: end, start: lv, end: lv}}
	}
	ps = slices.Clone(ps)
	weigh(ps, quantum)
	beta := penaltyFactor * math.Log(float64(n))
	pieces := segment(ps, res, beta)
	beta *= 3 // a line's penalty, for the checks of stages that are no hold
	var holds []piece
	for k, p := range pieces {
		if p.j-p.i >= minHoldPushes && math.Abs(p.trend*(p.xLast-p.xFirst)) < minStep(p.level, p.level) {
			p.hold, p.firstP, p.lastP = true, k, k
			holds = append(holds, p)
		}
	}
	holds = mergeHolds(holds, pieces, ps, beta)

	var steps []step
	addTransition := func(pa, pb int, left, right *piece) {
		steps = append(steps, transition(ps, pieces[pa:pb], left, right, beta, res, end)...)
	}
	if len(holds) == 0 {
		addTransition(0, len(pieces), nil, nil)
		return tidy(steps, ps, beta)
	}
	addTransition(0, holds[0].firstP, nil, &holds[0])
	for k := range holds {
		h := holds[k]
		steps = append(steps, step{kind: timeline.Hold, start: h.level, end: h.level, from: h.xFirst, to: h.xLast})
		if k+1 < len(holds) {
			addTransition(h.lastP+1, holds[k+1].firstP, &holds[k], &holds[k+1])
		}
	}
	last := holds[len(holds)-1]
	addTransition(last.lastP+1, len(pieces), &last, nil)
	// Holds reach to the ramps around them, or to the run's ends.
	for i := range steps {
		if steps[i].kind != timeline.Hold {
			continue
		}
		steps[i].from, steps[i].to = 0, end
		if i > 0 {
			steps[i].from = steps[i-1].to
		}
		if i+1 < len(steps) {
			steps[i].to = steps[i+1].from
		}
	}
	return tidy(steps, ps, beta)
}

// mergeHolds joins neighbouring holds that are one level:
//   - levels that differ by less than the minimum step, unless what lies between them
//     is an excursion: at least minHoldPushes samples that leave the level by the
//     minimum step and that the pieces between fit better than the level by
//     significance × beta;
//   - levels that differ by more, when the difference is within the noise: the
//     holds' samples fit their own levels better than one by less than significance ×
//     beta (a few noisy pushes at the run's start, or a short burst, are no stage).
//
// The merged hold's level is the median of its samples.
func mergeHolds(holds, pieces []piece, ps []xy, beta float64) []piece {
	one := func(a, b piece) bool {
		own := sse(ps[a.i:a.j], func(float64) float64 { return a.level }) + sse(ps[b.i:b.j], func(float64) float64 { return b.level })
		l := Median(append(ysOf(ps[a.i:a.j]), ysOf(ps[b.i:b.j])...))
		pooled := sse(ps[a.i:a.j], func(float64) float64 { return l }) + sse(ps[b.i:b.j], func(float64) float64 { return l })
		if math.Abs(a.level-b.level) >= minStep(a.level, b.level) {
			return pooled-own < significance*beta
		}
		if b.i-a.j < minHoldPushes {
			return true
		}
		mid := (a.level + b.level) / 2
		between := pieces[a.lastP+1 : b.firstP]
		leaves := slices.ContainsFunc(between, func(p piece) bool {
			return math.Abs(p.at(p.xFirst)-mid) >= minStep(mid, mid) || math.Abs(p.at(p.xLast)-mid) >= minStep(mid, mid)
		})
		var fits float64
		for _, p := range between {
			fits += p.sse
		}
		flat := sse(ps[a.j:b.i], func(float64) float64 { return mid })
		return !leaves || flat-fits < significance*beta
	}
	for merged := true; merged; {
		merged = false
		for k := 0; k+1 < len(holds); k++ {
			a, b := holds[k], holds[k+1]
			if !one(a, b) {
				continue
			}
			m := a
			m.j, m.lastP, m.xLast = b.j, b.lastP, b.xLast
			m.level = medianY(ps[m.i:m.j])
			m.slope, m.xm, m.ym = 0, (m.xFirst+m.xLast)/2, m.level
			m.sse = sse(ps[m.i:m.j], func(float64) float64 { return m.level })
			holds = slices.Replace(holds, k, k+2, m)
			merged = true
			break
		}
	}
	return holds
}

// transitionMargin is how many samples of each neighbouring hold (at most half of
// it) the fit of a transition sees: a ramp's corner may sit a push or two inside what
// the segmentation gave the hold.
const transitionMargin = 6

// transition turns the pieces between two holds (left and right; nil at the run's
// start or end) into ramps: one per monotone run of the pieces (a reversal of at least
// the minimum step starts another), fitted jointly as one continuous line through
// knots, the holds' levels fixed: the knots' times by a search (a push, then a tenth),
// the free values (a reversal's, the run's ends') by least squares. A reversal, or a
// ramp at the run's start or end, that lowers the squared error by less than beta (the
// segmentation's penalty per piece) is noise: it is dropped. A single ramp between two
// holds is at least a push long: a jump between two pushes is known to within one.
func transition(ps []xy, pieces []piece, left, right *piece, beta, res, end float64) []step {
	if len(pieces) == 0 && (left == nil || right == nil) {
		return nil
	}
	// The samples the fit sees: the transition's, and a margin of each hold's.
	lo, hi := 0, len(ps)
	if left != nil {
		lo = left.j - min(transitionMargin, (left.j-left.i)/2)
	}
	if right != nil {
		hi = right.i + min(transitionMargin, (right.j-right.i)/2)
	}
	win := ps[lo:hi]
	// Vertices: the anchors and each piece's fitted ends.
	var vs []knot
	if left != nil {
		vs = append(vs, knot{x: ps[left.j-1].x, v: left.level, fixed: true})
	} else {
		vs = append(vs, knot{x: 0, v: pieces[0].at(0)})
	}
	for _, p := range pieces {
		vs = append(vs, knot{x: p.xFirst, v: p.at(p.xFirst)})
		if p.j-p.i > 1 {
			vs = append(vs, knot{x: p.xLast, v: p.at(p.xLast)})
		}
	}
	if right != nil {
		vs = append(vs, knot{x: ps[right.i].x, v: right.level, fixed: true})
	} else {
		vs = append(vs, knot{x: end, v: pieces[len(pieces)-1].at(end)})
	}
	// Knots: the ends and the reversals (a zigzag).
	turn := minStep
	ks := []knot{vs[0]}
	ext, dir := 0, 0
	for i := 1; i < len(vs); i++ {
		switch d := vs[i].v - vs[ext].v; {
		case dir == 0:
			if math.Abs(d) >= turn(vs[i].v, vs[ext].v) {
				dir, ext = sign(d), i
			}
		case float64(dir)*d >= 0:
			ext = i
		case math.Abs(d) >= turn(vs[i].v, vs[ext].v):
			if ext > 0 {
				ks = append(ks, vs[ext])
			}
			dir, ext = -dir, i
		}
	}
	ks = append(ks, vs[len(vs)-1])
	// Where each knot may go: the run's ends stay, the others within the samples seen.
	for k := range ks {
		ks[k].lo, ks[k].hi = win[0].x-res/2, win[len(win)-1].x+res/2
	}
	if left == nil {
		ks[0].lo, ks[0].hi = 0, 0
	}
	if right == nil {
		ks[len(ks)-1].lo, ks[len(ks)-1].hi = end, end
	}
	ks = fitKnots(win, ks, res)
	// A reversal, and a ramp at the run's start or end, must pay for itself as a piece
	// of the segmentation does: remove the reversal that costs least while it lowers
	// the squared error by less than beta.
	for len(ks) > 2 {
		best, at := math.Inf(1), -1
		e := solveKnots(win, ks)
		for k := 1; k+1 < len(ks); k++ {
			c := fitKnots(win, slices.Delete(slices.Clone(ks), k, k+1), res)
			if d := solveKnots(win, c) - e; d < best {
				best, at = d, k
			}
		}
		if best >= significance*beta {
			break
		}
		ks = fitKnots(win, slices.Delete(ks, at, at+1), res)
	}
	if left == nil || right == nil {
		level := 0.0
		switch {
		case left != nil:
			level = left.level
		case right != nil:
			level = right.level
		}
		flat := sse(win, func(float64) float64 { return level })
		if (left != nil || right != nil) && flat-solveKnots(win, ks) < significance*beta {
			return nil // the hold reaches the run's end
		}
	}
	if len(ks) == 2 && left != nil && right != nil {
		// A ramp between two holds is a jump (a ramp of one push) unless its length
		// pays for itself as one more parameter (beta/3): with a push or two on the
		// ramp, a longer ramp only fits the holds' noise better.
		e := solveKnots(win, ks)
		jump := slices.Clone(ks)
		c := (ks[0].x + ks[1].x) / 2
		bestE, bestC := math.Inf(1), c
		for x := win[0].x; x <= win[len(win)-1].x; x += res / 10 {
			jump[0].x, jump[1].x = x-res/2, x+res/2
			if je := solveKnots(win, jump); je < bestE-1e-9 {
				bestE, bestC = je, x
			}
		}
		if bestE-e <= beta/3 || ks[1].x-ks[0].x < res {
			ks[0].x, ks[1].x = bestC-res/2, bestC+res/2
		}
	}
	out := make([]step, 0, len(ks)-1)
	for r := 0; r+1 < len(ks); r++ {
		a, b := ks[r], ks[r+1]
		a.v, b.v = max(a.v, 0), max(b.v, 0)
		out = append(out, step{kind: rampKind(a.v, b.v), from: a.x, to: b.x, start: a.v, end: b.v})
	}
	return out
}

// knot is a corner of a continuous piecewise-linear fit: at x, value v (fixed, or
// fitted by least squares); x is searched in [lo, hi].
type knot struct {
	x, v   float64
	fixed  bool
	lo, hi float64
}

// knotsAt evaluates the piecewise-linear function through the knots at x, as weights:
// the knot below x, its weight, and the knot above (constant beyond the ends).
func knotsAt(ks []knot, x float64) (k int, w float64) {
	if x <= ks[0].x {
		return 0, 1
	}
	for k = 0; k+1 < len(ks); k++ {
		if x <= ks[k+1].x {
			if d := ks[k+1].x - ks[k].x; d > 0 {
				return k, (ks[k+1].x - x) / d
			}
			return k, 0
		}
	}
	return len(ks) - 1, 1
}

// solveKnots sets the free values by least squares (a tiny pull towards their current
// values keeps a value no sample sees where it was) and returns the squared error.
func solveKnots(ps []xy, ks []knot) float64 {
	var free []int
	idx := make([]int, len(ks))
	for k := range ks {
		idx[k] = -1
		if !ks[k].fixed {
			idx[k] = len(free)
			free = append(free, k)
		}
	}
	if n := len(free); n > 0 {
		a := make([][]float64, n)
		for i := range a {
			a[i] = make([]float64, n+1)
			a[i][i] = 1e-9 * (1 + sumW(ps))
			a[i][n] = a[i][i] * ks[free[i]].v
		}
		for _, p := range ps {
			k, w := knotsAt(ks, p.x)
			terms := [2]struct {
				k int
				w float64
			}{{k, w}, {min(k+1, len(ks)-1), 1 - w}}
			rest := p.y
			for _, t := range terms {
				if idx[t.k] < 0 {
					rest -= t.w * ks[t.k].v
				}
			}
			for _, t := range terms {
				if i := idx[t.k]; i >= 0 && t.w != 0 {
					for _, u := range terms {
						if j := idx[u.k]; j >= 0 {
							a[i][j] += p.w * t.w * u.w
						}
					}
					a[i][n] += p.w * t.w * rest
				}
			}
		}
		if v, ok := gauss(a); ok {
			for i, k := range free {
				ks[k].v = v[i]
			}
		}
	}
	return sse(ps, func(x float64) float64 {
		k, w := knotsAt(ks, x)
		return w*ks[k].v + (1-w)*ks[min(k+1, len(ks)-1)].v
	})
}

func sumW(ps []xy) float64 {
	var s float64
	for _, p := range ps {
		s += p.w
	}
	return s
}

// gauss solves the augmented system a (n rows of n+1) by elimination with partial
// pivoting; ok is false when it is singular.
func gauss(a [][]float64) ([]float64, bool) {
	n := len(a)
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k <= n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

// fitKnots moves each knot, in turn, to where the squared error is least, searched
// every push and then every tenth of a push around the best (the middle of a tie:
// between two samples every place fits as well), keeping the knots in order.
func fitKnots(ps []xy, ks []knot, res float64) []knot {
	ks = slices.Clone(ks)
	solveKnots(ps, ks)
	for range 3 {
		for k := range ks {
			lo, hi := ks[k].lo, ks[k].hi
			if k > 0 {
				lo = max(lo, ks[k-1].x)
			}
			if k+1 < len(ks) {
				hi = min(hi, ks[k+1].x)
			}
			if hi <= lo {
				ks[k].x = min(max(ks[k].x, lo), hi)
				continue
			}
			try := func(x float64) float64 {
				c := slices.Clone(ks)
				c[k].x = x
				return solveKnots(ps, c)
			}
			search := func(lo, hi, step float64) float64 {
				best, first, last := try(lo), lo, lo
				for x := lo + step; x <= hi+step/1e3; x += step {
					x := min(x, hi)
					switch e, eps := try(x), 1e-9*max(best, 1); {
					case e < best-eps:
						best, first, last = e, x, x
					case e <= best+eps && last >= x-step*1.001:
						last = x // a tie next to the best
					}
				}
				return (first + last) / 2
			}
			x := search(lo, hi, res)
			x = search(max(lo, x-res), min(hi, x+res), res/10)
			ks[k].x = x
			solveKnots(ps, ks)
		}
	}
	return ks
}

// tidy makes ramps of less than the minimum step part of the holds beside them (or
// holds), a hold that does not pay for itself between two ramps the same way part of
// one ramp, joins neighbouring holds
// within the minimum step, sets each hold's level to the median of its samples, ties
// the ramps' ends to the holds' levels, and drops stages of no length.
func tidy(steps []step, ps []xy, beta float64) []step {
	levelOf := func(s step) float64 {
		var in []xy
		for _, p := range ps {
			if p.x >= s.from && p.x <= s.to {
				in = append(in, p)
			}
		}
		if len(in) == 0 {
			return (s.start + s.end) / 2
		}
		return medianY(in)
	}
	for changed := true; changed; {
		changed = false
		for i, s := range steps {
			if s.kind == timeline.Hold || math.Abs(s.end-s.start) >= minStep(s.start, s.end) {
				continue
			}
			// A ramp of less than the minimum step is part of the hold beside it.
			switch {
			case i > 0 && steps[i-1].kind == timeline.Hold:
				steps[i-1].to = s.to
				steps = slices.Delete(steps, i, i+1)
			case i+1 < len(steps) && steps[i+1].kind == timeline.Hold:
				steps[i+1].from = s.from
				steps = slices.Delete(steps, i, i+1)
			default:
				lv := levelOf(s)
				steps[i] = step{kind: timeline.Hold, from: s.from, to: s.to, start: lv, end: lv}
			}
			changed = true
			break
		}
		// A hold between two ramps the same way is part of one ramp unless it pays for
		// itself: it must fit the samples better than the straight ramp through by
		// significance × beta (noise on a long ramp makes such a stair).
		for i := 1; i+1 < len(steps); i++ {
			a, h, b := steps[i-1], steps[i], steps[i+1]
			if h.kind != timeline.Hold || a.kind == timeline.Hold || a.kind != b.kind {
				continue
			}
			var in []xy
			for _, p := range ps {
				if p.x >= a.from && p.x <= b.to {
					in = append(in, p)
				}
			}
			chain := []knot{{x: a.from, v: a.start}, {x: h.from, v: h.start}, {x: h.to, v: h.end}, {x: b.to, v: b.end}}
			straight := []knot{{x: a.from, v: a.start}, {x: b.to, v: b.end}}
			for k := range chain {
				chain[k].fixed = true
			}
			straight[0].fixed, straight[1].fixed = true, true
			if solveKnots(in, straight)-solveKnots(in, chain) < significance*beta {
				steps = slices.Replace(steps, i-1, i+2, step{kind: a.kind, from: a.from, to: b.to, start: a.start, end: b.end})
				changed = true
				break
			}
		}
		for i := 0; i+1 < len(steps); i++ {
			a, b := steps[i], steps[i+1]
			if a.kind == timeline.Hold && b.kind == timeline.Hold && math.Abs(a.end-b.start) < minStep(a.end, b.start) {
				m := step{kind: timeline.Hold, from: a.from, to: b.to}
				m.start = levelOf(m)
				m.end = m.start
				steps = slices.Replace(steps, i, i+2, m)
				changed = true
				break
			}
		}
	}
	steps = slices.DeleteFunc(steps, func(s step) bool { return s.to <= s.from })
	for i := range steps {
		if steps[i].kind == timeline.Hold {
			steps[i].start = levelOf(steps[i])
			steps[i].end = steps[i].start
		}
	}
	for i := range steps {
		if steps[i].kind == timeline.Hold {
			continue
		}
		if i > 0 && steps[i-1].kind == timeline.Hold {
			steps[i].start = steps[i-1].end
		}
		if i+1 < len(steps) && steps[i+1].kind == timeline.Hold {
			steps[i].end = steps[i+1].start
		}
		steps[i].kind = rampKind(steps[i].start, steps[i].end)
	}
	return steps
}

func rampKind(from, to float64) timeline.StageKind {
	switch {
	case to > from:
		return timeline.RampUp
	case to < from:
		return timeline.RampDown
	}
	return timeline.Hold
}

func sign(v float64) int {
	if v < 0 {
		return -1
	}
	return 1
}

// noiseWindow is how many pushes on each side of a sample the noise is measured over.
const noiseWindow = 12

// weigh sets each sample's weight to 1/σ², σ its noise, from a model of noise that
// grows with the level as Poisson-like counts' does: σ = s·√level, the level the
// median within noiseWindow pushes, s the median over the run of the measured σ/√level
// (the measured σ: the median absolute deviation of the push-to-push changes within
// noiseWindow pushes, robust to a step or a ramp's slope, scaled to a normal σ and by
// 1/√2 as a change holds two pushes' noise). One s for the run keeps a stretch of quiet
// or noisy pushes from being taken for a quiet or noisy level. σ is at least half the
// quantum (exact series, such as whole VUs, have s = 0).
func weigh(ps []xy, quantum float64) {
	d := make([]float64, len(ps))
	for i := 1; i < len(ps); i++ {
		d[i] = ps[i].y - ps[i-1].y
	}
	level := make([]float64, len(ps))
	var ratios []float64
	for i := range ps {
		lo, hi := max(1, i-noiseWindow), min(len(ps), i+noiseWindow+1)
		level[i] = math.Max(medianY(ps[max(0, i-noiseWindow):hi]), 0)
		if hi <= lo || level[i] <= 0 {
			continue
		}
		w := slices.Clone(d[lo:hi])
		m := Median(w)
		for k := range w {
			w[k] = math.Abs(w[k] - m)
		}
		ratios = append(ratios, 1.4826*Median(w)/math.Sqrt2/math.Sqrt(level[i]))
	}
	s := Median(ratios)
	for i := range ps {
		sigma := max(s*math.Sqrt(level[i]), quantum/2)
		ps[i].w = 1 / (sigma * sigma)
	}
}

// segment is the weighted least-squares segmentation of the samples into levels and
// lines, with a penalty of beta per parameter (BIC: a level has 2 with its change
// point, a line 3), solved exactly by dynamic programming with PELT's pruning (the
// squared error never grows by splitting a piece, so a start whose cost exceeds the
// best by more than a piece's penalty never wins again). x is measured in pushes for
// the sums' precision.
func segment(ps []xy, res, beta float64) []piece {
	n := len(ps)
	var sw, sx, sy, sxx, sxy, syy = make([]float64, n+1), make([]float64, n+1), make([]float64, n+1), make([]float64, n+1), make([]float64, n+1), make([]float64, n+1)
	x0 := ps[0].x
	for i, p := range ps {
		u, w := (p.x-x0)/res, p.w
		sw[i+1], sx[i+1], sy[i+1] = sw[i]+w, sx[i]+w*u, sy[i]+w*p.y
		sxx[i+1], sxy[i+1], syy[i+1] = sxx[i]+w*u*u, sxy[i]+w*u*p.y, syy[i]+w*p.y*p.y
	}
	// cost is the cheaper fit of points [i, j): a level (2 parameters with its change
	// point) or a line (3); linear tells which.
	cost := func(i, j int) (c float64, linear bool) {
		k := sw[j] - sw[i]
		if k <= 0 {
			return 2 * beta, false
		}
		mx, my := (sx[j]-sx[i])/k, (sy[j]-sy[i])/k
		vxx := sxx[j] - sxx[i] - k*mx*mx
		vxy := sxy[j] - sxy[i] - k*mx*my
		vyy := max(syy[j]-syy[i]-k*my*my, 0)
		flat := vyy + 2*beta
		if j-i < 3 || vxx <= 0 {
			return flat, false
		}
		if line := max(vyy-vxy*vxy/vxx, 0) + 3*beta; line < flat {
			return line, true
		}
		return flat, false
	}
	f := make([]float64, n+1)
	last := make([]int, n+1)
	lin := make([]bool, n+1)
	cands := []int{0}
	for j := 1; j <= n; j++ {
		best, arg, bl := math.Inf(1), 0, false
		for _, i := range cands {
			c, l := cost(i, j)
			if c += f[i]; c < best {
				best, arg, bl = c, i, l
			}
		}
		f[j], last[j], lin[j] = best, arg, bl
		keep := cands[:0]
		for _, i := range cands {
			// A start whose cost already exceeds the best, less the cheapest piece's
			// penalty, never wins again (PELT).
			if c, _ := cost(i, j); f[i]+c-3*beta <= f[j] {
				keep = append(keep, i)
			}
		}
		cands = append(keep, j)
	}
	var bounds []int
	for j := n; j > 0; j = last[j] {
		bounds = append(bounds, j)
	}
	bounds = append(bounds, 0)
	slices.Reverse(bounds)
	out := make([]piece, 0, len(bounds)-1)
	for k := 0; k+1 < len(bounds); k++ {
		i, j := bounds[k], bounds[k+1]
		xm, ym, trend, _ := fit(ps[i:j])
		slope := trend
		if !lin[j] {
			slope = 0
		}
		out = append(out, piece{i: i, j: j, xm: xm, ym: ym, slope: slope, trend: trend, xFirst: ps[i].x, xLast: ps[j-1].x, level: medianY(ps[i:j]), sse: sse(ps[i:j], func(x float64) float64 { return ym + slope*(x-xm) })})
	}
	return out
}

// sse is the weighted squared error of the samples around f.
func sse(ps []xy, f func(float64) float64) float64 {
	var e float64
	for _, p := range ps {
		e += p.w * (p.y - f(p.x)) * (p.y - f(p.x))
	}
	return e
}

// fit is the weighted least-squares line through the samples: their means and slope;
// ok is false without two distinct x (the slope is then 0).
func fit(ps []xy) (xm, ym, slope float64, ok bool) {
	var sw float64
	for _, p := range ps {
		sw += p.w
		xm += p.w * p.x
		ym += p.w * p.y
	}
	if sw <= 0 {
		return 0, 0, 0, false
	}
	xm, ym = xm/sw, ym/sw
	var vxx, vxy float64
	for _, p := range ps {
		vxx += p.w * (p.x - xm) * (p.x - xm)
		vxy += p.w * (p.x - xm) * (p.y - ym)
	}
	if vxx == 0 {
		return xm, ym, 0, false
	}
	return xm, ym, vxy / vxx, true
}

// Median returns the median of vs (the mean of the middle two for an even count), or 0
// for none; vs is not reordered. The detectors and the regression detector read
// typical values and spreads (median absolute deviations) with it.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianY(ps []xy) float64 { return Median(ysOf(ps)) }

func ysOf(ps []xy) []float64 {
	ys := make([]float64, len(ps))
	for i, p := range ps {
		ys[i] = p.y
	}
	return ys
}

// runScenario names the scenario of stages that cover the whole run: the one scenario
// the k6 series name, their names joined with "+" when several, k6's "default" when
// none.
func runScenario(tl *timeline.Timeline) (string, []string) {
	var names []string
	browser := BrowserScenarios(tl)
	for _, q := range []string{QHTTPReqs, QIterations} {
		for _, s := range loadSeries(tl.Set(q), browser) {
			if sc := s.Label("scenario"); sc != "" && !slices.Contains(names, sc) {
				names = append(names, sc)
			}
		}
	}
	slices.SortFunc(names, cmp.Compare[string])
	if len(names) == 0 {
		return "default", []string{"default"}
	}
	return strings.Join(names, "+"), names
}
