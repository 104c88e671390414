package series

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Config decides which series a Mapper produces and how they are labelled.
type Config struct {
	// TrendStats are the k6 stats sent as gauges for every trend. Empty means none
	// (useful with NativeHistograms).
	TrendStats []string `yaml:"trend_stats"`
	// NativeHistograms adds a native histogram series for every trend.
	NativeHistograms bool `yaml:"native_histograms"`
	// Labels are static labels added to every series. A tag of the same name wins.
	Labels map[string]string `yaml:"labels"`
	// LabelRules rewrite or drop tags, in order, before they become labels. Use them
	// for high-cardinality tags such as url.
	LabelRules []LabelRule `yaml:"label_rules"`
	// LabelValueMaxLength caps the bytes of a label value (after the label rules); a
	// longer value is handled as LongLabelValues says. Zero means no cap.
	LabelValueMaxLength int `yaml:"label_value_max_length"`
	// LongLabelValues is what becomes of a series with a label value over
	// LabelValueMaxLength: "truncate" (the default) cuts the value and ends it with a
	// marker and a hash of the whole value ("...#1a2b3c4d"), so distinct values stay
	// distinct series; "drop" does not send the series.
	LongLabelValues string `yaml:"long_label_values"`
	// TestID and InstanceID, when set, label every series as testid and instance_id
	// (a tag of the same name wins).
	TestID     string `yaml:"-"`
	InstanceID string `yaml:"-"`
}

// DefaultConfig is the k6-compatible default with Tidemark's default trend stats.
var DefaultConfig = Config{TrendStats: DefaultTrendStats, LabelValueMaxLength: DefaultLabelValueMaxLength, LongLabelValues: LongTruncate}

// DefaultLabelValueMaxLength is the label value length of Grafana Mimir's and Grafana
// Cloud's default limit (-validation.max-length-label-value): a receiver with it rejects
// a request holding a longer value (400), with every other series in it. A k6 url tag
// of a long query string reaches it.
const DefaultLabelValueMaxLength = 2048

// What becomes of a series with a label value over Config.LabelValueMaxLength.
const (
	LongTruncate = "truncate"
	LongDrop     = "drop"
)

// truncatedMarker ends a truncated label value, before the 8 hex digits of the whole
// value's FNV-1a hash.
const truncatedMarker = "...#"

// Label rule actions.
const (
	ActionDrop    = "drop"
	ActionReplace = "replace"
)

// LabelRule drops a tag, or rewrites its value, before it becomes a label.
//
// With action "replace" (the default when Regex is set), a value that fully matches
// Regex becomes Replacement, in which $1 or ${name} refer to the regex's groups; a
// value that does not match is kept; an empty result drops the label. Series that
// become equal after the rules are merged: counters and rates add up, gauges keep
// the largest value, and trends merge their histograms.
type LabelRule struct {
	Label       string `yaml:"label"`
	Action      string `yaml:"action,omitempty"`
	Regex       string `yaml:"regex,omitempty"`
	Replacement string `yaml:"replacement,omitempty"`
}

type compiledRule struct {
	LabelRule
	re *regexp.Regexp
}

// Validate reports every problem of c.
func (c *Config) Validate() error {
	_, errs := c.compile()
	return errs
}

func (c *Config) compile() ([]compiledRule, error) {
	var errs []error
	if _, err := ParseStats(c.TrendStats); err != nil {
		errs = append(errs, err)
	}
	for k := range c.Labels {
		if k == "" || k == "__name__" {
			errs = append(errs, fmt.Errorf("static label %q: name is reserved or empty", k))
		}
	}
	switch c.LongLabelValues {
	case "", LongTruncate, LongDrop:
	default:
		errs = append(errs, fmt.Errorf("long_label_values %q: want %s or %s", c.LongLabelValues, LongTruncate, LongDrop))
	}
	if c.LabelValueMaxLength < 0 || (c.LabelValueMaxLength > 0 && c.LabelValueMaxLength <= len(truncatedMarker)+8) {
		errs = append(errs, fmt.Errorf("label_value_max_length %d: want 0 (no cap) or more than %d bytes", c.LabelValueMaxLength, len(truncatedMarker)+8))
	}
	rules := make([]compiledRule, 0, len(c.LabelRules))
	for i, r := range c.LabelRules {
		cr := compiledRule{LabelRule: r}
		if r.Label == "" {
			errs = append(errs, fmt.Errorf("label rule %d: label is empty", i+1))
			continue
		}
		if cr.Action == "" {
			cr.Action = ActionReplace
			if r.Regex == "" {
				cr.Action = ActionDrop
			}
		}
		switch cr.Action {
		case ActionDrop:
		case ActionReplace:
			re, err := regexp.Compile("^(?:" + r.Regex + ")$")
			if err != nil {
				errs = append(errs, fmt.Errorf("label rule %d (%s): compile regex: %w", i+1, r.Label, err))
				continue
			}
			cr.re = re
		default:
			errs = append(errs, fmt.Errorf("label rule %d (%s): unknown action %q, want drop or replace", i+1, r.Label, r.Action))
			continue
		}
		rules = append(rules, cr)
	}
	return rules, errors.Join(errs...)
}

// Mapper maps snapshots to series. It caches the labels of every (metric, tag set)
// it has seen, so mapping a snapshot allocates little. It is safe for concurrent use.
type Mapper struct {
	mu                 sync.Mutex
	stats              []Stat
	native             bool
	static             []Label
	testID, instanceID string
	rules              []compiledRule
	maxValueLen        int
	dropLong           bool
	long               LongLabels

	entries map[entryKey]*entry
	groups  map[string]*group
	nextRef uint64

	// scratch, reused between calls under mu.
	resolved []*entry
	accs     map[*group]*acc
}

type entryKey struct {
	m *metrics.Metric
	t *metrics.TagSet
}

// entry is one (metric, tag set) and the series it becomes.
type entry struct {
	metric *metrics.Metric
	labels []Label
	outs   []outSpec
	group  *group
}

// group is the set of entries whose mapped labels are equal.
type group struct {
	size int
	outs []outSpec
}

type outSpec struct {
	name string
	ref  uint64
	typ  Type
	unit string
	help string
	stat int // index in Mapper.stats, -1 for the value or the histogram; a rate's statPasses or statFails
}

// Outputs of a rate besides its ratio: the counts behind it (outSpec.stat).
const (
	statPasses = -2
	statFails  = -3
)

// Suffixes of a rate's counters: RateName(m) + PassesSuffix counts the rate's non-zero
// samples, RateName(m) + FailsSuffix its zero samples.
const (
	PassesSuffix = "_passes_total"
	FailsSuffix  = "_fails_total"
)

// RateName is the base name of a rate metric's counters, under Tidemark's prefix:
// tidemark_<metric> for a k6 metric, the metric's own name for a tidemark_* one. k6's
// k6_<metric>_rate holds each instance's ratio, which cannot be summed across
// instances; these counters can (k6's --summary-export calls them passes and fails).
func RateName(m *metrics.Metric) string {
	if strings.HasPrefix(m.Name, OwnPrefix) {
		return m.Name
	}
	return OwnPrefix + m.Name
}

// NewMapper validates cfg and returns a Mapper for it.
func NewMapper(cfg Config) (*Mapper, error) {
	rules, err := cfg.compile()
	if err != nil {
		return nil, err
	}
	stats, _ := ParseStats(cfg.TrendStats)
	m := &Mapper{
		stats:       stats,
		native:      cfg.NativeHistograms,
		testID:      cfg.TestID,
		instanceID:  cfg.InstanceID,
		rules:       rules,
		maxValueLen: cfg.LabelValueMaxLength,
		dropLong:    cfg.LongLabelValues == LongDrop,
		entries:     map[entryKey]*entry{},
		groups:      map[string]*group{},
		accs:        map[*group]*acc{},
	}
	for k, v := range cfg.Labels {
		if v != "" {
			m.static = append(m.static, Label{k, v})
		}
	}
	sortLabels(m.static)
	return m, nil
}

// Name returns the base Prometheus name of a metric: k6_<name>, or the name itself
// for Tidemark's own tidemark_* metrics.
func Name(m *metrics.Metric) string {
	if strings.HasPrefix(m.Name, OwnPrefix) {
		return m.Name
	}
	return Prefix + m.Name
}

// Map appends the series of every input to dst and returns it. Inputs whose labels
// are equal after the label rules are merged into one series.
func (m *Mapper) Map(dst []Series, in []Input) []Series {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resolved = m.resolved[:0]
	for i := range in {
		m.resolved = append(m.resolved, m.entry(&in[i]))
	}
	clear(m.accs)
	for i := range in {
		e := m.resolved[i]
		if e == nil {
			continue
		}
		if e.group.size > 1 {
			a := m.accs[e.group]
			if a == nil {
				a = &acc{first: e}
				m.accs[e.group] = a
			}
			a.add(&in[i])
			continue
		}
		dst = m.emit(dst, e, &in[i])
	}
	for _, a := range m.accs {
		merged := a.input()
		dst = m.emit(dst, a.first, &merged)
	}
	return dst
}

func (m *Mapper) emit(dst []Series, e *entry, in *Input) []Series {
	for i := range e.outs {
		o := &e.outs[i]
		s := Series{Name: o.name, Labels: e.labels, Ref: o.ref, Type: o.typ, Unit: o.unit, Help: o.help}
		switch e.metric.Type {
		case metrics.Counter, metrics.Gauge:
			s.Value = in.Value
		case metrics.Rate:
			switch {
			case o.stat == statPasses:
				s.Value = float64(in.Passes)
			case o.stat == statFails:
				s.Value = float64(in.Total - min(in.Passes, in.Total))
			case in.Total > 0:
				s.Value = float64(in.Passes) / float64(in.Total)
			}
		case metrics.Trend:
			if in.Trend == nil {
				continue
			}
			if o.stat >= 0 {
				s.Value = m.stats[o.stat].value(in.Trend)
			} else {
				s.Histogram = in.Trend.Native()
				if s.Histogram == nil {
					continue
				}
			}
		}
		dst = append(dst, s)
	}
	return dst
}

// entry returns the cached entry of in, creating it on first sight.
func (m *Mapper) entry(in *Input) *entry {
	if in.Metric == nil {
		return nil
	}
	k := entryKey{in.Metric, in.Tags}
	if e, ok := m.entries[k]; ok {
		return e
	}
	e := &entry{metric: in.Metric, labels: m.labels(in.Tags)}
	if long := m.longValues(e.labels); long > 0 {
		m.long.Example = cmp.Or(m.long.Example, in.Metric.Name)
		if m.dropLong {
			m.long.Dropped++
			m.entries[k] = nil // never sent; counted once
			return nil
		}
		m.long.Truncated++
	}
	gk := groupKey(in.Metric, e.labels)
	g := m.groups[gk]
	if g == nil {
		g = &group{outs: m.outs(in.Metric)}
		m.groups[gk] = g
	}
	// Entries with equal labels share their outputs (and refs), so the merged series
	// keeps its identity.
	e.outs = g.outs
	g.size++
	e.group = g
	m.entries[k] = e
	return e
}

// LongLabels counts the (metric, tag set) pairs that had a label value over
// Config.LabelValueMaxLength.
type LongLabels struct {
	// Truncated counts those sent with the value truncated; Dropped those not sent.
	Truncated, Dropped int
	// Example is the metric of the first one, for messages.
	Example string
}

// LongLabels returns what the label value cap did so far.
func (m *Mapper) LongLabels() LongLabels {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.long
}

// longValues counts the values of ls over the cap, truncating them unless dropLong.
func (m *Mapper) longValues(ls []Label) int {
	if m.maxValueLen <= 0 {
		return 0
	}
	n := 0
	for i, l := range ls {
		if len(l.Value) <= m.maxValueLen {
			continue
		}
		n++
		if !m.dropLong {
			ls[i].Value = TruncateValue(l.Value, m.maxValueLen)
		}
	}
	return n
}

// TruncateValue cuts v to at most maxLen bytes (on a UTF-8 boundary), ending it with
// "...#" and the FNV-1a hash of the whole of v in 8 hex digits, so that two long values
// with a common start stay two values. v at most maxLen bytes long is returned as is.
func TruncateValue(v string, maxLen int) string {
	if len(v) <= maxLen {
		return v
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(v))
	cut := max(maxLen-len(truncatedMarker)-8, 0)
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%s%s%08x", v[:cut], truncatedMarker, h.Sum32())
}

func groupKey(mt *metrics.Metric, ls []Label) string {
	var b strings.Builder
	b.WriteString(mt.Name)
	for _, l := range ls {
		b.WriteByte(0xff)
		b.WriteString(l.Name)
		b.WriteByte(0xfe)
		b.WriteString(l.Value)
	}
	return b.String()
}

// labels maps a tag set to sorted labels.
func (m *Mapper) labels(ts *metrics.TagSet) []Label {
	tags := ts.Tags()
	out := make([]Label, 0, len(tags)+len(m.static)+2)
	has := make(map[string]bool, len(tags))
tags:
	for _, t := range tags {
		if t.Key == "" || t.Value == "" || t.Key == "vu" || t.Key == "iter" || t.Key == "__name__" {
			continue
		}
		v := t.Value
		for i := range m.rules {
			r := &m.rules[i]
			if r.Label != t.Key {
				continue
			}
			if r.Action == ActionDrop {
				continue tags
			}
			if idx := r.re.FindStringSubmatchIndex(v); idx != nil {
				v = string(r.re.ExpandString(nil, r.Replacement, v, idx))
			}
			if v == "" {
				continue tags
			}
		}
		out = append(out, Label{t.Key, v})
		has[t.Key] = true
	}
	for _, l := range m.static {
		if !has[l.Name] {
			out = append(out, l)
			has[l.Name] = true
		}
	}
	if m.instanceID != "" && !has[LabelInstanceID] {
		out = append(out, Label{LabelInstanceID, m.instanceID})
	}
	if m.testID != "" && !has[LabelTestID] {
		out = append(out, Label{LabelTestID, m.testID})
	}
	sortLabels(out)
	return out
}

// outs lists the series a metric becomes.
func (m *Mapper) outs(mt *metrics.Metric) []outSpec {
	base := Name(mt)
	unit := ""
	switch mt.Contains {
	case metrics.Time:
		unit = "seconds"
	case metrics.Data:
		unit = "bytes"
	}
	ref := func() uint64 { m.nextRef++; return m.nextRef }
	origin := "k6"
	if strings.HasPrefix(mt.Name, OwnPrefix) {
		origin = "Tidemark"
	}
	switch mt.Type {
	case metrics.Counter:
		name := base + "_total"
		if strings.HasPrefix(mt.Name, OwnPrefix) && strings.HasSuffix(mt.Name, "_total") {
			name = base
		}
		return []outSpec{{name: name, ref: ref(), typ: Counter, unit: unit, stat: -1,
			help: fmt.Sprintf("%s counter %s: cumulative sum since the start of the run.", origin, mt.Name)}}
	case metrics.Gauge:
		return []outSpec{{name: base, ref: ref(), typ: Gauge, unit: unit, stat: -1,
			help: fmt.Sprintf("%s gauge %s: last value.", origin, mt.Name)}}
	case metrics.Rate:
		counts := RateName(mt)
		return []outSpec{{name: base + "_rate", ref: ref(), typ: Gauge, stat: -1,
			help: fmt.Sprintf("%s rate %s: cumulative share of non-zero samples since the start of the run.", origin, mt.Name)},
			{name: counts + PassesSuffix, ref: ref(), typ: Counter, stat: statPasses,
				help: fmt.Sprintf("Tidemark counter of %s rate %s: non-zero samples since the start of the run, which sum across instances.", origin, mt.Name)},
			{name: counts + FailsSuffix, ref: ref(), typ: Counter, stat: statFails,
				help: fmt.Sprintf("Tidemark counter of %s rate %s: zero samples since the start of the run, which sum across instances.", origin, mt.Name)}}
	case metrics.Trend:
		outs := make([]outSpec, 0, len(m.stats)+1)
		for i, st := range m.stats {
			u := unit
			if st.kind == statCount {
				u = ""
			}
			in := ""
			if u != "" {
				in = " in " + u
			}
			outs = append(outs, outSpec{name: base + "_" + st.Suffix, ref: ref(), typ: Gauge, unit: u, stat: i,
				help: fmt.Sprintf("%s trend %s: %s%s since the start of the run.", origin, mt.Name, st.Spec, in)})
		}
		if m.native {
			name := base
			if unit != "" {
				name += "_" + unit
			}
			outs = append(outs, outSpec{name: name, ref: ref(), typ: Histogram, unit: unit, stat: -1,
				help: fmt.Sprintf("%s trend %s: native histogram of every observation since the start of the run.", origin, mt.Name)})
		}
		return outs
	}
	return nil
}
