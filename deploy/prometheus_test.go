package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/internal/query"
)

// promConfig is the part of prometheus.yml the tests check.
type promConfig struct {
	Global struct {
		ScrapeInterval model.Duration `yaml:"scrape_interval"`
	} `yaml:"global"`
	RuleFiles     []string `yaml:"rule_files"`
	ScrapeConfigs []struct {
		JobName        string           `yaml:"job_name"`
		ScrapeInterval model.Duration   `yaml:"scrape_interval"`
		ScrapeTimeout  model.Duration   `yaml:"scrape_timeout"`
		MetricsPath    string           `yaml:"metrics_path"`
		HonorLabels    bool             `yaml:"honor_labels"`
		RelabelConfigs []map[string]any `yaml:"relabel_configs"`
	} `yaml:"scrape_configs"`
}

func loadPromConfig(t *testing.T) promConfig {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("prometheus", "prometheus.yml"))
	require.NoError(t, err)
	var c promConfig
	require.NoError(t, yaml.Unmarshal(raw, &c))
	return c
}

// TestScrapeIntervalsMakeFactsPrecise pins the cadence of each source (reference/k8s.md
// §1.5, §2, §4, §8) and that every job's resulting labels match the selectors of the
// correlator's catalog, which the dashboards share.
func TestScrapeIntervalsMakeFactsPrecise(t *testing.T) {
	t.Parallel()
	c := loadPromConfig(t)
	type want struct {
		interval time.Duration
		// labels the job's series get (job and relabelled target labels)
		labels map[string]string
	}
	wants := map[string]want{
		"kube-state-metrics": {5 * time.Second, map[string]string{"job": "kube-state-metrics"}},
		"kubelet-cadvisor":   {10 * time.Second, map[string]string{"job": "kubelet", "metrics_path": "/metrics/cadvisor"}},
		"yace":               {60 * time.Second, map[string]string{"job": "yace"}},
	}
	seen := map[string]bool{}
	for _, sc := range c.ScrapeConfigs {
		require.False(t, seen[sc.JobName], "duplicate job %s", sc.JobName)
		seen[sc.JobName] = true
		w, ok := wants[sc.JobName]
		if !ok {
			continue
		}
		require.Equal(t, w.interval, time.Duration(sc.ScrapeInterval), sc.JobName)
		require.LessOrEqual(t, time.Duration(sc.ScrapeTimeout), time.Duration(sc.ScrapeInterval), sc.JobName)
		labels := map[string]string{"job": sc.JobName}
		for _, rc := range sc.RelabelConfigs {
			if tl, _ := rc["target_label"].(string); tl != "" && rc["source_labels"] == nil {
				labels[tl], _ = rc["replacement"].(string)
			}
		}
		for k, v := range w.labels {
			require.Equal(t, v, labels[k], "%s: label %s", sc.JobName, k)
		}
		if sc.JobName != "yace" {
			require.True(t, sc.HonorLabels, "%s: the exporter's namespace/pod labels must win", sc.JobName)
		}
	}
	for job := range wants {
		require.True(t, seen[job], "missing scrape job %s", job)
	}

	// The catalog's selectors select these jobs.
	cat, err := query.Default()
	require.NoError(t, err)
	require.Contains(t, cat.Sources["ksm"].Selector, `job="kube-state-metrics"`)
	require.Contains(t, cat.Sources["cadvisor"].Selector, `job="kubelet", metrics_path="/metrics/cadvisor"`)
	// Grafana's $__rate_interval (4 × the data source's timeInterval) spans at least
	// 4 samples of the fastest-changing cluster source it is used with (cAdvisor).
	require.Contains(t, string(mustRead(t, filepath.Join("grafana", filepath.FromSlash(dashboards.DatasourceFile)))), "timeInterval: 10s")
}

func TestRuleFilesExist(t *testing.T) {
	t.Parallel()
	c := loadPromConfig(t)
	require.NotEmpty(t, c.RuleFiles)
	n := 0
	for _, pattern := range c.RuleFiles {
		matches, err := filepath.Glob(filepath.Join("prometheus", pattern))
		require.NoError(t, err)
		n += len(matches)
	}
	require.Positive(t, n, "rule_files match no file")
}

// TestGrafanaComposeMountsGeneratedDashboards: the local Grafana mounts the generated
// dashboards where the provisioning provider looks for them, and the provisioning it
// mounts exists.
func TestGrafanaComposeMountsGeneratedDashboards(t *testing.T) {
	t.Parallel()
	var compose struct {
		Services map[string]struct {
			Volumes []string `yaml:"volumes"`
		} `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(mustRead(t, filepath.Join("grafana", "docker-compose.yaml")), &compose))
	g, ok := compose.Services["grafana"]
	require.True(t, ok)
	targets := map[string]string{}
	for _, v := range g.Volumes {
		parts := strings.Split(v, ":")
		require.GreaterOrEqual(t, len(parts), 2, v)
		src := filepath.Join("grafana", parts[0])
		_, err := os.Stat(src)
		require.NoError(t, err, "compose mounts %s, which does not exist", parts[0])
		targets[parts[1]] = src
	}
	src, ok := targets[dashboards.ProvisionedDashboardsPath]
	require.True(t, ok, "nothing mounted at %s", dashboards.ProvisionedDashboardsPath)
	for _, f := range []string{dashboards.LoadUID + ".json", dashboards.RunCorrelationUID + ".json"} {
		require.FileExists(t, filepath.Join(src, f))
	}
	require.Contains(t, targets, "/etc/grafana/provisioning/dashboards")
	require.Contains(t, targets, "/etc/grafana/provisioning/datasources")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return raw
}
