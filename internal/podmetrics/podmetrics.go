// Package podmetrics gathers the metrics that pods expose on their own /metrics (the
// connection pool of a process-runtime pod, package dbpool) into one exposition, each
// series labelled with its namespace, pod and container as a Prometheus PodMonitor
// (Kubernetes pod discovery) labels the series it scrapes from a pod. One scrape of the
// result is one scrape of every pod, so the simulated cluster needs no per-pod scrape
// targets while its pods come and go.
package podmetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Target is one pod's metrics endpoint and the labels its series get.
type Target struct {
	Namespace, Pod, Container string
	// URL is the pod's metrics URL, such as http://127.0.0.1:41234/metrics.
	URL string
}

// TargetsFunc returns the pods to gather at the time of a scrape.
type TargetsFunc func() []Target

// Gatherer gathers the pods' metrics. It implements prometheus.Gatherer.
type Gatherer struct {
	targets TargetsFunc
	client  *http.Client
	timeout time.Duration
	logger  *slog.Logger
}

var _ prometheus.Gatherer = (*Gatherer)(nil)

// DefaultTimeout bounds one pod's scrape: a pod that does not answer in time (starting,
// terminating, its CPU throttled) is left out of that gather.
const DefaultTimeout = 2 * time.Second

// New returns a Gatherer of the pods targets returns.
func New(targets TargetsFunc, logger *slog.Logger) *Gatherer {
	return &Gatherer{targets: targets, client: &http.Client{}, timeout: DefaultTimeout, logger: logger}
}

// Handler serves the gathered metrics (promhttp, continuing past a pod that fails).
func (g *Gatherer) Handler() http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Gather scrapes every pod at once and merges their families by name. A pod that
// cannot be scraped is left out and named in the returned error, with the others'
// families.
func (g *Gatherer) Gather() ([]*dto.MetricFamily, error) {
	targets := g.targets()
	type result struct {
		t    Target
		fams map[string]*dto.MetricFamily
		err  error
	}
	results := make([]result, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() {
			fams, err := g.scrape(t)
			results[i] = result{t, fams, err}
		})
	}
	wg.Wait()
	merged := map[string]*dto.MetricFamily{}
	var errs []error
	for _, r := range results {
		if r.err != nil {
			g.logger.Debug("Pod metrics not gathered", "pod", r.t.Pod, "err", r.err)
			errs = append(errs, fmt.Errorf("pod %s/%s: %w", r.t.Namespace, r.t.Pod, r.err))
			continue
		}
		for name, f := range r.fams {
			m, ok := merged[name]
			if !ok {
				m = &dto.MetricFamily{Name: f.Name, Help: f.Help, Type: f.Type}
				merged[name] = m
			}
			if m.GetType() != f.GetType() {
				errs = append(errs, fmt.Errorf("pod %s/%s: %s is a %s, other pods' a %s", r.t.Namespace, r.t.Pod, name, f.GetType(), m.GetType()))
				continue
			}
			for _, metric := range f.Metric {
				relabel(metric, r.t)
				m.Metric = append(m.Metric, metric)
			}
		}
	}
	out := make([]*dto.MetricFamily, 0, len(merged))
	for _, f := range merged {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, errors.Join(errs...)
}

// scrape gets and parses one pod's metrics (text format).
func (g *Gatherer) scrape(t Target) (map[string]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET %s: %s", t.URL, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", t.URL, err)
	}
	return fams, nil
}

// relabel adds the pod's labels to m. A label of the pod's own with one of those names
// keeps its value as exported_<name>, as Prometheus does without honor_labels.
func relabel(m *dto.Metric, t Target) {
	add := map[string]string{"namespace": t.Namespace, "pod": t.Pod, "container": t.Container}
	labels := make([]*dto.LabelPair, 0, len(m.Label)+len(add))
	for _, l := range m.Label {
		if _, clash := add[l.GetName()]; clash {
			l = &dto.LabelPair{Name: new("exported_" + l.GetName()), Value: l.Value}
		}
		labels = append(labels, l)
	}
	for name, value := range add {
		if value != "" {
			labels = append(labels, &dto.LabelPair{Name: new(name), Value: new(value)})
		}
	}
	sort.Slice(labels, func(i, j int) bool { return labels[i].GetName() < labels[j].GetName() })
	m.Label = labels
}
