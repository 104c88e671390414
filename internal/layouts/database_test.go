package layouts

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDatabaseLayoutLabels checks the label sets of the database exporters' and the
// pools' series per install: the job and target labels the scrape adds, and the
// exporters' own labels as Debian's exporters expose them (postgres_exporter 0.11's
// server; none on mysqld_exporter's).
func TestDatabaseLayoutLabels(t *testing.T) {
	t.Parallel()
	const (
		pgSvc = "postgres-exporter-prometheus-postgres-exporter"
		mySvc = "mysql-exporter-prometheus-mysql-exporter"
	)
	for _, tc := range []struct {
		name   string
		o      Options
		metric string            // the server's connections
		server map[string]string // labels of one of its series (a subset)
		pool   string            // a pool metric of pod order-7d9f-a
		pod    map[string]string
		absent []string // label names the pool series must not have
	}{
		{
			name: "static jobs as Debian names them", o: Options{DBExporter: PostgresExporter, Pool: HikariCP},
			metric: "pg_stat_activity_count", server: map[string]string{"job": "postgres", "server": "shoong-db:5432", "datname": "shoong", "state": "active"},
			pool: "hikaricp_connections_active", pod: map[string]string{"job": "app", "namespace": "shoong", "pod": "order-7d9f-a", "pool": "HikariPool-1"},
		},
		{
			name: "§1.1 kube-prometheus-stack: ServiceMonitor of the chart, PodMonitor of the app", o: Options{Layout: KubePrometheusStack, DBExporter: PostgresExporter, Pool: HikariCP},
			metric: "pg_settings_max_connections", server: map[string]string{"job": pgSvc, "service": pgSvc, "namespace": "monitoring", "server": "shoong-db:5432", "endpoint": "http"},
			pool: "hikaricp_connections_max", pod: map[string]string{"job": "shoong/order", "namespace": "shoong", "pod": "order-7d9f-a", "container": "app", "pool": "HikariPool-1"},
		},
		{
			name: "§2 prometheus chart: Service and pod annotations", o: Options{Layout: PrometheusChart, DBExporter: MySQLExporter, Pool: Prisma},
			metric: "mysql_global_status_threads_connected", server: map[string]string{"job": "kubernetes-service-endpoints", "service": mySvc, "namespace": "monitoring", "app_kubernetes_io_name": "prometheus-mysql-exporter"},
			pool: "prisma_pool_connections_busy", pod: map[string]string{"job": "kubernetes-pods", "namespace": "shoong", "pod": "order-7d9f-a", "app": "order"},
			absent: []string{"pool"},
		},
		{
			name: "§3 k8s-monitoring", o: Options{Layout: K8sMonitoring, DBExporter: PostgresExporter, Pool: GoSQL},
			metric: "pg_stat_activity_count", server: map[string]string{"job": pgSvc, "cluster": "prod", "server": "shoong-db:5432"},
			pool: "go_sql_in_use_connections", pod: map[string]string{"job": "order", "namespace": "shoong", "pod": "order-7d9f-a", "db_name": "shoong", "cluster": "prod"},
		},
		{
			name: "no job labels", o: Options{Layout: NoJob, DBExporter: MySQLExporter, Pool: HikariCP},
			metric: "mysql_global_variables_max_connections", server: map[string]string{"job": ""},
			pool: "hikaricp_connections_pending", pod: map[string]string{"job": "", "namespace": "shoong", "pod": "order-7d9f-a"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := Story1(tc.o)
			require.NoError(t, err)
			p := parse(t, f.OpenMetrics())
			var match []string
			for k, v := range tc.server {
				match = append(match, k, v)
			}
			require.NotEmpty(t, p.find(tc.metric, match...), "%s with %v", tc.metric, tc.server)
			match = match[:0]
			for k, v := range tc.pod {
				match = append(match, k, v)
			}
			pods := p.find(tc.pool, match...)
			require.Len(t, pods, 1, "%s with %v", tc.pool, tc.pod)
			for _, l := range tc.absent {
				require.Empty(t, pods[0].Get(l), l)
			}
		})
	}
}

// TestDatabaseTruth checks the generator's database truth against story 1: the pools
// saturate at the load step on the two pods Ready then, queries wait until the
// scale-up's pods are Ready, and the server counts every pod's open connections.
func TestDatabaseTruth(t *testing.T) {
	t.Parallel()
	f, err := Story1(Options{Layout: KubePrometheusStack, DBExporter: PostgresExporter, Pool: HikariCP})
	require.NoError(t, err)
	c := f.Truth.Connections
	// HikariCP keeps its 10 open: 5 pods × 10, the exporter's 2, 3 other clients.
	require.Equal(t, 55.0, c.ConnectionsPeak)
	require.Equal(t, f.Truth.RunFrom.Add((ScaleUp2+1+DBInterval-(ScaleUp2+1-DBOffset)%DBInterval)*time.Second), c.ConnectionsAt, "the first scrape with pod e's pool")
	require.Equal(t, 100.0, c.MaxConnections)
	require.Equal(t, "shoong-db:5432", c.Server)
	require.Equal(t, 1.0, c.BusyShare, "at 50/s on two pods, 12.5 wanted of 10")
	require.Equal(t, 6.0, c.PendingPeak, "3 waiting on each of two pods")
	require.Equal(t, f.Truth.RunFrom.Add((LoadStep+PoolOffset)*time.Second), c.WaitersFirst, "the first pods' scrape after the load step")

	none, err := Story1(Options{Layout: KubePrometheusStack})
	require.NoError(t, err)
	require.Equal(t, DBTruth{}, none.Truth.Connections)
	p := parse(t, none.OpenMetrics())
	require.Empty(t, p.find("pg_up"))
	require.Empty(t, p.find("hikaricp_connections_active"))
}
