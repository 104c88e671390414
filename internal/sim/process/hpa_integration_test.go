//go:build integration

package process

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sim"
)

// TestIntegrationHPAScalesProcesses: the HPA reads the pods' real CPU usage from their
// cgroups and starts real processes under load (each in its own cgroup, Ready before it
// gets traffic), then, the load gone, stops them (SIGTERM) and removes their cgroups.
func TestIntegrationHPAScalesProcesses(t *testing.T) {
	bin := tidemarkBinary(t)
	p, err := sim.ParseProfile([]byte(`name: hpa-test
node: {cpus: 2}
hpa_controller: {sync_period: 2s, cpu_initialization_period: 5s, initial_readiness_delay: 1s}
metrics_server: {resolution: 2s}
services:
  - name: api
    resources: {requests: {cpu: 100m}, limits: {cpu: 300m}}
    threads: 4
    request: {cpu: 10ms}
    startup: {readiness: {initial_delay: 0s, period: 1s}}
    termination_grace_period: 2s
    hpa: {min_replicas: 1, max_replicas: 3, target_cpu_utilization: 50}
`), "hpa-test.yaml")
	require.NoError(t, err)
	// A pod's extra flags and environment (where a database pool's go).
	podArgs := func(svc sim.ServiceSpec, pod string) ([]string, []string) {
		return []string{"--pod.request=/extra=1ms"}, []string{"TIDEMARK_TEST_POD=" + svc.Name + "/" + pod}
	}
	rt, err := New(p, promslog.NewNopLogger(), WithBinary(bin), WithFast(4*time.Second), WithPodArgs(podArgs))
	require.NoError(t, err)
	require.NoError(t, rt.Start(t.Context()))
	t.Cleanup(func() { require.NoError(t, rt.Stop()) })
	target, err := rt.FirstServiceURL()
	require.NoError(t, err)

	// Four clients in a closed loop ask for far more than 50% of 100m.
	ctx, stopLoad := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target+"/work", nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				_ = resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	waitFor := func(what string, ok func(sim.Snapshot) bool) sim.Snapshot {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			s := rt.Snapshot()
			if ok(s) {
				return s
			}
			require.True(t, time.Now().Before(deadline), "%s: %+v", what, s.Deployments[0])
			time.Sleep(200 * time.Millisecond)
		}
	}
	up := waitFor("scaled up with Ready pods", func(s sim.Snapshot) bool {
		return s.Deployments[0].SpecReplicas >= 2 && s.Deployments[0].ReadyReplicas >= 2
	})
	require.NotNil(t, up.Deployments[0].HPA)
	require.Greater(t, up.Deployments[0].HPA.CurrentUtilization, int32(50), "the HPA read the real usage over its target")
	sub := rt.Hierarchy().Open(rt.Subtree())
	pods, err := sub.Children()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(pods), 2, "a cgroup per pod")
	var pids []int
	for _, pd := range pods {
		procs, err := rt.Hierarchy().Open(rt.Subtree() + "/" + pd).Procs()
		require.NoError(t, err)
		pids = append(pids, procs...)
		for _, pid := range procs {
			cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			require.NoError(t, err)
			require.Contains(t, strings.Split(string(cmdline), "\x00"), "--pod.request=/extra=1ms", "the pod's extra flags")
			environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			require.NoError(t, err)
			require.Contains(t, strings.Split(string(environ), "\x00"), "TIDEMARK_TEST_POD=api/"+pd, "the pod's extra environment")
		}
	}
	require.GreaterOrEqual(t, len(pids), 2, "a process per pod")
	stopLoad()
	wg.Wait()
	// status.replicas leaves terminating pods out at once; the pods themselves are listed
	// (Terminating) until their processes have exited.
	down := waitFor("scaled in", func(s sim.Snapshot) bool {
		return s.Deployments[0].SpecReplicas == 1 && s.Deployments[0].Replicas == 1 && len(s.Pods) == 1
	})
	require.False(t, down.Pods[0].Terminating)
	deadline := time.Now().Add(30 * time.Second)
	for {
		left, err := sub.Children()
		require.NoError(t, err)
		if len(left) == 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the scaled-in pods' cgroups are removed: %v", left)
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("answers by status: %v; scaled to %d", codes, up.Deployments[0].SpecReplicas)
	require.Positive(t, codes[http.StatusOK])
}
