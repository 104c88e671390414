package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/discovery"
	"github.com/stretchr/testify/require"
)

// TestScrapeConfigLoads: Prometheus loads the configuration, with the jobs and paths
// the catalog's default selectors expect, for intervals that are not whole seconds too.
func TestScrapeConfigLoads(t *testing.T) {
	t.Parallel()
	for _, every := range []time.Duration{time.Second, 1500 * time.Millisecond} {
		cfg, err := config.Load(scrapeConfig("127.0.0.1:9", every), nil)
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

// TestServerScrapeConfig: the configuration scrapes the started server's own address.
func TestServerScrapeConfig(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("../../examples/cluster-shoong.yaml")
	require.NoError(t, err)
	srv, err := NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	_, err = srv.ScrapeConfig(time.Second)
	require.ErrorContains(t, err, "is the server started?")
	require.NoError(t, srv.Start(t.Context()))
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	text, err := srv.ScrapeConfig(time.Second)
	require.NoError(t, err)
	cfg, err := config.Load(text, nil)
	require.NoError(t, err)
	host := strings.TrimSuffix(strings.TrimPrefix(srv.MetricsURL(), "http://"), MetricsPath)
	require.Equal(t, model.LabelValue(host), cfg.ScrapeConfigs[0].ServiceDiscoveryConfigs[0].(discovery.StaticConfig)[0].Targets[0]["__address__"])
}
