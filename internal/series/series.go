package series

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/prometheus/model/histogram"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Prefix is prepended to the name of every k6 metric.
const Prefix = "k6_"

// OwnPrefix marks Tidemark's own run metadata metrics (tidemark_run_info,
// tidemark_scenario_target): a metric whose name starts with it keeps its name.
const OwnPrefix = "tidemark_"

// Names of Tidemark's run metadata metrics. They are gauges and are not k6 metrics:
// they start with OwnPrefix and keep their name.
const (
	// RunInfoMetric is written with every push of a run (value 1), labelled with the
	// run's tags and its test identity: its span is the run's window.
	RunInfoMetric = "tidemark_run_info"
	// ScenarioTargetMetric is each scenario's configured target, labelled scenario
	// and unit (iterations_per_second or vus).
	ScenarioTargetMetric = "tidemark_scenario_target"
	// ThresholdMetric is one series per threshold of the run (value 1), labelled
	// metric (the key as written), threshold (the expression), type and contains (the
	// metric's k6 type and value type), so that a later correlation judges each stage
	// by the thresholds the run was judged by.
	ThresholdMetric = "tidemark_threshold"
	// ThresholdResultMetric is what each threshold of the run measured at its latest
	// evaluation, in k6's units (milliseconds for time trends), labelled metric,
	// threshold and window (empty for a whole-run threshold): a windowed threshold's
	// latest window during the run, its worst window at the end.
	ThresholdResultMetric = "tidemark_threshold_result"
	// ThresholdResultPassMetric is 1 while the threshold's latest evaluation passes and 0
	// once it fails, with ThresholdResultMetric's labels; its last value is the
	// verdict (a windowed threshold fails the run if any window failed).
	ThresholdResultPassMetric = "tidemark_threshold_result_pass"
	// ThresholdWindowLabel is the window of a threshold result ("30s"), empty for a
	// whole-run threshold.
	ThresholdWindowLabel = "window"
	// SLORuleFiringMetric is one series per server-side rule of the run (--slo),
	// labelled alertname, severity and judge ("live" during tidemark run, "correlate"
	// when tidemark correlate --slo writes a past run's judgement back): 1 while an
	// alert of the rule fires, 0 otherwise, at each of the rule's evaluations.
	SLORuleFiringMetric = "tidemark_slo_rule_firing"
)

// Label names Tidemark adds to every series.
const (
	LabelTestID     = "testid"
	LabelInstanceID = "instance_id"
)

// Type is the Prometheus type of a series, as announced in remote-write 2.0 metadata
// and by the exporter.
type Type uint8

// Series types.
const (
	Gauge Type = iota
	Counter
	Histogram
)

// String returns the Prometheus name of the type.
func (t Type) String() string {
	switch t {
	case Counter:
		return "counter"
	case Histogram:
		return "histogram"
	default:
		return "gauge"
	}
}

// Label is one label pair of a series.
type Label struct {
	Name, Value string
}

// Series is one named Prometheus series and its current value.
type Series struct {
	// Name is the metric name (the __name__ label).
	Name string
	// Labels are the other labels, sorted by name. The slice is shared between
	// snapshots: callers must not modify it.
	Labels []Label
	// Ref identifies (Name, Labels) for the life of the Mapper that made the series.
	Ref uint64
	// Type, Unit and Help are the series' metadata.
	Type Type
	Unit string
	Help string
	// Value is the sample value of counters and gauges.
	Value float64
	// Histogram is set, instead of Value, for native histograms (Type Histogram).
	Histogram *histogram.Histogram
}

// AppendLabels appends every label of s, __name__ included, sorted by name, to dst.
func (s *Series) AppendLabels(dst []Label) []Label {
	placed := false
	for _, l := range s.Labels {
		if !placed && l.Name > "__name__" {
			dst = append(dst, Label{"__name__", s.Name})
			placed = true
		}
		dst = append(dst, l)
	}
	if !placed {
		dst = append(dst, Label{"__name__", s.Name})
	}
	return dst
}

// Distribution is the state of one trend series as of a snapshot. Time values are in
// seconds, data values in bytes.
type Distribution interface {
	// Count is the exact number of observations.
	Count() uint64
	// Sum, Min and Max are exact.
	Sum() float64
	Min() float64
	Max() float64
	// Quantile returns the q-quantile (0 ≤ q ≤ 1) by k6's definition: linear
	// interpolation between the order statistics around q·(n−1); 0 when empty.
	Quantile(q float64) float64
	// Native returns the cumulative native histogram (schema 3) of the
	// observations, or nil if none is kept. The caller must not modify it.
	Native() *histogram.Histogram
}

// Input is the aggregated state of one (metric, tag set) as of a snapshot.
type Input struct {
	Metric *metrics.Metric
	Tags   *metrics.TagSet
	// Value is a counter's cumulative sum or a gauge's last value.
	Value float64
	// Passes and Total are a rate's non-zero and total sample counts.
	Passes, Total uint64
	// Trend is a trend's distribution.
	Trend Distribution
}

// Snapshotter returns the current state of every series of a run. It is implemented
// by the aggregate store (through an adapter); the caller must not retain or modify
// the returned slice after the next call.
type Snapshotter interface {
	Snapshot() []Input
}

// SnapshotFunc adapts a function to the Snapshotter interface.
type SnapshotFunc func() []Input

// Snapshot calls f().
func (f SnapshotFunc) Snapshot() []Input { return f() }

// Stat is one trend statistic in k6 syntax: count, sum, min, max, avg, med or p(x).
type Stat struct {
	// Spec is the k6 spelling, e.g. "p(99.9)".
	Spec string
	// Suffix is the name suffix, e.g. "p999".
	Suffix string
	kind   statKind
	q      float64 // quantile in [0, 1] for p(x)
}

type statKind uint8

const (
	statCount statKind = iota
	statSum
	statMin
	statMax
	statAvg
	statMed
	statPercentile
)

// DefaultTrendStats fill every panel of Grafana dashboard 19665 ("k6 Prometheus"):
// its latency panels read avg/min/med/max/p90/p95/p99 and the URL table min/max/p95/p99.
// k6 sends only p(99) by default, which leaves most of the dashboard empty.
var DefaultTrendStats = []string{"p(99)", "p(95)", "p(90)", "avg", "min", "max", "med"}

// percentileRE is the plain decimal form a percentile must have, so the name suffix is
// made of digits only (no NaN, exponents, signs or hex).
var percentileRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// ParseStat parses one k6 trend stat.
func ParseStat(spec string) (Stat, error) {
	s := strings.TrimSpace(spec)
	switch s {
	case "count":
		return Stat{Spec: s, Suffix: s, kind: statCount}, nil
	case "sum":
		return Stat{Spec: s, Suffix: s, kind: statSum}, nil
	case "min":
		return Stat{Spec: s, Suffix: s, kind: statMin}, nil
	case "max":
		return Stat{Spec: s, Suffix: s, kind: statMax}, nil
	case "avg":
		return Stat{Spec: s, Suffix: s, kind: statAvg}, nil
	case "med":
		return Stat{Spec: s, Suffix: s, kind: statMed}, nil
	}
	if strings.HasPrefix(s, "p(") && strings.HasSuffix(s, ")") {
		inner := strings.TrimSpace(s[2 : len(s)-1])
		p, err := strconv.ParseFloat(inner, 64)
		if err != nil || !percentileRE.MatchString(inner) || p < 0 || p > 100 {
			return Stat{}, fmt.Errorf("parse trend stat %q: percentile must be a number from 0 to 100", spec)
		}
		return Stat{Spec: s, Suffix: "p" + strings.ReplaceAll(inner, ".", ""), kind: statPercentile, q: p / 100}, nil
	}
	return Stat{}, fmt.Errorf("parse trend stat %q: want count, sum, min, max, avg, med or p(x)", spec)
}

// ParseStats parses k6 trend stats, rejecting duplicates.
func ParseStats(specs []string) ([]Stat, error) {
	out := make([]Stat, 0, len(specs))
	seen := map[string]bool{}
	var errs []error
	for _, spec := range specs {
		if strings.TrimSpace(spec) == "" {
			continue
		}
		st, err := ParseStat(spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[st.Suffix] {
			errs = append(errs, fmt.Errorf("parse trend stat %q: duplicate", spec))
			continue
		}
		seen[st.Suffix] = true
		out = append(out, st)
	}
	return out, errors.Join(errs...)
}

// SplitStats splits a k6 comma-separated trend stat list ("p(99),p(95),avg").
func SplitStats(list string) []string {
	var out []string
	for s := range strings.SplitSeq(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (st Stat) value(d Distribution) float64 {
	switch st.kind {
	case statCount:
		return float64(d.Count())
	case statSum:
		return d.Sum()
	case statMin:
		return d.Min()
	case statMax:
		return d.Max()
	case statAvg:
		if n := d.Count(); n > 0 {
			return d.Sum() / float64(n)
		}
		return 0
	case statMed:
		return d.Quantile(0.5)
	default:
		return d.Quantile(st.q)
	}
}

// sortLabels sorts by name.
func sortLabels(ls []Label) {
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
}
