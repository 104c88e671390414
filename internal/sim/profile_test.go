package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestExampleProfilesLoad(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"cluster-shoong.yaml", "cluster-throttle-500m.yaml", "cluster-throttle-1000m.yaml", "cluster-story2-postgres.yaml"} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			p, err := LoadProfile("../../examples/" + f)
			require.NoError(t, err)
			require.NotEmpty(t, p.Services)
			_, err = NewCluster(p, simStart)
			require.NoError(t, err)
		})
	}
	p, err := LoadProfile("../../examples/cluster-shoong.yaml")
	require.NoError(t, err)
	require.Equal(t, "shoong", p.Namespace)
	require.Len(t, p.Services, 4)
	order := p.Services[0]
	require.Equal(t, MilliCPU(100), order.Resources.Requests.CPU)
	require.Equal(t, MilliCPU(200), order.Resources.Limits.CPU)
	require.Equal(t, Bytes(64<<20), order.Resources.Requests.Memory)
	require.Equal(t, 5, order.Pool.Size)
	require.Equal(t, 70, order.HPA.TargetCPUUtilization)
	require.Equal(t, 2, order.Replicas)
	require.Equal(t, []string{"kitchen"}, order.Request.Calls)
	require.Equal(t, 15*time.Second, p.Controller.SyncPeriod.D())
	require.Equal(t, 5*time.Minute, p.Controller.DownscaleStabilization.D())
	require.Equal(t, 12.0, p.Database.Credits.EarnPerHour)

	p, err = LoadProfile("../../examples/cluster-story2-postgres.yaml")
	require.NoError(t, err)
	require.Equal(t, EnginePostgres, p.Database.Engine)
	require.Empty(t, p.Database.DSN, "the demo starts the server")
	require.Equal(t, PoolMetricsHikariCP, p.Services[0].Pool.Metrics)
	// Story 2's arithmetic: 10 TPS at one core and 100ms of CPU per request; two
	// queries of 10ms hold a connection 20ms, so 10 TPS keep well under 30% of 50 busy.
	s := p.Services[0]
	require.Equal(t, 10.0, float64(s.Resources.Limits.CPU)/1000/s.Request.CPU.D().Seconds())
	held := time.Duration(s.Request.DBQueries) * (p.Database.QueryLatency.D() + p.Database.QueryCPU.D())
	require.Less(t, 10*held.Seconds()/float64(s.Pool.Size), 0.3)
}

const minimal = `name: t
services:
  - name: api
    resources:
      requests: {cpu: 100m}
    request:
      cpu: 10ms
`

func TestMinimalProfileDefaults(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile([]byte(minimal), "p.yaml")
	require.NoError(t, err)
	require.Equal(t, "default", p.Namespace)
	require.Equal(t, 2, p.Node.CPUs)
	require.Equal(t, 1, p.Services[0].Replicas)
	require.Equal(t, 1, p.Services[0].Threads)
	require.Equal(t, 15*time.Second, p.MetricsServer.Resolution.D())
	require.Equal(t, time.Minute, p.CloudWatch.Period.D())
	require.Equal(t, 0.1, *p.Controller.Tolerance)
	require.Equal(t, 30*time.Second, p.Controller.InitialReadinessDelay.D())
	// The kubelet's probe defaults: one success, three failures, a 1 s timeout.
	rp := p.Services[0].Startup.Readiness
	require.Equal(t, 1, rp.SuccessThreshold)
	require.Equal(t, 3, rp.FailureThreshold)
	require.Equal(t, time.Second, rp.Timeout.D())
}

func TestBadProfilesFailClearly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml, wantErr string
	}{
		{
			name:    "unknown field lists the expected ones",
			yaml:    "services:\n  - name: api\n    resources:\n      requests: {cpuu: 100m}\n",
			wantErr: `p.yaml:4: unknown field "cpuu" (expected one of: cpu, memory)`,
		},
		{
			name:    "bad cpu quantity",
			yaml:    "services:\n  - name: api\n    resources:\n      requests: {cpu: lots}\n",
			wantErr: `p.yaml:4: services[0].resources.requests.cpu: invalid cpu quantity "lots": expected millicores like 100m or cores like 0.5`,
		},
		{
			name:    "bad duration",
			yaml:    "hpa_controller:\n  sync_period: soon\nservices: []\n",
			wantErr: `p.yaml:2: hpa_controller.sync_period: invalid duration "soon": expected a duration like 15s or 500ms`,
		},
		{
			name:    "wrong type",
			yaml:    "node:\n  cpus: many\nservices: []\n",
			wantErr: "p.yaml:2: node.cpus: cannot unmarshal !!str `many` into int",
		},
		{
			name:    "empty",
			yaml:    "",
			wantErr: "p.yaml: profile is empty",
		},
		{
			name:    "hpa max below min",
			yaml:    minimal + "    hpa:\n      min_replicas: 2\n      max_replicas: 1\n      target_cpu_utilization: 70\n",
			wantErr: "p.yaml:10: services[0].hpa.max_replicas: expected min_replicas (2) to 1000, got 1",
		},
		{
			name: "missing request cpu and bad select policy",
			yaml: "services:\n  - name: api\n    resources:\n      requests: {cpu: 100m}\n    hpa:\n      max_replicas: 3\n      target_cpu_utilization: 50\n      behavior:\n        scale_up:\n          select_policy: Most\n",
			wantErr: "p.yaml:2: services[0].request.cpu: expected a positive cpu time per request, like 10ms\n" +
				"p.yaml:10: services[0].hpa.behavior.scale_up.select_policy: expected Max, Min or Disabled, got \"Most\"",
		},
		{
			name:    "unknown call target",
			yaml:    minimal + "      calls: [kitchen]\n",
			wantErr: `p.yaml:8: services[0].request.calls[0]: expected a service name or service/path, got "kitchen"`,
		},
		{
			name:    "call cycle",
			yaml:    "services:\n  - name: a\n    resources: {requests: {cpu: 1}}\n    request: {cpu: 1ms, calls: [b]}\n  - name: b\n    resources: {requests: {cpu: 1}}\n    request: {cpu: 1ms, calls: [a]}\n",
			wantErr: "p.yaml:1: services: request calls form a cycle: a -> b -> a",
		},
		{
			name:    "queries need a database",
			yaml:    minimal + "      db_queries: 2\n",
			wantErr: "p.yaml:8: services[0].request.db_queries: expected a database section when a service runs queries",
		},
		{
			name:    "no services",
			yaml:    "name: x\n",
			wantErr: "p.yaml:1: services: expected at least one service",
		},
		{
			name:    "non-loopback listen",
			yaml:    minimal + "    listen: 0.0.0.0:8080\n",
			wantErr: `p.yaml:8: services[0].listen: expected a loopback address like 127.0.0.1:8081, got "0.0.0.0:8080"`,
		},
		{
			name:    "bad distribution",
			yaml:    minimal + "    startup:\n      image_pull: {min: 5s}\n",
			wantErr: "p.yaml:9: services[0].startup.image_pull: expected a duration (5s), {min, max} or {median, p95}",
		},
		{
			name:    "negative failure threshold",
			yaml:    minimal + "    startup:\n      readiness: {failure_threshold: -1}\n",
			wantErr: "p.yaml:9: services[0].startup.readiness.failure_threshold: expected 1 to 100, got -1",
		},
		{
			name:    "warm-up factor without a duration",
			yaml:    minimal + "    startup:\n      warm_up: {cpu_factor: 3}\n",
			wantErr: "p.yaml:9: services[0].startup.warm_up.duration: expected a positive duration with cpu_factor, like 30s, got 0s",
		},
		{
			name:    "warm-up factor below 1",
			yaml:    minimal + "    startup:\n      warm_up: {duration: 30s, cpu_factor: 0.5}\n",
			wantErr: "p.yaml:9: services[0].startup.warm_up.cpu_factor: expected a factor from 1 to 100, like 3, got 0.5",
		},
		{
			name: "bad ingress",
			yaml: minimal + "    ingress:\n      max_pending: -1\n      lb_policy: random\n",
			wantErr: "p.yaml:9: services[0].ingress.max_pending: expected 1 to 1000000, got -1\n" +
				`p.yaml:10: services[0].ingress.lb_policy: expected round_robin or least_request, got "random"`,
		},
		{
			name:    "unknown database engine",
			yaml:    "database:\n  engine: oracle\n" + minimal,
			wantErr: `p.yaml:2: database.engine: expected postgres or mariadb, got "oracle"`,
		},
		{
			name:    "dsn without an engine",
			yaml:    "database:\n  dsn: postgres://app:pw@127.0.0.1:5432/shop\n" + minimal,
			wantErr: "p.yaml:2: database.dsn: expected database.engine (postgres or mariadb) with a dsn",
		},
		{
			name:    "unknown pool metrics",
			yaml:    minimal + "    pool: {size: 10, metrics: c3p0}\n",
			wantErr: `p.yaml:8: services[0].pool.metrics: expected hikaricp, prisma or sql, got "c3p0"`,
		},
		{
			name:    "limit below request",
			yaml:    "services:\n  - name: api\n    resources:\n      requests: {cpu: 500m}\n      limits: {cpu: 200m}\n    request: {cpu: 1ms}\n",
			wantErr: "p.yaml:5: services[0].resources.limits.cpu: expected at least the request (500m), got 200m",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseProfile([]byte(tc.yaml), "p.yaml")
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestDistributions(t *testing.T) {
	t.Parallel()
	require.Equal(t, 5*time.Second, Dist{Fixed: 5 * time.Second}.sample(0.3, 1))
	u := Dist{Min: time.Second, Max: 3 * time.Second, kind: distUniform}
	require.Equal(t, 2*time.Second, u.sample(0.5, 0))
	ln := Dist{Median: 2 * time.Second, P95: 20 * time.Second, kind: distLogNormal}
	require.Equal(t, 2*time.Second, ln.sample(0, 0))
	require.InDelta(t, float64(20*time.Second), float64(ln.sample(0, 1.6448536269514722)), float64(time.Millisecond))
	require.Equal(t, 200*time.Second, ln.sample(0, 100), "capped at 10 × p95")
}

func TestReferenceProfile(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("testdata/reference-profile.yaml")
	require.NoError(t, err)
	def, err := ParseProfile([]byte(minimal), "p.yaml")
	require.NoError(t, err)
	// The reference spells out the defaults: both parse to the same controller settings.
	require.Equal(t, def.Controller, p.Controller)
	require.Equal(t, def.MetricsServer, p.MetricsServer)
	require.Equal(t, def.Node, p.Node)
	s, d := p.Services[0], def.Services[0]
	require.Equal(t, d.Threads, s.Threads)
	require.Equal(t, d.Queue, s.Queue)
	require.Equal(t, d.Startup.Readiness, s.Startup.Readiness)
	require.Equal(t, d.TerminationGracePeriod, s.TerminationGracePeriod)
	_, err = NewCluster(p, simStart)
	require.NoError(t, err)
}

func TestTargetDB(t *testing.T) {
	t.Parallel()
	const withDB = `database:
  engine: postgres
  query_latency: 4ms
  query_cpu: 1ms
services:
  - name: api
    resources:
      requests: {cpu: 100m}
    request: {cpu: 10ms, db_queries: 3}
    pool: {size: 8, warm: 2, timeout: 3s, metrics: hikaricp}
  - name: web
    resources:
      requests: {cpu: 100m}
    request: {cpu: 10ms}
`
	p, err := ParseProfile([]byte(withDB), "p.yaml")
	require.NoError(t, err)
	args, env := TargetDB(p.Services[0], p.Database, "postgres://postgres:s3cret@127.0.0.1:5433/postgres", "api-5d8f-x2")
	require.Equal(t, []string{"--db.driver=postgres", "--db.pool.size=8", "--db.pool.min=2", "--db.pool.timeout=3s",
		"--db.pool.metrics=hikaricp", "--db.application-name=api-5d8f-x2", "--db.queries=3", "--db.query-time=5ms"}, args)
	require.Equal(t, []string{"TIDEMARK_DB_DSN=postgres://postgres:s3cret@127.0.0.1:5433/postgres"}, env)
	for _, a := range args {
		require.NotContains(t, a, "s3cret", "the DSN goes by environment only")
	}

	args, env = TargetDB(p.Services[1], p.Database, "postgres://x", "web-1")
	require.Nil(t, args, "a service without db_queries gets no pool")
	require.Nil(t, env)

	// A profile's own dsn wins; mariadb speaks the mysql protocol; metrics default to sql.
	p.Database.Engine, p.Database.DSN = EngineMariaDB, "app:pw@tcp(127.0.0.1:3306)/shop"
	p.Services[0].Pool.Metrics = ""
	args, env = TargetDB(p.Services[0], p.Database, "ignored", "api-1")
	require.Contains(t, args, "--db.driver=mysql")
	require.Contains(t, args, "--db.pool.metrics=sql")
	require.Equal(t, []string{"TIDEMARK_DB_DSN=app:pw@tcp(127.0.0.1:3306)/shop"}, env)

	// Without an engine the database is the RDS model only: no real pool.
	p.Database.Engine, p.Database.DSN = "", ""
	args, env = TargetDB(p.Services[0], p.Database, "postgres://x", "api-1")
	require.Nil(t, args)
	require.Nil(t, env)
}
