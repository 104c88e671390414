package watcher

import (
	"maps"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/regress"
)

// Collector returns a prometheus.Collector that builds, at each scrape, the key facts
// of each group's last runs within the retention (tidemark_fact_*{testid,…}, named and
// labelled as the write-back), their changes (tidemark_fact_regression) and the
// watcher's health
// (tidemark_exporter_*). It is unchecked: the facts' names and labels are known only
// from the history.
func (w *Watcher) Collector() prometheus.Collector { return collector{w: w} }

type collector struct{ w *Watcher }

var _ prometheus.Collector = collector{}

var (
	correlatedDesc = prometheus.NewDesc("tidemark_exporter_runs_correlated_total",
		"Runs this process correlated (a restart starts at 0; runs already in the state file are not correlated again).", nil, nil)
	runsDesc = prometheus.NewDesc("tidemark_exporter_runs",
		"Runs in the history (the state file), correlated or given up on.", nil, nil)
	lastSuccessDesc = prometheus.NewDesc("tidemark_exporter_last_success_timestamp_seconds",
		"When a look for finished runs last completed without a Prometheus or state error (0: never).", nil, nil)
	bottleneckDesc = prometheus.NewDesc(correlator.BottleneckMetric,
		"What limited each correlated run (1 for its resource: cpu, replicas, startup, database, pool, memory, load-generator, none or unknown), as tidemark correlate writes it back.",
		[]string{"testid", "resource"}, nil)
	errorsDesc = prometheus.NewDesc("tidemark_exporter_errors_total",
		"Errors by kind: prometheus (unreachable or failed; retried at the next interval), correlate (one run), report (writing a run's report), state (writing the state file).",
		[]string{"kind"}, nil)
)

// Describe sends nothing: the collector is unchecked.
func (collector) Describe(chan<- *prometheus.Desc) {}

// Collect sends the health metrics, then every run's facts and changes.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	w := c.w
	w.mu.Lock()
	correlated, last := w.correlated, w.lastSuccess
	errs := maps.Clone(w.errors)
	w.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(correlatedDesc, prometheus.CounterValue, correlated)
	ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(w.history.Len()))
	lastV := 0.0
	if !last.IsZero() {
		lastV = float64(last.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(lastSuccessDesc, prometheus.GaugeValue, lastV)
	for _, k := range errorKinds() {
		ch <- prometheus.MustNewConstMetric(errorsDesc, prometheus.CounterValue, errs[k], k)
	}

	h := w.history
	h.mu.RLock()
	defer h.mu.RUnlock()
	h.exposed(func(r *record) {
		for _, f := range r.facts {
			ch <- factMetric(r.testID, f)
		}
		if r.bottleneck != "" {
			ch <- prometheus.MustNewConstMetric(bottleneckDesc, prometheus.GaugeValue, 1, r.testID, r.bottleneck)
		}
		for _, c := range r.changes {
			ch <- changeMetric(r.testID, c)
		}
	})
}

// factMetric is one fact as tidemark_fact_<name>{testid,<labels>}. Facts named *_total
// are counters (a run's count, final once correlated), the others gauges, so that
// promtool's lint accepts the names write-back uses.
func factMetric(testID string, f fact) prometheus.Metric {
	names := []string{"testid"}
	values := []string{testID}
	for i := 0; i+1 < len(f.key.labels); i += 2 {
		names = append(names, f.key.labels[i])
		values = append(values, f.key.labels[i+1])
	}
	help := "Key fact " + f.key.name + " of each correlated run, as tidemark correlate writes it back"
	if f.key.unit != "" {
		help += " (unit: " + f.key.unit + ")"
	}
	desc := prometheus.NewDesc(facts.Prefix+f.key.name, help+".", names, nil)
	vt := prometheus.GaugeValue
	if strings.HasSuffix(f.key.name, "_total") {
		vt = prometheus.CounterValue
	}
	m, err := prometheus.NewConstMetric(desc, vt, f.value, values...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

// Values of tidemark_fact_regression's kind label.
const (
	// KindRegression: the fact got worse.
	KindRegression = "regression"
	// KindImprovement: the fact got better.
	KindImprovement = "improvement"
)

// changeMetric is one change as tidemark_fact_regression{testid,fact,baseline_testid,
// kind,<the fact's labels: object, from, step …>}, valued the change in the fact's unit;
// kind is "regression" or "improvement".
func changeMetric(testID string, c change) prometheus.Metric {
	kind := KindImprovement
	if c.regression {
		kind = KindRegression
	}
	names := []string{"testid", "fact", "baseline_testid", "kind"}
	values := []string{testID, c.fact.key.name, c.baseline, kind}
	for i := 0; i+1 < len(c.fact.key.labels); i += 2 {
		switch n := c.fact.key.labels[i]; n {
		case "testid", "fact", "baseline_testid", "kind":
			continue // cannot happen with write-back's labels; never a duplicate label
		default:
			names = append(names, n)
			values = append(values, c.fact.key.labels[i+1])
		}
	}
	desc := prometheus.NewDesc(regress.RegressionMetric,
		"Change of a run's key fact against the run of its group it is compared with (baseline_testid), in the fact's unit; regressions (kind regression: the fact got worse) and improvements (kind improvement) beyond the fact's resolution and the history's spread.",
		names, nil)
	m, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, c.delta, values...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}
