package sim

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// TestOOMKill: a pod whose working set (base + per_request × held requests) reaches its
// memory limit is OOM-killed: every request it holds fails with 502 oom_killed, its
// container restarts (restarts +1, last termination OOMKilled, as kube-state-metrics
// shows them), it is not Ready until its app has started and its probe passed again,
// and its working set is back to base. A second kill waits for the kubelet's back-off.
func TestOOMKill(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m, memory: 48Mi}, limits: {memory: 64Mi}}
    request: {cpu: 50ms}
    memory: {base: 40Mi, per_request: 1Mi}
    startup:
      app_start: {min: 2s, max: 2s}
      readiness: {initial_delay: 0s, period: 1s}
`)
	var held []Result
	// 23 held requests: 63Mi, below the limit.
	for range 23 {
		require.NoError(t, c.Submit("api", func(r Result) { held = append(held, r) }))
	}
	c.Step()
	require.Empty(t, held)
	require.Equal(t, 0, c.Snapshot().Pods[0].Restarts)
	// The 24th reaches 64Mi.
	require.NoError(t, c.Submit("api", func(r Result) { held = append(held, r) }))
	c.Step()
	killedAt := c.Now()
	require.Len(t, held, 24, "every request the pod held fails")
	for _, r := range held {
		require.Equal(t, http.StatusBadGateway, r.Status)
		require.Equal(t, ReasonOOMKilled, r.Reason)
		require.Equal(t, CauseMemory, r.Cause)
	}
	snap := c.Snapshot()
	pod := snap.Pods[0]
	require.False(t, pod.Ready)
	require.Equal(t, 1, pod.Restarts)
	require.Equal(t, "OOMKilled", pod.LastTerminatedReason)
	require.InDelta(t, float64(40<<20), pod.MemoryWorkingSetBytes, 0, "back to base")
	require.Equal(t, 0, pod.Queued+pod.InFlight)

	// While it restarts the service has no Ready pod: memory is why.
	var refused Result
	require.NoError(t, c.Submit("api", func(r Result) { refused = r }))
	require.Equal(t, Result{Status: http.StatusServiceUnavailable, Reason: ReasonNoEndpoints, Cause: CauseMemory}, refused)

	// The first restart is at once: Ready after the 2s app start, at the next probe.
	c.Advance(killedAt.Add(2*time.Second - StepDuration))
	require.False(t, c.Snapshot().Pods[0].Ready)
	c.Advance(killedAt.Add(2*time.Second + StepDuration))
	require.True(t, c.Snapshot().Pods[0].Ready)
	var ok Result
	require.NoError(t, c.Submit("api", func(r Result) { ok = r }))
	c.Advance(c.Now().Add(time.Second))
	require.Equal(t, http.StatusOK, ok.Status)
	require.Empty(t, ok.Cause)

	// The second kill waits 10s for the back-off before the container starts again.
	for range 24 {
		require.NoError(t, c.Submit("api", func(Result) {}))
	}
	c.Step()
	second := c.Now()
	require.Equal(t, 2, c.Snapshot().Pods[0].Restarts)
	c.Advance(second.Add(11 * time.Second))
	require.False(t, c.Snapshot().Pods[0].Ready, "back-off 10s, then the 2s app start")
	c.Advance(second.Add(12*time.Second + StepDuration))
	require.True(t, c.Snapshot().Pods[0].Ready)

	// The simulator's account: the kills and the refusal, by reason and cause.
	f := c.Snapshot().Responses.Failures
	require.Equal(t, []FailureCount{
		{Service: "api", Reason: ReasonNoEndpoints, Cause: CauseMemory, Count: 1, First: killedAt},
		{Service: "api", Reason: ReasonOOMKilled, Cause: CauseMemory, Count: 48, First: killedAt},
	}, f, "ordered by the first one's time, then service and reason")

	// kube-state-metrics' restarts and last termination reason.
	reg := registryFor(t, newKSMCollector(c.Snapshot))
	name := c.Snapshot().Pods[0].Name
	uid := c.Snapshot().Pods[0].UID
	want := `
# HELP kube_pod_container_status_last_terminated_reason Describes the last reason the container was in terminated state.
# TYPE kube_pod_container_status_last_terminated_reason gauge
kube_pod_container_status_last_terminated_reason{container="api",namespace="default",pod="` + name + `",reason="OOMKilled",uid="` + uid + `"} 1
# HELP kube_pod_container_status_restarts_total The number of container restarts per container.
# TYPE kube_pod_container_status_restarts_total counter
kube_pod_container_status_restarts_total{container="api",namespace="default",pod="` + name + `",uid="` + uid + `"} 2
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want),
		"kube_pod_container_status_last_terminated_reason", "kube_pod_container_status_restarts_total"))
}

// TestOOMKillClosesThePool: the killed container's pool connections close with it, and
// the database's connections drop.
func TestOOMKillClosesThePool(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m, memory: 48Mi}, limits: {memory: 64Mi}}
    threads: 8
    request: {cpu: 1ms, db_queries: 1}
    memory: {base: 40Mi, per_request: 1Mi}
    pool: {size: 5, warm: 5}
database:
  base_connections: 2
  query_latency: 5s
`)
	require.Equal(t, 7, c.Snapshot().Database.Connections)
	var got []Result
	for range 30 {
		require.NoError(t, c.Submit("api", func(r Result) { got = append(got, r) }))
	}
	c.Step()
	require.Len(t, got, 30)
	c.Step()
	require.Equal(t, 2, c.Snapshot().Database.Connections, "only the engine's own")
}

func TestProfileRejectsBaseMemoryAtTheLimit(t *testing.T) {
	t.Parallel()
	_, err := ParseProfile([]byte(`services:
  - name: api
    resources: {requests: {cpu: 100m, memory: 32Mi}, limits: {memory: 40Mi}}
    request: {cpu: 1ms}
`), "p.yaml")
	require.ErrorContains(t, err, "services[0].memory.base: expected less than the memory limit (41943040), got 41943040")
}

// TestFailureCauses: every failure carries the resource the simulator knows made it
// fail, and Responses.Failures counts them by reason and cause with the first one's time.
func TestFailureCauses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		profile string
		rate    float64
		d       time.Duration
		// want must be among the causes; every cause is in allowed (want included).
		want    string
		allowed []string
	}{
		{name: "throttled pod, no HPA", rate: 20, d: 10 * time.Second, want: CauseCPU, profile: `services:
  - name: api
    resources: {requests: {cpu: 100m}, limits: {cpu: 100m}}
    request: {cpu: 20ms, timeout: 1s}
`},
		{name: "HPA at max replicas", rate: 60, d: 20 * time.Second, want: CauseReplicas, profile: `services:
  - name: api
    replicas: 2
    resources: {requests: {cpu: 100m}, limits: {cpu: 200m}}
    request: {cpu: 10ms, timeout: 1s}
    hpa: {min_replicas: 1, max_replicas: 2, target_cpu_utilization: 50}
`},
		{name: "pool timeout", rate: 20, d: 10 * time.Second, want: CausePool, profile: `services:
  - name: api
    resources: {requests: {cpu: 100m}}
    threads: 8
    request: {cpu: 1ms, db_queries: 1}
    pool: {size: 1, timeout: 500ms}
database:
  query_latency: 200ms
`},
		// Some got their connection late and ran out of time in the query.
		{name: "deadline while waiting for the pool", rate: 20, d: 10 * time.Second, want: CausePool, allowed: []string{CauseDatabase}, profile: `services:
  - name: api
    resources: {requests: {cpu: 100m}}
    threads: 8
    request: {cpu: 1ms, db_queries: 1, timeout: 300ms}
    pool: {size: 1, timeout: 5s}
database:
  query_latency: 200ms
`},
		{name: "max_connections", rate: 100, d: 5 * time.Second, want: CauseDatabase, profile: `services:
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
`},
		{name: "deadline during a slow query", rate: 5, d: 5 * time.Second, want: CauseDatabase, profile: `services:
  - name: api
    resources: {requests: {cpu: 100m}}
    threads: 8
    request: {cpu: 1ms, db_queries: 1, timeout: 1s}
    pool: {size: 20}
database:
  query_latency: 2s
`},
		{name: "a throttled downstream", rate: 20, d: 10 * time.Second, want: CauseCPU, profile: `services:
  - name: front
    resources: {requests: {cpu: 100m}}
    threads: 8
    request: {cpu: 1ms, calls: [back], timeout: 1s}
  - name: back
    resources: {requests: {cpu: 100m}, limits: {cpu: 100m}}
    request: {cpu: 20ms}
`},
		{name: "memory limit", rate: 40, d: 10 * time.Second, want: CauseMemory, profile: `services:
  - name: api
    resources: {requests: {cpu: 100m, memory: 48Mi}, limits: {memory: 64Mi}}
    request: {cpu: 30ms}
    memory: {base: 40Mi, per_request: 1Mi}
    startup: {app_start: {min: 1s, max: 1s}, readiness: {initial_delay: 0s, period: 1s}}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newTestCluster(t, tc.profile)
			svc := c.Services()[0]
			outs := openLoop(t, c, svc, tc.d, func(time.Duration) float64 { return tc.rate }, nil)
			allowed := append([]string{tc.want}, tc.allowed...)
			failed := 0
			for _, o := range outs {
				if o.res.Status < 500 {
					require.Empty(t, o.res.Cause)
					continue
				}
				failed++
				require.Contains(t, allowed, o.res.Cause, "a %d %s", o.res.Status, o.res.Reason)
			}
			require.Positive(t, failed)
			// Failures counts the answers sent, some of which the loop's last step
			// answered after it stopped looking: never fewer.
			counted, first := 0, time.Time{}
			for _, f := range c.Snapshot().Responses.Failures {
				counted += f.Count
				if f.Cause == tc.want && first.IsZero() {
					first = f.First
				}
			}
			require.Equal(t, failed, counted)
			require.False(t, first.IsZero(), "a failure counted with cause %s", tc.want)
			require.True(t, first.After(simStart))
		})
	}
}

// TestStartupGapFailuresAreStartup: a failure answered while an HPA's current replicas
// are ahead of Ready is the start-up gap's; outside it a saturated pod's CPU is why.
func TestStartupGapFailuresAreStartup(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, `services:
  - name: api
    resources: {requests: {cpu: 100m}, limits: {cpu: 200m}}
    request: {cpu: 10ms, timeout: 1s}
    startup: {app_start: {min: 20s, max: 20s}}
    hpa: {min_replicas: 1, max_replicas: 10, target_cpu_utilization: 50}
`)
	lagged := map[time.Time]bool{}
	outs := openLoop(t, c, "api", 90*time.Second, func(time.Duration) float64 { return 40 },
		func() { lagged[c.Now()] = c.lagged })
	causes := map[string]int{}
	for _, o := range outs {
		if o.res.Status < 500 {
			continue
		}
		causes[o.res.Cause]++
		answered := o.at.Add(o.res.Latency)
		if lagged[answered] {
			require.Equal(t, CauseStartup, o.res.Cause, "answered at %s in the gap", answered)
		} else {
			require.NotEqual(t, CauseStartup, o.res.Cause, "answered at %s outside the gap", answered)
		}
	}
	require.Positive(t, causes[CauseStartup], "%v", causes)
	require.Positive(t, causes[CauseCPU], "before the HPA's first scale-up: %v", causes)
}
