package sim

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newTestCluster(t *testing.T, yaml string) *Cluster {
	t.Helper()
	p, err := ParseProfile([]byte(yaml), "test.yaml")
	require.NoError(t, err)
	c, err := NewCluster(p, simStart)
	require.NoError(t, err)
	return c
}

func countBy(outs []*outcome) map[string]int {
	m := map[string]int{}
	for _, o := range outs {
		key := http.StatusText(o.res.Status)
		if o.res.Reason != "" {
			key = o.res.Reason
		}
		m[key]++
	}
	return m
}

func TestHPAStatusReportsSpecReplicasAtLastSync(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m}, limits: {cpu: 400m}}
    threads: 4
    request: {cpu: 20ms}
    startup: {image_pull: 20s}
    hpa: {min_replicas: 2, max_replicas: 10, target_cpu_utilization: 50}
`)
	var first, next *DeploymentSnapshot
	openLoop(t, c, "api", 3*time.Minute, func(time.Duration) float64 { return 30 }, func() {
		d, _ := c.Deployment("api")
		switch {
		case first == nil && d.SpecReplicas != 2:
			first = &d
		case first != nil && next == nil && d.HPA.CurrentReplicas != 2:
			next = &d
		}
	})
	require.NotNil(t, first)
	require.NotNil(t, next)
	// The sync that scaled wrote current = the spec it found (2) and desired = the new spec.
	require.Equal(t, int32(2), first.HPA.CurrentReplicas)
	require.Equal(t, int32(first.SpecReplicas), first.HPA.DesiredReplicas)
	require.Equal(t, 4, first.SpecReplicas, "legacy scale-up limit max(2×2, 4)")
	// The new pods take 20 s to pull: at the next sync the spec is 4 but only 2 are Ready.
	require.Equal(t, int32(4), next.HPA.CurrentReplicas)
	require.Equal(t, 2, next.ReadyReplicas)
}

func TestBehaviorPolicyLimitsScaleUpInCluster(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m}, limits: {cpu: 1}}
    threads: 8
    request: {cpu: 20ms}
    hpa:
      min_replicas: 2
      max_replicas: 10
      target_cpu_utilization: 50
      behavior:
        scale_up:
          policies: [{type: Pods, value: 1, period_seconds: 60}]
`)
	var changes []time.Duration
	var specs []int
	last := 2
	openLoop(t, c, "api", 4*time.Minute, func(time.Duration) float64 { return 50 }, func() {
		d, _ := c.Deployment("api")
		if d.SpecReplicas != last {
			last = d.SpecReplicas
			changes = append(changes, c.Now().Sub(simStart))
			specs = append(specs, d.SpecReplicas)
		}
	})
	require.GreaterOrEqual(t, len(specs), 3)
	for i, s := range specs {
		require.Equal(t, 3+i, s, "one pod per period")
		if i > 0 {
			require.GreaterOrEqual(t, changes[i]-changes[i-1], 60*time.Second)
		}
	}
}

func TestRequestsFailAsTheModelDictates(t *testing.T) {
	t.Parallel()
	t.Run("no ready endpoints", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms}
`)
		for _, pd := range c.byName["api"].pods {
			pd.ready = false
		}
		var got Result
		require.NoError(t, c.Submit("api", func(r Result) { got = r }))
		require.Equal(t, Result{Status: 503, Reason: ReasonNoEndpoints}, got)
	})
	t.Run("pool timeout", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m}}
    threads: 8
    request: {cpu: 1ms, db_queries: 1}
    pool: {size: 1, timeout: 500ms}
database:
  query_latency: 200ms
`)
		outs := openLoop(t, c, "api", 10*time.Second, func(time.Duration) float64 { return 20 }, nil)
		counts := countBy(outs)
		require.Positive(t, counts[ReasonPoolTimeout])
		require.Positive(t, counts["OK"])
	})
	t.Run("database max connections", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, `services:
  - name: api
    replicas: 3
    resources: {requests: {cpu: 100m}}
    threads: 8
    request: {cpu: 1ms, db_queries: 1}
    pool: {size: 5, warm: 0}
database:
  max_connections: 4
  base_connections: 1
  query_latency: 100ms
`)
		outs := openLoop(t, c, "api", 5*time.Second, func(time.Duration) float64 { return 100 }, nil)
		require.Positive(t, countBy(outs)[ReasonDBConnections])
		require.Equal(t, 4, c.Snapshot().Database.Connections)
	})
	t.Run("queue full and server timeout", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m}, limits: {cpu: 100m}}
    concurrency: 1
    queue: {max: 5}
    request: {cpu: 50ms, timeout: 2s}
`)
		outs := openLoop(t, c, "api", 10*time.Second, func(time.Duration) float64 { return 20 }, nil)
		counts := countBy(outs)
		require.Positive(t, counts[ReasonQueueFull])
		require.Positive(t, counts["OK"])
	})
	t.Run("downstream failure", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, `services:
  - name: front
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms, calls: [back]}
  - name: back
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms}
`)
		for _, pd := range c.byName["back"].pods {
			pd.ready, pd.readyAt = false, simStart.Add(time.Hour) // readiness probe failing
		}
		outs := openLoop(t, c, "front", time.Second, func(time.Duration) float64 { return 10 }, nil)
		require.Equal(t, map[string]int{ReasonDownstream: 10}, countBy(outs))
		require.Equal(t, 502, outs[0].res.Status)
	})
}

func TestIdleScaleDownDrainsAndRemovesPods(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `hpa_controller: {downscale_stabilization: 30s}
services:
  - name: api
    replicas: 4
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms}
    hpa: {min_replicas: 1, max_replicas: 4, target_cpu_utilization: 50}
`)
	before := map[string]bool{}
	for _, p := range c.Snapshot().Pods {
		before[p.Name] = true
	}
	c.Advance(simStart.Add(2 * time.Minute))
	d, _ := c.Deployment("api")
	require.Equal(t, 1, d.SpecReplicas, "idle: scaled to min after the 30 s window")
	require.Equal(t, 1, d.ReadyReplicas)
	require.Len(t, c.Snapshot().Pods, 1, "terminated pods drained and removed")
}

func TestDatabaseMetricsFollowLoad(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    replicas: 2
    resources: {requests: {cpu: 1}}
    threads: 16
    request: {cpu: 1ms, db_queries: 4}
    pool: {size: 10}
database:
  vcpus: 2
  query_cpu: 20ms
  query_latency: 1ms
  background_cpu_percent: 2
  credits: {initial: 1, earn_per_hour: 12, max: 288, baseline_percent: 20}
`)
	// Idle minute: CloudWatch publishes background CPU only.
	c.Advance(simStart.Add(61 * time.Second))
	db := c.Snapshot().Database
	require.True(t, db.Published)
	require.InDelta(t, 2.0, db.CloudWatch.CPUUtilization, 0.01)
	idleFree := db.CloudWatch.FreeableMemory
	// 40 RPS × 4 queries × 20 ms = 3.2 vCPU demanded of 2: saturated, credits drain.
	outs := openLoop(t, c, "api", 3*time.Minute, func(time.Duration) float64 { return 40 }, nil)
	db = c.Snapshot().Database
	require.Zero(t, db.CPUCreditBalance, "credits spent")
	require.Greater(t, db.Connections, 2)
	require.Less(t, db.CloudWatch.FreeableMemory, idleFree)
	// At zero credits the instance is held to its 20% baseline.
	require.InDelta(t, 20.0, db.CloudWatch.CPUUtilization, 1.0)
	var lat []time.Duration
	for _, o := range outs[len(outs)/2:] {
		lat = append(lat, o.res.Latency)
	}
	require.Greater(t, percentile(lat, 0.5), time.Second, "queries slow down when the database is saturated")
}

func TestEndpointsSetCostByPathPrefix(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `node: {cpus: 8}
services:
  - name: api
    resources: {requests: {cpu: 1}}
    threads: 8
    request: {cpu: 10ms}
    endpoints:
      - path: /coupons
        request: {cpu: 40ms, calls: [ledger/entries]}
      - path: /coupons/poll
        request: {cpu: 5ms}
  - name: ledger
    resources: {requests: {cpu: 1}}
    request: {cpu: 1ms}
    endpoints:
      - path: /entries
        request: {cpu: 100ms}
`)
	lat := map[string]time.Duration{}
	for _, path := range []string{"/", "/coupons/42", "/coupons/poll"} {
		require.NoError(t, c.SubmitPath("api", path, func(r Result) {
			require.Equal(t, 200, r.Status)
			lat[path] = r.Latency
		}))
	}
	c.Advance(simStart.Add(time.Second))
	require.Equal(t, 10*time.Millisecond, lat["/"])
	require.Equal(t, 5*time.Millisecond, lat["/coupons/poll"], "longest prefix wins")
	// 40 ms here, then 100 ms on ledger's /entries endpoint.
	require.Equal(t, 140*time.Millisecond, lat["/coupons/42"])
}

func TestEventsTellTheScaleUpStory(t *testing.T) {
	t.Parallel()
	c, err := NewCluster(mustLoad(t, "../../examples/cluster-shoong.yaml"), simStart)
	require.NoError(t, err)
	var events []Event
	c.OnEvent(func(e Event) {
		if e.Service == "order" {
			events = append(events, e)
		}
	})
	openLoop(t, c, "order", 2*time.Minute, func(time.Duration) float64 { return 50 }, nil)
	require.NotEmpty(t, events)
	require.Equal(t, EventScaled, events[0].Kind)
	require.Equal(t, 2, events[0].From)
	require.Equal(t, 4, events[0].To)
	require.Equal(t, "ScaleUpLimit", events[0].Reason)
	created, ready := map[string]Event{}, map[string]Event{}
	for _, e := range events {
		switch e.Kind {
		case EventPodCreated:
			created[e.Pod] = e
		case EventPodReady:
			ready[e.Pod] = e
		}
	}
	require.Len(t, created, 3, "2→4→5")
	for name, cr := range created {
		r, ok := ready[name]
		require.True(t, ok, "%s never ready", name)
		require.InDelta(t, float64(cr.StartUp), float64(r.At.Sub(cr.At)), float64(StepDuration), "ready after its drawn start-up")
	}
}

func TestScaleDownDeletesMostRecentlyReadyFirst(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    replicas: 3
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms}
`)
	s := c.byName["api"]
	for i, pd := range s.pods {
		pd.readyAt = simStart.Add(-time.Duration(10-i) * time.Minute) // the last pod became Ready last
	}
	newest := s.pods[2].name
	s.specReplicas = 2
	c.Step()
	var names []string
	for _, p := range c.Snapshot().Pods {
		names = append(names, p.Name)
	}
	require.Len(t, names, 2)
	require.NotContains(t, names, newest)
}

func TestNewClusterValidatesProfilesBuiltInCode(t *testing.T) {
	t.Parallel()
	_, err := NewCluster(nil, simStart)
	require.EqualError(t, err, "new cluster: no profile")
	_, err = NewCluster(&Profile{}, simStart)
	require.EqualError(t, err, "new cluster: profile: services: expected at least one service")
	p := &Profile{Services: []ServiceSpec{{Name: "api", Resources: ResourcesSpec{Requests: ResourceList{CPU: 100}}, Request: RequestSpec{CPU: Duration(time.Millisecond)}}}}
	c, err := NewCluster(p, simStart)
	require.NoError(t, err)
	require.Equal(t, 0.1, *p.Controller.Tolerance, "defaults filled in")
	var got Result
	require.NoError(t, c.Submit("api", func(r Result) { got = r }))
	c.Advance(simStart.Add(time.Second))
	require.Equal(t, 200, got.Status)
}

// A new cluster is one that has been running: every HPA has synced before (current =
// desired = the Deployment's replicas, with a metric), the pods are Ready and CloudWatch
// has a period, from the first instant through the first HPA syncs and metrics-server
// scrapes. A status that started at zero made the correlator see a 0→2 scale step.
func TestNewClusterStartsSettled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		yaml        string
		metricValid bool
		utilization int32
	}{
		{"at min replicas", `services:
  - name: api
    replicas: 2
    resources: {requests: {cpu: 100m}, limits: {cpu: 200m}}
    idle_cpu: 2m
    request: {cpu: 10ms}
    hpa: {min_replicas: 2, max_replicas: 5, target_cpu_utilization: 70}
`, true, 2},
		{"above min replicas, with behavior", `services:
  - name: api
    replicas: 3
    resources: {requests: {cpu: 200m}}
    idle_cpu: 10m
    request: {cpu: 10ms}
    hpa:
      min_replicas: 2
      max_replicas: 5
      target_cpu_utilization: 50
      behavior: {scale_up: {policies: [{type: Pods, value: 1, period_seconds: 60}]}}
database:
  credits: {initial: 30, earn_per_hour: 12, max: 288, baseline_percent: 20}
`, true, 5},
		{"pool connections at start", `services:
  - name: api
    replicas: 2
    resources: {requests: {cpu: 100m}}
    request: {cpu: 10ms, db_queries: 1}
    pool: {size: 5, warm: 2}
    hpa: {min_replicas: 2, max_replicas: 5, target_cpu_utilization: 70}
database: {base_connections: 4}
`, true, 0},
		{"no idle cpu", `services:
  - name: api
    replicas: 4
    resources: {requests: {cpu: 100m}}
    request: {cpu: 10ms}
    hpa: {min_replicas: 1, max_replicas: 5, target_cpu_utilization: 70}
`, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newTestCluster(t, tc.yaml)
			want := c.p.Services[0].Replicas
			var wantConns float64
			first := c.Snapshot()
			if db := first.Database; db != nil {
				require.True(t, db.Published, "CloudWatch has a period before the start")
				require.InDelta(t, c.p.Database.BackgroundCPUPercent, db.CloudWatch.CPUUtilization, 1e-9)
				wantConns = float64(db.Connections)
				require.GreaterOrEqual(t, wantConns, float64(c.p.Database.BaseConnections))
				if pl := c.p.Services[0].Pool; pl.Size > 0 && pl.Warm != nil {
					require.Equal(t, c.p.Database.BaseConnections+want*(*pl.Warm), db.Connections, "warm pools open")
				}
			}
			// Past the first HPA sync (15 s) and metrics-server scrape (15 s), twice.
			for at := time.Duration(0); at <= 40*time.Second; at += time.Second {
				c.Advance(simStart.Add(at))
				d, ok := c.Deployment("api")
				require.True(t, ok)
				require.Equal(t, want, d.SpecReplicas, "at +%s", at)
				require.Equal(t, want, d.ReadyReplicas, "pods Ready at +%s", at)
				require.Equal(t, int32(want), d.HPA.CurrentReplicas, "current at +%s", at)
				require.Equal(t, int32(want), d.HPA.DesiredReplicas, "desired at +%s", at)
				require.Equal(t, tc.metricValid, d.HPA.MetricValid, "metric at +%s", at)
				if tc.metricValid && at < 10*time.Second {
					require.Equal(t, tc.utilization, d.HPA.CurrentUtilization, "idle utilization at +%s", at)
				}
				if db := c.Snapshot().Database; db != nil {
					require.True(t, db.Published)
					if at < 50*time.Second {
						require.InDelta(t, wantConns, db.CloudWatch.DatabaseConnections, 1e-9, "idle connections at +%s", at)
					}
				}
			}
		})
	}
}
