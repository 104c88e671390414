package process

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/workload"
)

func TestNewErrors(t *testing.T) {
	// Checked before any cgroup is written: a hierarchy in a temporary directory.
	dir := t.TempDir()
	h := cgroup.NewV1(dir, dir)
	p, err := sim.ParseProfile([]byte("services: [{name: api, resources: {requests: {cpu: 100m}}, request: {cpu: 1ms}}]\n"), "p.yaml")
	require.NoError(t, err)
	_, err = New(p, promslog.NewNopLogger(), WithHierarchy(h), WithServiceAddress("web", "127.0.0.1:0"))
	require.EqualError(t, err, `new process runtime: address for unknown service "web"`)
	withDB, err := sim.ParseProfile([]byte("database: {}\nservices: [{name: api, resources: {requests: {cpu: 100m}}, request: {cpu: 1ms}}]\n"), "db.yaml")
	require.NoError(t, err)
	_, err = New(withDB, promslog.NewNopLogger(), WithHierarchy(h))
	require.ErrorContains(t, err, "the profile's simulated database is not supported by the process runtime")
	// A hierarchy that cannot be written: the error names the cgroup and what is needed.
	file := t.TempDir() + "/not-a-dir"
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = New(p, promslog.NewNopLogger(), WithHierarchy(cgroup.NewV1(file, file)))
	require.ErrorContains(t, err, "create cgroup "+file+"/tidemark")
	require.ErrorContains(t, err, "the process runtime needs root and a writable cgroup cpu controller")
}

// TestResponsesFailureCauses: the load balancer's answers as the snapshot's truth, each
// failure with the reason and cause the runtime can know (failureCause): the pod's
// account of its queue and its database work, no Ready pod inside or outside a start-up
// gap, and anything else "other".
func TestResponsesFailureCauses(t *testing.T) {
	r := &Runtime{services: []*service{{spec: sim.ServiceSpec{Name: "orders"}}}, resp: map[respKey]int{}, fails: map[failKey]*sim.FailureCount{}}
	r.countResponse(0, http.StatusOK, "")
	r.countResponse(0, http.StatusInternalServerError, workload.FailurePoolTimeout)
	r.countResponse(0, http.StatusInternalServerError, workload.FailurePoolTimeout)
	r.countResponse(0, http.StatusInternalServerError, workload.FailureDatabase)
	r.countResponse(0, http.StatusServiceUnavailable, workload.FailureQueueFull)
	r.countResponse(0, http.StatusServiceUnavailable, sim.ReasonNoEndpoints)
	r.countResponse(0, http.StatusBadGateway, reasonUpstream)
	r.countResponse(0, http.StatusGatewayTimeout, "")
	got := r.responses()
	require.Equal(t, 8, got.Total)
	require.Equal(t, 7, got.Failed)
	var kinds []string
	for i, f := range got.Failures {
		kinds = append(kinds, fmt.Sprintf("%s %s %s %d", f.Service, f.Reason, f.Cause, f.Count))
		require.False(t, f.First.IsZero())
		if i > 0 {
			require.False(t, f.First.Before(got.Failures[i-1].First), "ordered by the first one's time")
		}
	}
	require.ElementsMatch(t, []string{
		"orders pool_timeout pool 2", "orders db_error database 1", "orders queue_full cpu 1", "orders no_ready_endpoints other 1",
		"orders upstream_error other 1", "orders status_504 other 1",
	}, kinds)

	for _, tc := range []struct {
		reason     string
		st         serviceState
		wantReason string
		wantCause  string
	}{
		{workload.FailureQueueTimeout, serviceState{gap: true, atMax: true}, sim.ReasonQueueTimeout, sim.CauseStartup},
		{workload.FailureQueueTimeout, serviceState{atMax: true}, sim.ReasonQueueTimeout, sim.CauseReplicas},
		{workload.FailureQueueFull, serviceState{}, sim.ReasonQueueFull, sim.CauseCPU},
		{sim.ReasonNoEndpoints, serviceState{gap: true}, sim.ReasonNoEndpoints, sim.CauseStartup},
		{sim.ReasonNoEndpoints, serviceState{}, sim.ReasonNoEndpoints, sim.CauseOther},
		{workload.FailurePoolTimeout, serviceState{gap: true}, sim.ReasonPoolTimeout, sim.CausePool},
		{"", serviceState{gap: true}, "status_500", sim.CauseOther},
	} {
		reason, cause := failureCause(http.StatusInternalServerError, tc.reason, tc.st)
		require.Equal(t, tc.wantReason, reason, "%s %+v", tc.reason, tc.st)
		require.Equal(t, tc.wantCause, cause, "%s %+v", tc.reason, tc.st)
	}
}
