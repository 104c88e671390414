// Package query holds Tidemark's PromQL catalog (data: an embedded YAML that a file can
// replace), renders its templates for one run, validates every expression with
// Prometheus' parser when the catalog loads, and runs them behind a small Querier.
package query

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

//go:embed catalog.yaml
var defaultCatalog []byte

// SchemaVersion is the catalog schema version this package reads.
const SchemaVersion = 1

// Query kinds.
const (
	KindRange   = "range"
	KindInstant = "instant"
)

// RequiredQueries are the query names the correlator runs: those the detectors read
// (DetectorQueries) and the correlator's own, which find the run, join pods to
// workloads and measure per-stage latency. A custom catalog must define every one (it
// may change the expressions, not the names).
func RequiredQueries() []string {
	return append(DetectorQueries(), "run_seen", "pod_workload", "stage_trend_quantile")
}

// Catalog is the parsed query catalog.
type Catalog struct {
	Version  int      `yaml:"version" json:"version"`
	Defaults Defaults `yaml:"defaults" json:"defaults"`
	// Bottleneck holds the thresholds of the rules that name what limited a run.
	Bottleneck BottleneckRules    `yaml:"bottleneck" json:"bottleneck"`
	Params     map[string]float64 `yaml:"params" json:"params"`
	Sources    map[string]Source  `yaml:"sources" json:"sources"`
	Fragments  map[string]string  `yaml:"fragments" json:"fragments"`
	Queries    map[string]Query   `yaml:"queries" json:"queries"`
	Findings   []Rule             `yaml:"findings" json:"findings"`
	// Dashboards are the queries of the dashboards' own panels that the correlator does not
	// run (the k6 panels of the Load dashboard, annotations, windowed rates, template
	// variables), by name: templates the dashboards render with Grafana's variables
	// (see [Catalog.RenderDashboard]).
	Dashboards map[string]string `yaml:"dashboards,omitempty" json:"dashboards,omitempty"`

	tmpl *template.Template // selectors, fragments, queries, rules (missing keys are errors)
	msgs *template.Template // finding messages (missing labels render empty)
	raw  []byte             // the text parsed, kept so that YAML keeps its comments
}

// Defaults are the analysis knobs kept with the catalog.
type Defaults struct {
	RateWindow     model.Duration `yaml:"rate_window" json:"rate_window"`
	HPATolerance   float64        `yaml:"hpa_tolerance" json:"hpa_tolerance"`
	ThrottleOnsets []float64      `yaml:"throttle_onsets" json:"throttle_onsets"`
	// ThrottleStageOnset is the throttled share of a hold's active CFS periods from which
	// a workload counts as throttled (the throttling onset of the report's key facts).
	ThrottleStageOnset float64 `yaml:"throttle_stage_onset" json:"throttle_stage_onset"`
	ErrorBurstRatio    float64 `yaml:"error_burst_ratio" json:"error_burst_ratio"`
	StageAchievedOK    float64 `yaml:"stage_achieved_ok" json:"stage_achieved_ok"`
	ErrorRatioOK       float64 `yaml:"error_ratio_ok" json:"error_ratio_ok"`
}

// Source is one metrics source (an exporter) with its selector and cadence.
type Source struct {
	Description string `yaml:"description" json:"description,omitempty"`
	// Selector is a template of label matchers without braces, rendered as .Sel.<name>.
	Selector string `yaml:"selector" json:"selector"`
	// ScrapeInterval is assumed when the probe cannot measure the real interval.
	ScrapeInterval model.Duration `yaml:"scrape_interval" json:"scrape_interval"`
	// Lag is how late samples arrive (CloudWatch); range queries run this much longer.
	Lag model.Duration `yaml:"lag" json:"lag,omitempty"`
	// Optional sources (a database exporter, an application's pool) are absent from many
	// runs: without series they get no note asking whether they are scraped.
	Optional bool `yaml:"optional,omitempty" json:"optional,omitempty"`
	// Probe is a plain series selector whose raw samples measure the scrape interval.
	Probe string `yaml:"probe" json:"probe"`
	// Discover says how [Discover] looks for the source's series when its selector finds
	// none.
	Discover Lookup `yaml:"discover,omitempty" json:"discover,omitzero"`
}

// Lookup is how [Discover] searches for a source's series without the scrape identity
// (job, metrics_path) of its selector.
type Lookup struct {
	// Metrics are metric names only this source exports (every generation of them, such as
	// kube-state-metrics v1's kube_hpa_* next to v2's names). Empty means the probe's
	// metric.
	Metrics []string `yaml:"metrics,omitempty" json:"metrics,omitempty"`
	// Jobs are substrings of the job names this source is usually scraped as; of
	// candidates with as many series, one whose job contains one of them is preferred.
	Jobs []string `yaml:"jobs,omitempty" json:"jobs,omitempty"`
}

// Query is one catalog query.
type Query struct {
	Source      string `yaml:"source" json:"source"`
	Kind        string `yaml:"kind" json:"kind,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
	Expr        string `yaml:"expr" json:"expr"`
	// PerPod is Expr without the pod → workload join (series labelled namespace and pod);
	// the correlator runs it and adds the workload label from the pod_workload query.
	PerPod string `yaml:"per_pod" json:"per_pod,omitempty"`
}

// Rule is one finding rule: an expression that returns series while its condition holds.
type Rule struct {
	Name     string         `yaml:"name" json:"name"`
	Severity string         `yaml:"severity" json:"severity"`
	For      model.Duration `yaml:"for" json:"for"`
	Expr     string         `yaml:"expr" json:"expr"`
	Message  string         `yaml:"message" json:"message"`
	Evidence []string       `yaml:"evidence" json:"evidence"`
	Requires []string       `yaml:"requires" json:"requires,omitempty"`
}

// Vars are the per-run values the templates are rendered with.
type Vars struct {
	TestID    string
	Namespace string // regex; empty means ".+"
	Workload  string // regex; empty means ".+"
	// RateWindow, when set, is the rate() window of every source, overriding the rule of
	// [Catalog.RateWindowOf] (dashboards render Grafana's $__rate_interval through it).
	RateWindow time.Duration
	// Intervals are the sources' measured scrape (or, for k6, push) intervals, by source
	// name; each source's rate() window is derived from its own (see [Catalog.RateWindowOf]).
	Intervals map[string]time.Duration
	// Step is the range query's step: a counter read as last_over_time(…[Step]) shows
	// every sample at the first step at or after it, even one a stale marker follows by
	// 1 ms (a run's final push). Default the catalog's defaults.rate_window.
	Step     time.Duration
	Range    time.Duration
	Quantile float64
	// Metric is the series name of per-stage trend queries (.Metric); default
	// k6_http_req_duration_seconds, the native histogram of http_req_duration.
	Metric string
	// Match are label matchers added to per-stage trend queries (.Match), such as a
	// sub-metric's tags; names must be valid label names.
	Match map[string]string
	// Selector are label matchers (name = value) ANDed into every source's selector, k6's
	// too, such as cluster="prod" where Thanos, Mimir or a multi-cluster Prometheus label
	// every series with its cluster; names must be valid label names (see [ParseSelector]).
	Selector map[string]string
	Params   map[string]float64 // overrides of the catalog params
}

// DefaultTrendMetric is Vars.Metric's default.
const DefaultTrendMetric = "k6_http_req_duration_seconds"

// MessageData is what a finding's message template sees.
type MessageData struct {
	Labels   map[string]string
	Value    float64
	From, To time.Time
	Duration string
}

// Default returns the embedded catalog.
func Default() (*Catalog, error) {
	c, err := Parse(defaultCatalog)
	if err != nil {
		return nil, fmt.Errorf("embedded catalog: %w", err)
	}
	return c, nil
}

// DefaultYAML returns the embedded catalog's text, to start a custom one from.
func DefaultYAML() []byte { return bytes.Clone(defaultCatalog) }

// LoadFile reads and validates a catalog file; an empty path is the embedded catalog.
func LoadFile(path string) (*Catalog, error) {
	if path == "" {
		return Default()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a catalog (unknown fields are errors) and validates it: every template
// parses, renders with sample values, and yields PromQL that Prometheus' parser accepts.
func Parse(b []byte) (*Catalog, error) {
	var c Catalog
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("decode catalog: %w", err)
	}
	c.raw = bytes.Clone(b)
	return &c, nil
}

// UnmarshalYAML decodes and validates the catalog. Decoded by a yaml.v3 Decoder with
// KnownFields(true), as Parse does, a misspelt key is an error: the unmarshal function
// keeps the decoder's settings.
func (c *Catalog) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Catalog
	if err := unmarshal((*plain)(c)); err != nil {
		return err
	}
	return c.validate()
}

func funcs() template.FuncMap {
	return template.FuncMap{
		"pct": func(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" },
	}
}

func (c *Catalog) validate() error {
	if c.Version != SchemaVersion {
		return fmt.Errorf("catalog version %d, want %d", c.Version, SchemaVersion)
	}
	if time.Duration(c.Defaults.RateWindow) <= 0 {
		return errors.New("defaults.rate_window must be positive")
	}
	errs := c.Defaults.validate()
	errs = append(errs, c.Bottleneck.complete()...)
	root := template.New("catalog").Funcs(funcs()).Option("missingkey=error")
	msgs := template.New("messages").Funcs(funcs()).Option("missingkey=zero")
	add := func(name, text string) {
		if _, err := root.New(name).Parse(text); err != nil {
			errs = append(errs, fmt.Errorf("template %s: %w", name, err))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Sources)) {
		s := c.Sources[n]
		add("source/"+n, s.Selector)
		add("probe/"+n, s.Probe)
		if time.Duration(s.ScrapeInterval) <= 0 {
			errs = append(errs, fmt.Errorf("source %q: scrape_interval must be positive", n))
		}
		for _, m := range s.Discover.Metrics {
			if !model.LegacyValidation.IsValidMetricName(m) {
				errs = append(errs, fmt.Errorf("source %q: discover metric %q is not a valid metric name", n, m))
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Fragments)) {
		add("fragment/"+n, c.Fragments[n])
	}
	for _, n := range slices.Sorted(maps.Keys(c.Queries)) {
		q := c.Queries[n]
		add("query/"+n, q.Expr)
		if q.PerPod != "" {
			add("perpod/"+n, q.PerPod)
		}
		if _, ok := c.Sources[q.Source]; !ok {
			errs = append(errs, fmt.Errorf("query %q: unknown source %q", n, q.Source))
		}
		if q.Kind != "" && q.Kind != KindRange && q.Kind != KindInstant {
			errs = append(errs, fmt.Errorf("query %q: kind %q is neither %q nor %q", n, q.Kind, KindRange, KindInstant))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Dashboards)) {
		add("dashboard/"+n, c.Dashboards[n])
		if _, ok := c.Queries[n]; ok {
			errs = append(errs, fmt.Errorf("dashboard query %q: a query has that name", n))
		}
	}
	seen := map[string]bool{}
	for i, r := range c.Findings {
		if r.Name == "" || seen[r.Name] {
			errs = append(errs, fmt.Errorf("finding %d: name %q is empty or repeated", i, r.Name))
		}
		seen[r.Name] = true
		switch r.Severity {
		case "info", "warning", "critical":
		default:
			errs = append(errs, fmt.Errorf("finding %q: severity %q is not info, warning or critical", r.Name, r.Severity))
		}
		add("finding/"+r.Name, r.Expr)
		if _, err := msgs.New("message/" + r.Name).Parse(r.Message); err != nil {
			errs = append(errs, fmt.Errorf("template message/%s: %w", r.Name, err))
		}
		for _, e := range r.Evidence {
			if _, ok := c.Queries[e]; !ok {
				errs = append(errs, fmt.Errorf("finding %q: evidence %q is not a query", r.Name, e))
			}
		}
		for _, p := range r.Requires {
			if _, ok := c.Params[p]; !ok {
				errs = append(errs, fmt.Errorf("finding %q: requires unknown param %q", r.Name, p))
			}
		}
	}
	for _, n := range RequiredQueries() {
		if _, ok := c.Queries[n]; !ok {
			errs = append(errs, fmt.Errorf("required query %q is missing", n))
		}
	}
	for _, n := range RequiredSources() {
		if _, ok := c.Sources[n]; !ok {
			errs = append(errs, fmt.Errorf("required source %q is missing", n))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	c.tmpl, c.msgs = root, msgs

	// Render everything with sample values and parse the PromQL.
	sample := Vars{TestID: `sample"id`, Namespace: "ns-.*", Workload: ".+", RateWindow: time.Minute, Range: 5 * time.Minute, Quantile: 0.95}
	d, err := c.data(sample)
	if err != nil {
		return err
	}
	p := parser.NewParser(parser.Options{})
	check := func(what, expr string) {
		if _, err := p.ParseExpr(expr); err != nil {
			errs = append(errs, fmt.Errorf("%s: parse PromQL %q: %w", what, expr, err))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Sources)) {
		expr, err := c.exec("probe/"+n, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e, err := p.ParseExpr(expr)
		if err != nil {
			errs = append(errs, fmt.Errorf("source %q probe: parse PromQL %q: %w", n, expr, err))
			continue
		}
		if _, ok := e.(*parser.VectorSelector); !ok {
			errs = append(errs, fmt.Errorf("source %q probe: %q must be a plain series selector", n, expr))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Queries)) {
		expr, err := c.exec("query/"+n, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		check(fmt.Sprintf("query %q", n), expr)
		if c.Queries[n].PerPod != "" {
			expr, err := c.exec("perpod/"+n, d)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			check(fmt.Sprintf("query %q per_pod", n), expr)
		}
	}
	for _, r := range c.Findings {
		expr, err := c.exec("finding/"+r.Name, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		check(fmt.Sprintf("finding %q", r.Name), expr)
		if _, err := c.Message(r.Name, MessageData{Labels: map[string]string{}}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// validate checks the analysis thresholds. A threshold left out of a custom catalog
// decodes as 0, which would make every step with requests an error burst and every stage
// hold, so each one must be a ratio in its range.
func (d Defaults) validate() []error {
	var errs []error
	ratio := func(name string, v float64, zeroOK, oneOK bool) {
		lo, hi := "(0", "1]"
		if zeroOK {
			lo = "[0"
		}
		if !oneOK {
			hi = "1)"
		}
		if math.IsNaN(v) || v < 0 || (v == 0 && !zeroOK) || v > 1 || (v == 1 && !oneOK) {
			errs = append(errs, fmt.Errorf("defaults.%s is %v: expected a ratio in %s, %s", name, v, lo, hi))
		}
	}
	ratio("hpa_tolerance", d.HPATolerance, true, false)
	ratio("error_burst_ratio", d.ErrorBurstRatio, false, true)
	ratio("stage_achieved_ok", d.StageAchievedOK, false, true)
	ratio("error_ratio_ok", d.ErrorRatioOK, true, true)
	ratio("throttle_stage_onset", d.ThrottleStageOnset, false, false)
	if len(d.ThrottleOnsets) == 0 || !slices.IsSorted(d.ThrottleOnsets) ||
		slices.ContainsFunc(d.ThrottleOnsets, func(v float64) bool { return math.IsNaN(v) || v <= 0 || v > 1 }) {
		errs = append(errs, fmt.Errorf("defaults.throttle_onsets is %v: expected one or more ascending ratios in (0, 1]", d.ThrottleOnsets))
	}
	return errs
}

// escape makes s safe inside a double-quoted PromQL string.
func escape(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

type tmplData struct {
	TestID, Namespace, Workload, RateWindow, Step, Range, Quantile, Metric, Match string
	Sel, Frag, Params, RateWindowOf                                               map[string]string
}

// RateWindowOf is the rate() window of a source's series for a run, the one rule every
// rate in the catalog follows (rendered as .RateWindowOf.<source>):
//   - two of the source's own intervals (v.Intervals: k6's push interval, an exporter's
//     scrape interval), rounded up to whole seconds. rate() needs two samples in its
//     window, and a window of two intervals holds two wherever it ends on an even
//     cadence (a late sample can leave one at a step, which then has no rate point;
//     readers allow two intervals around a moment); a longer one smooths the load, so
//     the rate at a moment is the rate of the last push or two, not of the last
//     minute (k6 pushed every 5 s: 10s; ksm scraped every 30 s: 1m);
//   - the catalog's defaults.rate_window when the source's interval is unknown;
//   - never shorter than the query step v.Step when one is given: a shorter window
//     would skip the samples between steps;
//   - v.RateWindow, when set, for every source.
func (c *Catalog) RateWindowOf(source string, v Vars) time.Duration {
	if v.RateWindow > 0 {
		return v.RateWindow
	}
	w := time.Duration(c.Defaults.RateWindow)
	if d := v.Intervals[source]; d > 0 {
		w = 2 * d
	}
	// Rounded up, as .Step renders: a window is never below two intervals or the step.
	return StepWindow(max(w, v.Step))
}

// exec renders a template. A query's, a per-pod expression's or a rule's PromQL reads
// the object's namespace from exported_namespace where a selector matches on it
// ([ReadExportedNamespace]).
func (c *Catalog) exec(name string, d tmplData) (string, error) {
	var b strings.Builder
	if err := c.tmpl.ExecuteTemplate(&b, name, d); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	out := strings.TrimSpace(b.String())
	if kind, _, _ := strings.Cut(name, "/"); kind == "query" || kind == "perpod" || kind == "finding" {
		e, err := ReadExportedNamespace(out)
		if err != nil {
			return "", fmt.Errorf("render %s: %w", name, err)
		}
		out = e
	}
	return out, nil
}

func (c *Catalog) data(v Vars) (tmplData, error) {
	if v.Namespace == "" {
		v.Namespace = ".+"
	}
	if v.Workload == "" {
		v.Workload = ".+"
	}
	windows := map[string]string{}
	for n := range c.Sources {
		windows[n] = model.Duration(c.RateWindowOf(n, v).Round(time.Second)).String()
	}
	if v.RateWindow <= 0 {
		v.RateWindow = time.Duration(c.Defaults.RateWindow)
	}
	if v.Range <= 0 {
		v.Range = v.RateWindow
	}
	if v.Step <= 0 {
		v.Step = v.RateWindow
	}
	if v.Quantile <= 0 {
		v.Quantile = 0.95
	}
	if v.Metric == "" {
		v.Metric = DefaultTrendMetric
	}
	if !model.LegacyValidation.IsValidMetricName(v.Metric) {
		return tmplData{}, fmt.Errorf("metric %q is not a valid metric name", v.Metric)
	}
	var match strings.Builder
	for _, k := range slices.Sorted(maps.Keys(v.Match)) {
		if !model.LegacyValidation.IsValidLabelName(k) {
			return tmplData{}, fmt.Errorf("tag %q is not a valid label name", k)
		}
		fmt.Fprintf(&match, `, %s="%s"`, k, escape(v.Match[k]))
	}
	extra, err := selectorText(v.Selector)
	if err != nil {
		return tmplData{}, err
	}
	d := tmplData{
		TestID:     escape(v.TestID),
		Namespace:  escape(v.Namespace),
		Workload:   escape(v.Workload),
		RateWindow: model.Duration(v.RateWindow.Round(time.Second)).String(),
		Step:       model.Duration(StepWindow(v.Step)).String(),
		Range:      model.Duration(max(v.Range.Round(time.Second), time.Second)).String(),
		Quantile:   strconv.FormatFloat(v.Quantile, 'g', -1, 64),
		Metric:     v.Metric,
		Match:      match.String(),
		Sel:        map[string]string{},
		Frag:       map[string]string{},
		Params:     map[string]string{},

		RateWindowOf: windows,
	}
	for k, p := range c.Params {
		if o, ok := v.Params[k]; ok {
			p = o
		}
		d.Params[k] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	for _, n := range slices.Sorted(maps.Keys(c.Sources)) {
		s, err := c.exec("source/"+n, d)
		if err != nil {
			return d, err
		}
		d.Sel[n] = joinMatchers(s, extra)
	}
	// Fragments may use other fragments: render in passes until none is left.
	pending := slices.Sorted(maps.Keys(c.Fragments))
	for len(pending) > 0 {
		var next []string
		var lastErr error
		for _, n := range pending {
			s, err := c.exec("fragment/"+n, d)
			if err != nil {
				next, lastErr = append(next, n), err
				continue
			}
			d.Frag[n] = s
		}
		if len(next) == len(pending) {
			return d, fmt.Errorf("fragments %v cannot be rendered (unknown or circular reference): %w", next, lastErr)
		}
		pending = next
	}
	return d, nil
}

// StepWindow is how .Step renders: the step rounded up to whole seconds, so that a
// last_over_time window is never shorter than the step and misses no sample.
func StepWindow(step time.Duration) time.Duration {
	return max((step + time.Second - 1).Truncate(time.Second), time.Second)
}

// Render returns the PromQL of a catalog query for the given run values.
func (c *Catalog) Render(name string, v Vars) (string, error) {
	if _, ok := c.Queries[name]; !ok {
		return "", fmt.Errorf("render query %q: not in the catalog", name)
	}
	d, err := c.data(v)
	if err != nil {
		return "", err
	}
	return c.exec("query/"+name, d)
}

// RenderDashboard returns a dashboard query (Dashboards) rendered with data: the
// dashboards' selectors and joins written with Grafana's variables.
func (c *Catalog) RenderDashboard(name string, data any) (string, error) {
	if _, ok := c.Dashboards[name]; !ok {
		return "", fmt.Errorf("render dashboard query %q: not in the catalog", name)
	}
	var b strings.Builder
	if err := c.tmpl.ExecuteTemplate(&b, "dashboard/"+name, data); err != nil {
		return "", fmt.Errorf("render dashboard/%s: %w", name, err)
	}
	return b.String(), nil
}

// RenderPerPod returns a query's per_pod expression; ok is false when it has none.
func (c *Catalog) RenderPerPod(name string, v Vars) (expr string, ok bool, err error) {
	q, found := c.Queries[name]
	if !found {
		return "", false, fmt.Errorf("render query %q: not in the catalog", name)
	}
	if q.PerPod == "" {
		return "", false, nil
	}
	d, err := c.data(v)
	if err != nil {
		return "", false, err
	}
	expr, err = c.exec("perpod/"+name, d)
	return expr, err == nil, err
}

// RenderProbe returns the probe selector of a source.
func (c *Catalog) RenderProbe(source string, v Vars) (string, error) {
	if _, ok := c.Sources[source]; !ok {
		return "", fmt.Errorf("render probe %q: unknown source", source)
	}
	d, err := c.data(v)
	if err != nil {
		return "", err
	}
	return c.exec("probe/"+source, d)
}

// RenderDiscoverProbe returns a selector of every metric of a source's discover.metrics
// under its selector, for measuring its interval when its probe finds no samples (a
// cluster without an HPA has no kube_horizontalpodautoscaler_* series, but its
// Deployments are scraped by the same kube-state-metrics); false without such metrics.
func (c *Catalog) RenderDiscoverProbe(source string, v Vars) (string, bool, error) {
	s, ok := c.Sources[source]
	if !ok {
		return "", false, fmt.Errorf("render discover probe %q: unknown source", source)
	}
	if len(s.Discover.Metrics) == 0 {
		return "", false, nil
	}
	d, err := c.data(v)
	if err != nil {
		return "", false, err
	}
	names := make([]string, len(s.Discover.Metrics))
	for i, m := range s.Discover.Metrics {
		names[i] = regexp.QuoteMeta(m)
	}
	return fmt.Sprintf(`{__name__=~"%s", %s}`, strings.Join(names, "|"), d.Sel[source]), true, nil
}

// RenderRule returns the PromQL of a finding rule.
func (c *Catalog) RenderRule(name string, v Vars) (string, error) {
	d, err := c.data(v)
	if err != nil {
		return "", err
	}
	return c.exec("finding/"+name, d)
}

// Message renders a finding's message.
func (c *Catalog) Message(rule string, m MessageData) (string, error) {
	var b strings.Builder
	if err := c.msgs.ExecuteTemplate(&b, "message/"+rule, m); err != nil {
		return "", fmt.Errorf("render message of finding %q: %w", rule, err)
	}
	return b.String(), nil
}

// Param returns a param's value for a run: the override in v, else the catalog's.
func (c *Catalog) Param(name string, v Vars) float64 {
	if o, ok := v.Params[name]; ok {
		return o
	}
	return c.Params[name]
}

// KindOrDefault returns a query's kind, KindRange unless the catalog says otherwise.
func (q Query) KindOrDefault() string {
	if q.Kind == "" {
		return KindRange
	}
	return q.Kind
}
