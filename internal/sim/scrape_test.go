package sim

import (
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"github.com/stretchr/testify/require"
)

// TestScrapeConfigLoads: Prometheus loads the configuration, with the jobs and paths
// the catalog's default selectors expect, for intervals that are not whole seconds too.
func TestScrapeConfigLoads(t *testing.T) {
	t.Parallel()
	for _, every := range []time.Duration{time.Second, 1500 * time.Millisecond} {
		cfg, err := config.Load(ScrapeConfig("127.0.0.1:9", every), nil)
		require.NoError(t, err, every)
		got := map[string]string{}
		for _, sc := range cfg.ScrapeConfigs {
			got[sc.JobName] = sc.MetricsPath
			require.Equal(t, model.Duration(every), sc.ScrapeInterval, sc.JobName)
		}
		require.Equal(t, map[string]string{"kube-state-metrics": KubeStateMetricsPath, "kubelet": CadvisorPath,
			"yace": RDSPath, "tidemark-sim": MetricsPath}, got)
	}
}
