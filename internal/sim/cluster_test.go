package sim

import (
	"net/http"
	"strings"
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
		require.Equal(t, Result{Status: 503, Reason: ReasonNoEndpoints, Cause: CauseOther}, got, "no HPA is starting pods, no container was OOM-killed")
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

func TestIngressAnswersAsEnvoy(t *testing.T) {
	t.Parallel()
	// One pod at 100m: a 1s request takes 10s; the proxy holds at most 2 at once.
	const profile = `services:
  - name: api
    resources: {requests: {cpu: 100m}, limits: {cpu: 100m}}
    request: {cpu: 1s}
    ingress: {max_pending: 2, route_timeout: 3s}
`
	t.Run("overflow and route timeout", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, profile)
		var got []Result
		for range 3 {
			require.NoError(t, c.Submit("api", func(r Result) { got = append(got, r) }))
		}
		// No step has run yet: the pod's CPU has not been seen saturated.
		require.Equal(t, []Result{{Status: 503, Reason: ReasonOverflow, Cause: CauseOther}}, got, "the third overflows at once")
		c.Advance(simStart.Add(3 * time.Second))
		require.Len(t, got, 3)
		for _, r := range got[1:] {
			require.Equal(t, 504, r.Status)
			require.Equal(t, ReasonRouteTimeout, r.Reason)
			require.Equal(t, CauseCPU, r.Cause, "held by the throttled pod")
			require.Equal(t, 3*time.Second, r.Latency)
		}
		snap := c.Snapshot()
		require.Equal(t, 2, snap.Pods[0].InFlight, "the pod keeps working on timed-out requests")
		// The proxy no longer counts them: a new request is accepted.
		var next Result
		require.NoError(t, c.Submit("api", func(r Result) { next = r }))
		require.Zero(t, next.Status)
	})
	t.Run("request timeout below the route timeout", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, strings.Replace(profile, "request: {cpu: 1s}", "request: {cpu: 1s, timeout: 1s}", 1))
		var got Result
		require.NoError(t, c.Submit("api", func(r Result) { got = r }))
		c.Advance(simStart.Add(2 * time.Second))
		require.Equal(t, Result{Status: 504, Reason: ReasonTimeout, Latency: time.Second, Pod: c.byName["api"].pods[0].name, Cause: CauseCPU}, got)
	})
	t.Run("route timeout 0s disables it, and defaults", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, strings.Replace(profile, "ingress: {max_pending: 2, route_timeout: 3s}", "ingress: {route_timeout: 0s}", 1))
		var got Result
		require.NoError(t, c.Submit("api", func(r Result) { got = r }))
		c.Advance(simStart.Add(11 * time.Second))
		require.Equal(t, 200, got.Status)
		require.InDelta(t, 10*time.Second, got.Latency, float64(200*time.Millisecond))
		in := newTestCluster(t, strings.Replace(profile, "ingress: {max_pending: 2, route_timeout: 3s}", "ingress: {}", 1)).p.Services[0].Ingress
		require.Equal(t, IngressSpec{MaxPending: 1024, RouteTimeout: new(Duration(15 * time.Second)), LBPolicy: LBRoundRobin}, *in)
	})
	t.Run("least request avoids the busy pod", func(t *testing.T) {
		t.Parallel()
		c := newTestCluster(t, `services:
  - name: api
    replicas: 2
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms}
    endpoints: [{path: /slow, request: {cpu: 1h}}]
    ingress: {lb_policy: least_request, route_timeout: 0s}
`)
		busy := c.byName["api"].pods[0]
		for range 20 {
			// Submitted one by one until the busy pod holds 10 slow requests.
			if busy.outstanding < 10 {
				require.NoError(t, c.SubmitPath("api", "/slow", nil))
			}
		}
		require.Equal(t, 10, busy.outstanding)
		onBusy := 0
		for range 200 {
			require.NoError(t, c.Submit("api", func(r Result) {
				if r.Pod == busy.name {
					onBusy++
				}
			}))
			c.Step()
		}
		// Two random picks land both on the busy pod a quarter of the time.
		require.Less(t, onBusy, 80)
	})
}

func TestWarmUpFactorDecays(t *testing.T) {
	t.Parallel()
	w := WarmUpSpec{Duration: Duration(30 * time.Second), CPUFactor: 3}
	for _, tc := range []struct {
		since time.Duration
		want  float64
	}{
		{-time.Second, 3}, {0, 3}, {15 * time.Second, 2}, {30 * time.Second, 1}, {time.Hour, 1},
	} {
		require.InDelta(t, tc.want, w.factor(tc.since), 1e-9, "after %s", tc.since)
	}
	require.Equal(t, 1.0, WarmUpSpec{}.factor(0))
}

func TestWarmUpSlowsAJustReadyPod(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m}}
    request: {cpu: 20ms}
    startup:
      warm_up: {duration: 10s, cpu_factor: 3}
`)
	latency := func() time.Duration {
		var got Result
		require.NoError(t, c.Submit("api", func(r Result) { got = r }))
		c.Advance(c.Now().Add(time.Second))
		require.Equal(t, 200, got.Status)
		return got.Latency
	}
	require.Equal(t, 20*time.Millisecond, latency(), "the cluster's first pods are warm")
	c.byName["api"].pods[0].readyAt = c.Now()
	require.Equal(t, 60*time.Millisecond, latency(), "just Ready: three times the CPU")
	c.Advance(c.Now().Add(10 * time.Second))
	require.Equal(t, 20*time.Millisecond, latency())
}

func TestResponsesCountExternalRequests(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: front
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms, calls: [back]}
    hpa: {min_replicas: 1, max_replicas: 3, target_cpu_utilization: 50}
  - name: back
    resources: {requests: {cpu: 100m}}
    request: {cpu: 1ms}
`)
	openLoop(t, c, "front", time.Second, func(time.Duration) float64 { return 10 }, nil)
	c.Advance(c.Now().Add(time.Second))
	// A start-up gap: the HPA's status says 2 replicas, one is Ready.
	c.byName["front"].hpaStatus.CurrentReplicas = 2
	c.lagged = c.readyLag()
	require.NoError(t, c.Submit("back", nil))
	c.Step()
	c.byName["back"].pods[0].ready = false // no endpoints: 503
	require.NoError(t, c.Submit("back", nil))
	require.NoError(t, c.Submit("back", nil))
	r := c.Snapshot().Responses
	require.Equal(t, ResponseTotals{Total: 13, Failed: 2, FailedInStartupGap: 2, InStartupGap: 3}, r.ResponseTotals)
	require.Equal(t, []ServiceResponses{
		{Service: "front", ResponseTotals: ResponseTotals{Total: 10}},
		{Service: "back", ResponseTotals: ResponseTotals{Total: 3, Failed: 2, FailedInStartupGap: 2, InStartupGap: 3}},
	}, r.Services, "front's calls to back are not counted")
	require.Equal(t, []ResponseCount{
		{Service: "front", Code: 200, Count: 10},
		{Service: "back", Code: 200, StartupGap: true, Count: 1},
		{Service: "back", Code: 503, StartupGap: true, Count: 2},
	}, r.Counts)
	require.Equal(t, StepDuration, r.StartupGap)
}
