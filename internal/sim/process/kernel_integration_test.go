//go:build integration

package process

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/cgroup"
)

// kernel returns this machine's hierarchy: the process runtime's tests need root and a
// writable cgroup cpu controller, which CI has.
func kernel(t *testing.T) *cgroup.Hierarchy {
	t.Helper()
	h, err := cgroup.Detect()
	require.NoError(t, err, "the process runtime's tests need a cgroup cpu controller")
	require.Zero(t, os.Geteuid(), "the process runtime's tests run as root")
	return h
}

// TestRemoveStale: the cgroups of a run whose owner is dead are removed, with the process
// left in them; those of a live owner are not.
func TestRemoveStale(t *testing.T) {
	h := kernel(t)
	// A pid that no longer exists: a finished child's.
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	staleID := fmt.Sprintf("run-%d-%d", dead.Process.Pid, 12345)
	liveID := runID(os.Getpid())
	stale, err := h.Create(Top+"/"+staleID+"/pod-a", cgroup.Limits{RequestMilli: 100, LimitMilli: 100})
	require.NoError(t, err)
	live, err := h.Create(Top+"/"+liveID+"-test/pod-b", cgroup.Limits{RequestMilli: 100})
	require.NoError(t, err)
	liveRun := h.Open(Top + "/" + liveID + "-test")
	t.Cleanup(func() { require.NoError(t, liveRun.RemoveAll(5*time.Second)) })
	sleeper := exec.Command("sleep", "60")
	require.NoError(t, sleeper.Start())
	require.NoError(t, stale.Add(sleeper.Process.Pid))

	n, err := RemoveStale(h, promslog.NewNopLogger())
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 1)
	require.False(t, h.Open(Top+"/"+staleID).Exists(), "the dead run's cgroups are removed")
	require.Error(t, sleeper.Wait(), "the process left in them is killed")
	require.True(t, live.Exists(), "a live run's cgroups stay")
	require.True(t, strings.HasPrefix(liveID, fmt.Sprintf("run-%d-", os.Getpid())))
	require.True(t, ownerAlive(liveID))
	require.False(t, ownerAlive(staleID))
}

// TestCPUStatContainers reads a real pod cgroup as cAdvisor's series.
func TestCPUStatContainers(t *testing.T) {
	h := kernel(t)
	subtree := fmt.Sprintf("/%s/run-test-%d", Top, os.Getpid())
	g, err := h.Create(subtree+"/pod-a", cgroup.Limits{RequestMilli: 500, LimitMilli: 500})
	require.NoError(t, err)
	_, err = h.Create(subtree+"/unlabelled", cgroup.Limits{RequestMilli: 100})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Open(subtree).RemoveAll(5*time.Second)) })
	c, err := CPUStatContainers(promslog.NewNopLogger(), subtree, h, func(path string) (Labels, bool) {
		if path != g.Path() {
			return Labels{}, false
		}
		return Labels{Namespace: "loadtest", Pod: "pod-a", Container: "api", Image: "img:1", Name: "cid"}, true
	})
	require.NoError(t, err)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
	l := fmt.Sprintf(`container="api",id=%q,image="img:1",name="cid",namespace="loadtest",pod="pod-a"`, g.Path())
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`# HELP container_spec_cpu_quota CPU quota of the container.
# TYPE container_spec_cpu_quota gauge
container_spec_cpu_quota{`+l+`} 50000
# HELP container_spec_cpu_period CPU period of the container.
# TYPE container_spec_cpu_period gauge
container_spec_cpu_period{`+l+`} 100000
# HELP container_spec_cpu_shares CPU share of the container.
# TYPE container_spec_cpu_shares gauge
container_spec_cpu_shares{`+l+`} 512
# HELP container_cpu_cfs_throttled_periods_total Number of throttled period intervals.
# TYPE container_cpu_cfs_throttled_periods_total counter
container_cpu_cfs_throttled_periods_total{`+l+`} 0
`), "container_spec_cpu_quota", "container_spec_cpu_period", "container_spec_cpu_shares", "container_cpu_cfs_throttled_periods_total"))
}
