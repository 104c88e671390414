//go:build integration

package dashboards

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/sim"
)

// TestClusterPanelsOnTheSimulatedCluster scrapes the simulated cluster (story 1's
// profile) with a real Prometheus, under the job names and labels of
// deploy/prometheus/prometheus.yml (sim.ScrapeConfig), and checks every cluster panel
// of the correlation dashboard (autoscaling, CPU, database) returns data from the
// simulator's series: the dashboards and the simulator agree on names, labels and joins.
func TestClusterPanelsOnTheSimulatedCluster(t *testing.T) {
	p, err := sim.LoadProfile("../examples/cluster-shoong.yaml")
	require.NoError(t, err)
	srv, err := sim.NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	require.NoError(t, srv.Start(context.Background()))
	t.Cleanup(func() { _ = srv.Stop() })
	cfg, err := srv.ScrapeConfig(time.Second)
	require.NoError(t, err)
	prom := promtest.StartPrometheus(t, promtest.WithConfig(cfg))

	client, err := api.NewClient(api.Config{Address: prom.URL})
	require.NoError(t, err)
	papi := v1.NewAPI(client)

	vars := testVars("unused")
	vars["namespace"] = []string{p.Namespace}
	vars["__rate_interval"] = []string{"5s"}
	checked := 0
	for _, qu := range generatedQueries(t) {
		if qu.Dashboard != RunCorrelationUID || strings.Contains(qu.Expr, "k6_") || strings.Contains(qu.Expr, "tidemark_") {
			continue
		}
		if dbExporterOrPool(qu.Expr) {
			continue // the in-memory simulator's database is RDS-named; it has no exporter or pool of its own
		}
		expr, _ := interpolate(qu.Expr, vars)
		name := qu.Panel + " / " + qu.RefID
		// Poll until the scrapes have filled the rate windows (or the deadline passes).
		require.Eventually(t, func() bool {
			now := time.Now()
			v, _, _, err := papi.QueryRange(context.Background(), expr, v1.Range{Start: now.Add(-10 * time.Second), End: now, Step: time.Second})
			return err == nil && promtest.NonEmpty(v)
		}, 60*time.Second, 250*time.Millisecond, "%s returned no data from the simulated cluster:\n%s", name, expr)
		checked++
	}
	require.GreaterOrEqual(t, checked, 15)
}

// dbExporterOrPool reports whether a panel query reads a database exporter's or an
// application pool's series (layouts_integration_test.go and TestEveryPanelQueryReturnsData
// cover those panels).
func dbExporterOrPool(expr string) bool {
	for _, m := range []string{"pg_stat_activity_count", "pg_settings_", "mysql_global_", "hikaricp_", "prisma_", "go_sql_"} {
		if strings.Contains(expr, m) {
			return true
		}
	}
	return false
}
