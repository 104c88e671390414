package sim

import (
	"fmt"
	"net/url"
	"time"

	"github.com/prometheus/common/model"
)

// ScrapeConfig returns a Prometheus configuration that scrapes the server (once
// started) every interval the way a real cluster is scraped (kube-prometheus and
// YACE, as deploy/prometheus/prometheus.yml does): job kube-state-metrics, job kubelet
// with metrics_path="/metrics/cadvisor" on the cAdvisor series, job yace, and the
// simulator's own tidemark_sim_info, tidemark_sim_responses_total and
// tidemark_sim_startup_gap_seconds_total from job tidemark-sim. The demo and the tests that check the
// catalog and the dashboards against the simulator share it.
func (s *Server) ScrapeConfig(interval time.Duration) (string, error) {
	u, err := url.Parse(s.MetricsURL())
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("scrape config: the metrics endpoint %q has no host (is the server started?)", s.MetricsURL())
	}
	return scrapeConfig(u.Host, interval), nil
}

// ScrapeConfigFor is ScrapeConfig for metrics endpoints (MetricsMux's paths) at target
// (host:port).
func ScrapeConfigFor(target string, interval time.Duration) string {
	return scrapeConfig(target, interval)
}

// scrapeConfig is ScrapeConfig for a server at target (host:port).
func scrapeConfig(target string, interval time.Duration) string {
	return fmt.Sprintf(`# Scrape the simulated cluster like kube-prometheus and YACE scrape a real one.
global:
  scrape_interval: %[2]s
  scrape_timeout: %[2]s
scrape_configs:
  - job_name: kube-state-metrics
    honor_labels: true
    metrics_path: %[3]s
    static_configs: [{targets: [%[1]q]}]
  - job_name: kubelet
    honor_labels: true
    metrics_path: %[4]s
    static_configs: [{targets: [%[1]q]}]
    relabel_configs:
      - {target_label: metrics_path, replacement: /metrics/cadvisor}
  - job_name: yace
    honor_labels: true
    metrics_path: %[5]s
    static_configs: [{targets: [%[1]q]}]
  - job_name: tidemark-sim
    metrics_path: %[6]s
    static_configs: [{targets: [%[1]q]}]
    metric_relabel_configs:
      - {source_labels: [__name__], regex: tidemark_sim_(info|responses_total|startup_gap_seconds_total), action: keep}
`, target, model.Duration(interval), KubeStateMetricsPath, CadvisorPath, RDSPath, MetricsPath)
}
