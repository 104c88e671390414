// Package layouts generates story 1's 10→50 RPS spike as OpenMetrics text, the way each
// common Prometheus install would hold it, for `promtool tsdb create-blocks-from
// openmetrics` and the correlator's integration tests.
//
// One generator writes every layout. The cluster side (kube-state-metrics, cAdvisor) follows
// a [Layout]: the target labels, honor_labels merge, metric relabelling and external labels
// of kube-prometheus-stack, the prometheus-community `prometheus` chart, Grafana
// k8s-monitoring (Alloy), victoria-metrics-k8s-stack, or none of them (see
// shared/reference/prom-layouts.md, whose sections the layouts cite). The kube-state-metrics
// version ([KSMVersion]), the RDS exporter ([RDSExporter]), the k6 side ([K6Side]) and an
// extra cluster label are independent options.
//
// The fixture's [Truth] (window, load step, HPA steps and start-up gaps, throttling onsets,
// database connections, request totals, configured stages) is computed by the generator
// from the same timeline that writes the series, never read back from Tidemark.
//
//	f, err := layouts.Story1(layouts.Options{Layout: layouts.PrometheusChart, K6: layouts.K6Only})
//	om := f.OpenMetrics() // for promtool; layoutstest.Load does it for tests
//	want := f.Truth.HPAs[0].Steps[0].DesiredAt
package layouts
