package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	promlabels "github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/tidemark/tidemark/internal/timeline"
)

// scrapeLabels are the labels of a series' scrape identity, which differ between installs
// of the same exporter (prom-layouts.md §11): Discover drops the selector's matchers on
// them when it searches, and adopts the values it finds.
func scrapeLabels() []string { return []string{"job", "metrics_path"} }

// Found says where a source's selector comes from.
type Found string

// How a source was found.
const (
	// FoundCatalog: the catalog's selector finds series; it is kept.
	FoundCatalog Found = "catalog"
	// FoundDiscovered: the catalog's selector finds none, the source's metrics exist under
	// another scrape identity, and the selector adopted selects it.
	FoundDiscovered Found = "discovered"
	// FoundNone: neither finds any series; the catalog's selector is kept.
	FoundNone Found = "none"
)

// Discovery is what [Discover] found: one entry per source but k6 (found by its testid),
// sorted by source name.
type Discovery struct {
	Sources []SourceDiscovery `json:"sources" yaml:"sources"`
}

// SourceDiscovery is one source's outcome.
type SourceDiscovery struct {
	Source string `json:"source" yaml:"source"`
	Found  Found  `json:"found" yaml:"found"`
	// Selector is the selector to use, a template in the catalog's syntax
	// (`job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`): the adopted
	// one when Found is FoundDiscovered, else the catalog's.
	Selector string `json:"selector" yaml:"selector"`
	// Searched are the metric names looked for without the scrape identity, and Matchers
	// the matchers they were looked for with (rendered for this run); both are empty when
	// the catalog's selector found series.
	Searched []string `json:"searched,omitempty" yaml:"searched,omitempty"`
	Matchers string   `json:"matchers,omitempty" yaml:"matchers,omitempty"`
	// Candidates are the scrape identities seen, best first by the choice rule (see
	// [Discover]); the first is the one adopted.
	Candidates []Candidate `json:"candidates,omitempty" yaml:"candidates,omitempty"`
	// Ambiguous is true when another candidate had as many series as the one adopted.
	Ambiguous bool `json:"ambiguous,omitempty" yaml:"ambiguous,omitempty"`
	// Note is a sentence for the report: where the source was found, or what was searched.
	Note string `json:"note" yaml:"note"`
}

// Candidate is one scrape identity under which a source's series exist. An empty Job is
// series without a job label (remote-written, or relabelled away).
type Candidate struct {
	Job         string `json:"job" yaml:"job"`
	MetricsPath string `json:"metrics_path,omitempty" yaml:"metrics_path,omitempty"`
	// Series counts the series of the searched metrics (of the probe, when the catalog's
	// selector found them) seen in the window.
	Series int `json:"series" yaml:"series"`
	// Metrics are the searched metric names that have series under this identity.
	Metrics []string `json:"metrics,omitempty" yaml:"metrics,omitempty"`
}

// Selectors returns the adopted selectors of the sources found elsewhere than the
// catalog said, for [Catalog.WithSelectors].
func (d Discovery) Selectors() map[string]string {
	out := map[string]string{}
	for _, s := range d.Sources {
		if s.Found == FoundDiscovered {
			out[s.Source] = s.Selector
		}
	}
	return out
}

// Apply returns a copy of cat with the adopted selectors ([Catalog.WithSelectors] of
// [Discovery.Selectors]).
func (d Discovery) Apply(cat *Catalog) (*Catalog, error) { return cat.WithSelectors(d.Selectors()) }

// CatalogYAML returns cat with the adopted selectors as a catalog file for
// --catalog.file: loaded back, it renders every query as [Discovery.Apply]'s catalog does.
func (d Discovery) CatalogYAML(cat *Catalog) ([]byte, error) {
	c, err := d.Apply(cat)
	if err != nil {
		return nil, err
	}
	return c.YAML()
}

// Notes returns every source's sentence, in source order.
func (d Discovery) Notes() []string {
	out := make([]string, 0, len(d.Sources))
	for _, s := range d.Sources {
		out = append(out, s.Note)
	}
	return out
}

// Discover finds where each source's series are in w, for every source but k6 (whose
// series are found by testid): its probe with the catalog's selector, rendered with v
// (namespace filter, extra selector), over w (extended by the source's lag); when that
// finds nothing, the source's metrics ([Lookup.Metrics], and the probe's metric) with the
// same selector less its scrape-identity matchers (job, metrics_path), grouped by job and
// metrics_path.
//
// Choice rule, when several identities have the source's metrics: the one with the most
// series of them; then one whose job contains one of [Lookup.Jobs] (case-insensitive);
// then the first by job and metrics_path in byte order. A tie on series count is reported
// as ambiguous, naming the others.
//
// The adopted selector is the catalog's template with its job and metrics_path matchers
// replaced by the identity found (`job=""` for series without a job; metrics_path only
// when it is set, or when another candidate has the same job). Discover fails only when
// Prometheus is unavailable or ctx ends; a failed query is the source's note.
func Discover(ctx context.Context, q Querier, cat *Catalog, v Vars, w timeline.Window) (Discovery, error) {
	if _, err := selectorText(v.Selector); err != nil {
		return Discovery{}, fmt.Errorf("discover: %w", err)
	}
	var d Discovery
	for _, name := range slices.Sorted(maps.Keys(cat.Sources)) {
		if name == SourceK6 {
			continue
		}
		sd, err := discoverSource(ctx, q, cat, name, v, w)
		if err != nil {
			if errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
				return Discovery{}, fmt.Errorf("discover source %q: %w", name, err)
			}
			s := cat.Sources[name]
			sd = SourceDiscovery{Source: name, Found: FoundNone, Selector: s.Selector,
				Note: fmt.Sprintf("%s: could not search for its series: %v", sourceTitle(name, s), err)}
		}
		d.Sources = append(d.Sources, sd)
	}
	return d, nil
}

func discoverSource(ctx context.Context, q Querier, cat *Catalog, name string, v Vars, w timeline.Window) (SourceDiscovery, error) {
	s := cat.Sources[name]
	title := sourceTitle(name, s)
	lag := time.Duration(s.Lag)
	at := w.To.Add(lag)
	rng := model.Duration(StepWindow(w.Duration() + lag)).String()
	out := SourceDiscovery{Source: name, Selector: s.Selector}

	probe, err := cat.RenderProbe(name, v)
	if err != nil {
		return out, err
	}
	found, err := groupCount(ctx, q, probe, rng, at)
	if err != nil {
		return out, err
	}
	d, err := cat.data(v)
	if err != nil {
		return out, err
	}
	sel := d.Sel[name] // as the probe used it, with the extra selector
	if len(found) > 0 {
		out.Found, out.Candidates = FoundCatalog, sortedCandidates(found, s.Discover.Jobs)
		out.Note = fmt.Sprintf("%s found with the catalog's selector {%s} as %s", title, sel, candidateList(out.Candidates))
		return out, nil
	}

	// The catalog's selector found nothing: the source's metrics under any job.
	pm, err := parser.NewParser(parser.Options{}).ParseExpr(probe)
	if err != nil {
		return out, fmt.Errorf("parse probe %q: %w", probe, err)
	}
	vs, ok := pm.(*parser.VectorSelector)
	if !ok {
		return out, fmt.Errorf("probe %q is not a series selector", probe)
	}
	probed := probeMetrics(vs)
	metrics := slices.Clone(probed)
	for _, m := range s.Discover.Metrics {
		if !slices.Contains(metrics, m) {
			metrics = append(metrics, m)
		}
	}
	if len(metrics) == 0 {
		return out, fmt.Errorf("probe %q names no metric and the source lists no discover metrics", probe)
	}
	matchers, err := cat.searchMatchers(name, v)
	if err != nil {
		return out, err
	}
	out.Searched, out.Matchers = metrics, matchers
	search := func(matchers string) (map[scrapeID]int, map[scrapeID][]string, error) {
		all := map[scrapeID]int{}
		seen := map[scrapeID][]string{}
		for _, m := range metrics {
			got, err := groupCount(ctx, q, m+"{"+matchers+"}", rng, at)
			if err != nil {
				return nil, nil, err
			}
			for id, n := range got {
				all[id] += n
				seen[id] = append(seen[id], m)
			}
		}
		return all, seen, nil
	}
	all, seen, err := search(matchers)
	if err != nil {
		return out, err
	}
	nsLabel := "namespace"
	if len(all) == 0 {
		// A scrape without honor_labels keeps the object's namespace in
		// exported_namespace (prom-layouts.md §2).
		if alt, ok := renameMatcher(matchers, "namespace", ExportedNamespace); ok {
			if all, seen, err = search(alt); err != nil {
				return out, err
			}
			if len(all) > 0 {
				nsLabel, matchers, out.Matchers = ExportedNamespace, alt, alt
			}
		}
	}
	if len(all) == 0 {
		out.Found = FoundNone
		out.Note = fmt.Sprintf("no %s series in the window: the catalog's selector {%s} found none, nor did a search for %s with {%s} under any job",
			title, sel, strings.Join(metrics, ", "), matchers)
		if alt, ok := renameMatcher(matchers, "namespace", ExportedNamespace); ok {
			out.Note += fmt.Sprintf(" or with {%s}", alt)
		}
		return out, nil
	}
	cands := sortedCandidates(all, s.Discover.Jobs)
	for i := range cands {
		cands[i].Metrics = seen[scrapeID{cands[i].Job, cands[i].MetricsPath}]
	}
	adopted, err := adoptSelector(s.Selector, cands, nsLabel)
	if err != nil {
		return out, err
	}
	best := cands[0]
	out.Found, out.Selector, out.Candidates = FoundDiscovered, adopted, cands
	out.Ambiguous = len(cands) > 1 && cands[1].Series == best.Series

	var b strings.Builder
	if same, err := sameSelector(adopted, s.Selector); err == nil && same {
		// The identity is the catalog's: only the probe's metric is missing (an older
		// kube-state-metrics, a namespace without HPAs).
		out.Found, out.Selector = FoundCatalog, s.Selector
		fmt.Fprintf(&b, "%s found with the catalog's selector {%s} as %s (%d series of %s", title, sel, identity(best), best.Series, strings.Join(best.Metrics, ", "))
	} else {
		fmt.Fprintf(&b, "%s found as %s (%d series of %s with {%s}; the catalog's selector {%s} found none", title, identity(best), best.Series, strings.Join(best.Metrics, ", "), matchers, sel)
	}
	if nsLabel == ExportedNamespace {
		b.WriteString("; the objects' namespace is in exported_namespace (scraped without honor_labels), and the queries read it from there")
	}
	if !slices.ContainsFunc(best.Metrics, func(m string) bool { return slices.Contains(probed, m) }) {
		fmt.Fprintf(&b, "; its probe %s has none there, so its scrape interval is assumed", probe)
	}
	b.WriteString(")")
	var ties, fewer []string
	for _, c := range cands[1:] {
		if c.Series == best.Series {
			ties = append(ties, identity(c))
		} else {
			fewer = append(fewer, fmt.Sprintf("%s (%d series)", identity(c), c.Series))
		}
	}
	if len(ties) > 0 {
		verb := "has"
		if len(ties) > 1 {
			verb = "have"
		}
		why := "the first by name"
		if jobMatches(best.Job, s.Discover.Jobs) && !jobMatches(cands[1].Job, s.Discover.Jobs) {
			why = "whose job name matches " + strings.Join(s.Discover.Jobs, " or ")
		}
		fmt.Fprintf(&b, "; ambiguous: %s %s as many series; picked %s, %s", strings.Join(ties, " and "), verb, identity(best), why)
	}
	if len(fewer) > 0 {
		fmt.Fprintf(&b, "; also seen, with fewer series: %s", strings.Join(fewer, ", "))
	}
	out.Note = b.String()
	return out, nil
}

// scrapeID is a scrape identity, the key candidates are counted by.
type scrapeID struct{ job, path string }

// groupCount runs count by (job, metrics_path) (last_over_time(sel[rng])) at ts: the
// series of a plain selector seen in the range, per scrape identity.
func groupCount(ctx context.Context, q Querier, sel, rng string, ts time.Time) (map[scrapeID]int, error) {
	expr := fmt.Sprintf("count by (%s) (last_over_time(%s[%s]))", strings.Join(scrapeLabels(), ", "), sel, rng)
	val, _, err := q.Query(ctx, expr, ts)
	if err != nil {
		return nil, &Error{Query: "discover", Expr: expr, Err: err}
	}
	set, err := ToSet(val)
	if err != nil {
		return nil, &Error{Query: "discover", Expr: expr, Err: err}
	}
	out := map[scrapeID]int{}
	for _, s := range set {
		out[scrapeID{s.Labels["job"], s.Labels["metrics_path"]}] += int(s.Points[len(s.Points)-1].V)
	}
	return out, nil
}

// sortedCandidates orders candidates by the choice rule (see [Discover]).
func sortedCandidates(m map[scrapeID]int, jobs []string) []Candidate {
	out := make([]Candidate, 0, len(m))
	for id, n := range m {
		out = append(out, Candidate{Job: id.job, MetricsPath: id.path, Series: n})
	}
	slices.SortFunc(out, func(a, b Candidate) int {
		if c := cmp.Compare(b.Series, a.Series); c != 0 {
			return c
		}
		am, bm := jobMatches(a.Job, jobs), jobMatches(b.Job, jobs)
		if am != bm {
			if am {
				return -1
			}
			return 1
		}
		return cmp.Or(strings.Compare(a.Job, b.Job), strings.Compare(a.MetricsPath, b.MetricsPath))
	})
	return out
}

func jobMatches(job string, hints []string) bool {
	job = strings.ToLower(job)
	return job != "" && slices.ContainsFunc(hints, func(h string) bool { return h != "" && strings.Contains(job, strings.ToLower(h)) })
}

// adoptSelector rewrites a selector template for the first candidate: its job and
// metrics_path matchers replaced by the candidate's identity, its namespace matcher
// put on nsLabel, every other matcher kept.
func adoptSelector(tmpl string, cands []Candidate, nsLabel string) (string, error) {
	ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector("{" + tmpl + "}")
	if err != nil {
		return "", fmt.Errorf("rewrite selector %q: template actions must sit inside quoted values: %w", tmpl, err)
	}
	best := cands[0]
	parts := []string{promlabels.MustNewMatcher(promlabels.MatchEqual, "job", best.Job).String()}
	pathNeeded := best.MetricsPath != "" || slices.ContainsFunc(cands[1:], func(c Candidate) bool { return c.Job == best.Job && c.MetricsPath != "" })
	if pathNeeded {
		parts = append(parts, promlabels.MustNewMatcher(promlabels.MatchEqual, "metrics_path", best.MetricsPath).String())
	}
	for _, m := range ms {
		if m.Name == "namespace" {
			m = promlabels.MustNewMatcher(m.Type, nsLabel, m.Value)
		}
		if !slices.Contains(scrapeLabels(), m.Name) {
			parts = append(parts, m.String())
		}
	}
	return strings.Join(parts, ", "), nil
}

// renameMatcher returns matchers (without braces) with the matcher on label from put on
// label to; ok is false when there is none.
func renameMatcher(matchers, from, to string) (string, bool) {
	ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector("{" + matchers + "}")
	if err != nil {
		return "", false
	}
	parts := make([]string, 0, len(ms))
	found := false
	for _, m := range ms {
		if m.Name == from {
			m, found = promlabels.MustNewMatcher(m.Type, to, m.Value), true
		}
		parts = append(parts, m.String())
	}
	return strings.Join(parts, ", "), found
}

// probeMetrics are the metric names a probe selects: its name, or the names of its
// __name__ matcher (one name, or an alternation of names).
func probeMetrics(vs *parser.VectorSelector) []string {
	if vs.Name != "" {
		return []string{vs.Name}
	}
	for _, m := range vs.LabelMatchers {
		if m.Name != model.MetricNameLabel {
			continue
		}
		switch m.Type {
		case promlabels.MatchEqual:
			return []string{m.Value}
		case promlabels.MatchRegexp:
			names := strings.Split(m.Value, "|")
			if !slices.ContainsFunc(names, func(n string) bool { return !model.LegacyValidation.IsValidMetricName(n) }) {
				return names
			}
		}
	}
	return nil
}

// sameSelector reports whether two selector templates have the same matchers, in any
// order.
func sameSelector(a, b string) (bool, error) {
	p := parser.NewParser(parser.Options{})
	norm := func(s string) ([]string, error) {
		ms, err := p.ParseMetricSelector("{" + s + "}")
		if err != nil {
			return nil, err
		}
		out := make([]string, 0, len(ms))
		for _, m := range ms {
			out = append(out, m.String())
		}
		slices.Sort(out)
		return out, nil
	}
	na, err := norm(a)
	if err != nil {
		return false, err
	}
	nb, err := norm(b)
	if err != nil {
		return false, err
	}
	return slices.Equal(na, nb), nil
}

// selectorOf renders a source's selector for v without the extra selector.
func (c *Catalog) selectorOf(source string, v Vars) (string, error) {
	v.Selector = nil
	d, err := c.data(v)
	if err != nil {
		return "", err
	}
	return d.Sel[source], nil
}

// searchMatchers are the matchers Discover searches a source's metrics with: the
// source's rendered selector without its scrape-identity matchers, and the extra
// selector (kept whatever its labels).
func (c *Catalog) searchMatchers(source string, v Vars) (string, error) {
	sel, err := c.selectorOf(source, v)
	if err != nil {
		return "", err
	}
	ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector("{" + sel + "}")
	if err != nil {
		return "", fmt.Errorf("parse selector of source %q: %w", source, err)
	}
	var parts []string
	for _, m := range ms {
		if !slices.Contains(scrapeLabels(), m.Name) {
			parts = append(parts, m.String())
		}
	}
	extra, err := selectorText(v.Selector)
	if err != nil {
		return "", err
	}
	return joinMatchers(strings.Join(parts, ", "), extra), nil
}

// sourceTitle is how notes name a source: its description up to " (" or " through "
// ("kube-state-metrics", "cAdvisor", "RDS"), else its name.
func sourceTitle(name string, s Source) string {
	t := s.Description
	for _, sep := range []string{" (", " through "} {
		t, _, _ = strings.Cut(t, sep)
	}
	if t = strings.TrimSpace(t); t == "" {
		return name
	}
	return t
}

// identity is how notes name a scrape identity: job=kubelet, metrics_path=/metrics/cadvisor.
func identity(c Candidate) string {
	if c.Job == "" && c.MetricsPath == "" {
		return "series without a job label"
	}
	s := "job=" + c.Job
	if c.Job == "" {
		s = "no job label"
	}
	if c.MetricsPath != "" {
		s += ", metrics_path=" + c.MetricsPath
	}
	return s
}

func candidateList(cs []Candidate) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s (%s)", identity(c), fmt.Sprintf("%d series", c.Series)))
	}
	return strings.Join(parts, ", ")
}
