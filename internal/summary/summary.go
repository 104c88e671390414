// Package summary writes the end of a test run: k6's compact text summary followed by
// Tidemark's per-stage table with each stage's verdict, the `--summary-export` JSON in
// k6's legacy shape, and the `--summary-file` JSON in the shape of k6's handleSummary
// data (reference/k6.md §3.2, §3.3). It reads a final aggregate.Snapshot; it never
// touches the live Store.
package summary

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/threshold"
)

// DefaultTrendStats returns k6's default summaryTrendStats.
func DefaultTrendStats() []string {
	return []string{"avg", "min", "med", "max", "p(90)", "p(95)"}
}

// Threshold is the final result of one threshold expression.
type Threshold struct {
	// Expr is the expression as written, e.g. "p(95)<500".
	Expr string
	// OK is false when the threshold failed.
	OK bool
	// Value is what the expression observed, in k6's units (milliseconds for time
	// metrics), as internal/threshold reports it. As k6 does, the summary prints the
	// value from the snapshot; Value is the fallback for an aggregation it cannot
	// compute.
	Value float64
	// Window is a windowed threshold's window (Tidemark's; 0 for k6's whole-run
	// threshold), and Record what its windows saw: OK is false when any window
	// failed, and Value is then the worst window's.
	Window time.Duration
	Record *threshold.WindowRecord
}

// Name is the threshold's key in the summary's JSON maps: the expression as written
// (k6's key) and, for a windowed threshold, " over " and its window.
func (t Threshold) Name() string {
	if t.Window <= 0 {
		return t.Expr // as k6 keys it, untrimmed
	}
	return threshold.ExprName(t.Expr, t.Window)
}

// Stage is one stage window of one scenario, as the engine ran it. From and To are
// cumulative snapshots of the run's Store taken at Start and End; From is nil for a
// window that starts with the run.
type Stage struct {
	Scenario string
	// Index is the stage's position in the scenario, from 0.
	Index      int
	Start, End time.Time
	// StartTarget and Target are the stage's target at its start and at its end (equal
	// for a hold): VUs when TimeUnit is 0, otherwise iterations per TimeUnit
	// (arrival-rate executors). The target moves linearly between them.
	StartTarget, Target float64
	TimeUnit            time.Duration
	From, To            *aggregate.Snapshot
	// VUs, when known, are the scenario's own active VUs at End: a VU stage's achieved
	// VUs. k6's vus metric (nil VUs) counts every scenario's: beside another scenario,
	// a browser scenario's 1 VU would read as the run's hundreds.
	VUs *float64
}

// Input is everything the summary shows.
type Input struct {
	// Test supplies summaryTrendStats and summaryTimeUnit; nil means k6's defaults.
	Test *scenario.Test
	// Snapshot is the final state of the run's Store.
	Snapshot *aggregate.Snapshot
	// Registry resolves the type of thresholded metrics that got no samples; optional.
	Registry *metrics.Registry
	// Start is when the run started; Duration is how long it ran (k6's
	// testRunDuration, the denominator of counter rates).
	Start    time.Time
	Duration time.Duration
	// Thresholds maps a metric key, "name" or "name{tag:value,...}", to its results in
	// the order they were defined.
	Thresholds map[string][]Threshold
	// ThresholdSet is the run's thresholds, evaluated again in every stage window for the
	// STAGES verdict; nil judges stages by dropped iterations and achieved-vs-target only.
	ThresholdSet *threshold.Set
	// Rules are the run's server-side rules (--slo), shown beside the thresholds.
	Rules []Rule
	// Stages are the per-stage windows, in the order to print them.
	Stages []Stage
	// StageResults are stages computed elsewhere, printed in the STAGES table after the
	// rows of Stages as they are given: `tidemark summarize` reads a run's stages over
	// several instances from Prometheus.
	StageResults []StageResult
	// StageNote, when set, replaces the line under the STAGES table that says what the
	// verdicts judged (for StageResults judged by another rule than ThresholdSet).
	StageNote string
	// Extra lines printed after the summary, e.g. "remote write: 48,210 samples in 61
	// requests, 2 retries, 0 dropped".
	Extra []string
	// Mode is k6's summary mode: "" or ModeCompact, or ModeFull, which adds the metrics
	// compact hides and a section per group and per scenario.
	Mode string
	// Color enables ANSI colours; set it only when stdout is a terminal.
	Color bool
	// StdoutTTY and StderrTTY are reported in the --summary-file state.
	StdoutTTY, StderrTTY bool
	// SetupData is what setup() returned, as JSON (nil when it returned nothing or the
	// script has none): `setup_data` of handleSummary's data and of --summary-export.
	SetupData json.RawMessage
	// Trends, when set, replaces the histograms of the snapshot's trends: by metric key
	// ("http_req_duration", "http_req_duration{expected_response:true}"), each stat by
	// its k6 name ("avg", "p(95)", "count") in base units (seconds for time trends). A
	// key present counts as observed; a stat missing from its map is printed as "n/a".
	// `tidemark summarize` sets it with the values it computed from Prometheus.
	Trends map[string]map[string]float64

	// noBreakdown leaves out Test's SummaryBreakdown rows: the full mode's group and
	// scenario sections show TOTAL RESULTS' metrics only.
	noBreakdown bool
}

// k6's summary modes (--summary-mode) that print a summary.
const (
	ModeCompact = "compact"
	ModeFull    = "full"
)

// errNoSnapshot is returned when Input.Snapshot is nil.
var errNoSnapshot = errors.New("summary needs a snapshot")

// entry is one metric or sub-metric of the report with its k6 values.
type entry struct {
	key    string // "http_req_duration" or "http_req_duration{expected_response:true}"
	metric *metrics.Metric
	vals   aggregate.Values
	has    bool // whether any sample reached it
	// observed is k6's notion: it has samples or thresholds, or a sub-metric of it has
	// thresholds. Observed metrics show in the summary.
	observed bool
	// values are k6's values: milliseconds for time metrics.
	values map[string]float64
}

// report is the data all three outputs are built from.
type report struct {
	in         Input
	trendStats []string
	timeUnit   string
	entries    []*entry          // every metric and sub-metric with samples or thresholds, sorted
	byKey      map[string]*entry // by key
	checks     *checkTree
	failed     map[string]bool // runFailed's, computed once
	breakdown  *breakdownInfo  // nil when the test asks for none
}

// expectedResponse is the sub-metric k6 creates by itself (reference/k6.md §3.2).
const expectedResponse = "http_req_duration{expected_response:true}"

func newReport(in Input) (*report, error) {
	if in.Snapshot == nil {
		return nil, errNoSnapshot
	}
	r := &report{in: in, trendStats: DefaultTrendStats(), byKey: map[string]*entry{}}
	if in.Test != nil {
		if len(in.Test.SummaryTrendStats) > 0 {
			r.trendStats = in.Test.SummaryTrendStats
		}
		r.timeUnit = in.Test.SummaryTimeUnit
	}
	for _, s := range r.trendStats {
		if _, err := (aggregate.Values{Type: metrics.Trend}).Stat(s); err != nil {
			return nil, fmt.Errorf("summary trend stats: %w", err)
		}
	}
	snap := in.Snapshot
	for _, m := range snap.Metrics() {
		if err := r.add(m.Name, m, nil); err != nil {
			return nil, err
		}
	}
	// k6 counts a metric as observed when it has samples or thresholds, or when one of
	// its sub-metrics has thresholds: those show in the summary even without samples.
	observed := map[string]bool{}
	for k := range in.Thresholds {
		observed[k] = true
		name, _, _ := strings.Cut(k, "{")
		observed[strings.TrimSpace(name)] = true
	}
	keys := slices.Collect(maps.Keys(observed))
	if !observed[expectedResponse] {
		keys = append(keys, expectedResponse)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := r.byKey[k]; ok {
			continue
		}
		name, tags, err := ParseKey(k)
		if err != nil {
			return nil, err
		}
		m := r.metricNamed(name)
		if m == nil && in.Registry != nil {
			m = in.Registry.Get(name)
		}
		if m == nil {
			m = guessMetric(name, r.thresholdsOf(name))
		}
		if m == nil {
			continue // The automatic expected_response sub-metric of a run without HTTP.
		}
		if err := r.add(k, m, tags); err != nil {
			return nil, err
		}
	}
	if err := r.addBreakdown(); err != nil {
		return nil, err
	}
	// Drop what k6 would not have observed (the automatic sub-metric without samples).
	r.entries = slices.DeleteFunc(r.entries, func(e *entry) bool {
		e.observed = e.has || observed[e.key]
		if !e.observed {
			delete(r.byKey, e.key)
		}
		return !e.observed
	})
	slices.SortStableFunc(r.entries, func(a, b *entry) int { return compareKeys(a.key, b.key) })
	r.checks = buildChecks(snap)
	return r, nil
}

// metricNamed returns the snapshot's metric called name, or nil.
func (r *report) metricNamed(name string) *metrics.Metric {
	if s, ok := r.in.Snapshot.Metric(name); ok {
		return s.Metric
	}
	return nil
}

// thresholdsOf returns the thresholds of a metric and of its sub-metrics.
func (r *report) thresholdsOf(name string) []Threshold {
	var out []Threshold
	for k, ths := range r.in.Thresholds {
		if parent, _, _ := strings.Cut(k, "{"); strings.TrimSpace(parent) == name {
			out = append(out, ths...)
		}
	}
	return out
}

// guessMetric types a thresholded metric that has no samples and is not in the
// registry, from the methods its expressions use.
func guessMetric(name string, ths []Threshold) *metrics.Metric {
	if len(ths) == 0 {
		return nil
	}
	t := metrics.Trend
	switch threshold.MethodOf(ths[0].Expr) {
	case "count":
		t = metrics.Counter
	case "rate":
		t = metrics.Rate
	case "value":
		t = metrics.Gauge
	}
	return &metrics.Metric{Name: name, Type: t}
}

func (r *report) add(key string, m *metrics.Metric, tags []metrics.Tag) error {
	name, _, _ := strings.Cut(key, "{")
	s, ok := r.in.Snapshot.Submetric(name, tags)
	vals := aggregate.Values{Type: m.Type}
	if ok {
		vals = s.Values
	}
	e := &entry{key: key, metric: m, vals: vals, has: ok && !vals.Empty() && !zeroDrops(m, vals)}
	if given, ok := r.in.Trends[key]; ok && m.Type == metrics.Trend {
		e.has, e.values = true, r.givenTrend(m, given)
		r.entries = append(r.entries, e)
		r.byKey[key] = e
		return nil
	}
	v, err := r.k6Values(m, vals)
	if err != nil {
		return fmt.Errorf("summarize %s: %w", key, err)
	}
	e.values = v
	r.entries = append(r.entries, e)
	r.byKey[key] = e
	return nil
}

// zeroDrops reports whether vals are dropped_iterations without a drop. The executors
// start the series at 0 so that dashboards read 0, not "no data"; k6 emits it only
// when an iteration is dropped, so its summary shows dropped_iterations only then
// (or when a threshold names it).
func zeroDrops(m *metrics.Metric, vals aggregate.Values) bool {
	return m.Name == "dropped_iterations" && m.Type == metrics.Counter && vals.Count == 0
}

// k6Values returns the values k6 reports for a sink, in k6's units: counter {count,
// rate}, gauge {value, min, max}, rate {rate, passes, fails}, trend one key per trend
// stat. Time values are milliseconds.
func (r *report) k6Values(m *metrics.Metric, v aggregate.Values) (map[string]float64, error) {
	scale := 1.0
	if m.Contains == metrics.Time {
		scale = 1000
	}
	switch m.Type {
	case metrics.Counter:
		rate := 0.0
		if r.in.Duration > 0 {
			rate = v.Count / r.in.Duration.Seconds()
		}
		return map[string]float64{"count": v.Count * scale, "rate": rate * scale}, nil
	case metrics.Gauge:
		return map[string]float64{"value": v.Value * scale, "min": v.Min * scale, "max": v.Max * scale}, nil
	case metrics.Rate:
		return map[string]float64{"rate": v.Rate(), "passes": float64(v.Passes), "fails": float64(v.Fails())}, nil
	}
	out := make(map[string]float64, len(r.trendStats))
	for _, st := range r.trendStats {
		x, err := r.trendStat(m, v, st)
		if err != nil {
			return nil, err
		}
		out[st] = x
	}
	return out, nil
}

// givenTrend returns Input.Trends' values of a trend in k6's units, NaN for a stat it
// does not have.
func (r *report) givenTrend(m *metrics.Metric, given map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(r.trendStats))
	for _, st := range r.trendStats {
		x, ok := given[st]
		if !ok {
			out[st] = math.NaN()
			continue
		}
		if m.Contains == metrics.Time && st != "count" {
			x *= 1000
		}
		out[st] = x
	}
	return out
}

// trendStat returns one trend stat in k6's units.
func (r *report) trendStat(m *metrics.Metric, v aggregate.Values, stat string) (float64, error) {
	x, err := v.Stat(stat)
	if err != nil {
		return 0, err
	}
	if m.Contains == metrics.Time && stat != "count" {
		x *= 1000
	}
	return x, nil
}

// ParseKey splits a threshold metric key "name{k:v,k2:v2}" into the metric name and its
// sub-metric tags, trimming spaces and quotes around keys and values as k6 does.
func ParseKey(key string) (string, []metrics.Tag, error) {
	name, rest, ok := strings.Cut(strings.TrimSpace(key), "{")
	name = strings.TrimSpace(name)
	if !ok {
		return name, nil, nil
	}
	inner, ok := strings.CutSuffix(strings.TrimSpace(rest), "}")
	if !ok {
		return "", nil, fmt.Errorf("parse sub-metric %q: missing closing brace", key)
	}
	var tags []metrics.Tag
	for pair := range strings.SplitSeq(inner, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, ":")
		if !ok {
			return "", nil, fmt.Errorf("parse sub-metric %q: tag %q is not key:value", key, strings.TrimSpace(pair))
		}
		tags = append(tags, metrics.Tag{Key: strings.Trim(k, " \"'"), Value: strings.Trim(v, " \"'")})
	}
	return name, tags, nil
}

// compareKeys orders metric keys by parent name, then sub-metric suffix, as k6 does
// with JavaScript's localeCompare.
func compareKeys(a, b string) int {
	pa, sa, _ := strings.Cut(a, "{")
	pb, sb, _ := strings.Cut(b, "{")
	if c := localeCompare(pa, pb); c != 0 {
		return c
	}
	if (a == pa) != (b == pb) {
		if a == pa {
			return -1
		}
		return 1
	}
	return localeCompare(sa, sb)
}

// localeCompare approximates the root-locale collation JavaScript's localeCompare uses
// for the characters of metric names and tags: punctuation before digits before
// letters, letters compared without case first, lowercase before uppercase on a tie.
func localeCompare(a, b string) int {
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r):
			return 2
		case unicode.IsDigit(r):
			return 1
		}
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	caseTie := 0
	for i := 0; i < len(ra) && i < len(rb); i++ {
		x, y := ra[i], rb[i]
		if c := cmp.Compare(class(x), class(y)); c != 0 {
			return c
		}
		if c := cmp.Compare(unicode.ToLower(x), unicode.ToLower(y)); c != 0 {
			return c
		}
		if caseTie == 0 && x != y {
			caseTie = -cmp.Compare(x, y) // 'a' (0x61) sorts before 'A' (0x41).
		}
	}
	if c := cmp.Compare(len(ra), len(rb)); c != 0 {
		return c
	}
	return caseTie
}
