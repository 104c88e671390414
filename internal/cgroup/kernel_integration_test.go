//go:build integration

package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// kernel returns this machine's hierarchy; the real-kernel tests need root and a
// writable cpu controller, which CI has.
func kernel(t *testing.T) *Hierarchy {
	t.Helper()
	h, err := Detect()
	require.NoError(t, err, "the process runtime's tests need a cgroup cpu controller")
	require.Zero(t, os.Geteuid(), "the cgroup tests run as root")
	return h
}

// TestKernelThrottling puts a busy process (yes > /dev/null) into a cgroup with a quota of
// 50000 µs per 100000 µs (500m) and checks the kernel throttles it: nr_throttled grows and
// it uses at most half a CPU.
func TestKernelThrottling(t *testing.T) {
	h := kernel(t)
	// The machine is shared (other tests, builds): the test's top cgroup gets the highest
	// cpu.shares so that the busy process is not starved below its quota by processes
	// outside it, which would leave nothing for the quota to throttle.
	_, err := h.Create("tidemark-test", Limits{RequestMilli: 256000})
	require.NoError(t, err)
	parent := fmt.Sprintf("tidemark-test/cgroup-%d", os.Getpid())
	t.Cleanup(func() {
		require.NoError(t, h.Open(parent).RemoveAll(5*time.Second))
		_ = h.Open("tidemark-test").Remove() // shared with other test processes: may be busy
	})
	g, err := h.Create(parent+"/busy", Limits{RequestMilli: 500, LimitMilli: 500})
	require.NoError(t, err)
	c, err := g.Config()
	require.NoError(t, err)
	require.Equal(t, Config{Shares: 512, QuotaUs: 50000, PeriodUs: 100000}, c)

	cmd := exec.Command("yes")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.NoError(t, g.Add(cmd.Process.Pid))
	procs, err := g.Procs()
	require.NoError(t, err)
	require.Equal(t, []int{cmd.Process.Pid}, procs)

	time.Sleep(300 * time.Millisecond)
	s0, err := g.Stat()
	require.NoError(t, err)
	t0 := time.Now()
	time.Sleep(2 * time.Second)
	s1, err := g.Stat()
	require.NoError(t, err)
	wall := time.Since(t0)
	cpus := (s1.Usage - s0.Usage).Seconds() / wall.Seconds()
	t.Logf("over %s: %d periods, %d throttled, %s throttled, %.3f CPUs", wall.Round(time.Millisecond),
		s1.Periods-s0.Periods, s1.Throttled-s0.Throttled, s1.ThrottledTime-s0.ThrottledTime, cpus)
	require.Greater(t, s1.Throttled, s0.Throttled, "nr_throttled grows")
	require.Greater(t, s1.ThrottledTime, s0.ThrottledTime, "throttled_time grows")
	require.LessOrEqual(t, s1.Throttled-s0.Throttled, s1.Periods-s0.Periods)
	// The quota caps usage at 0.5 CPU (5% for the edges of the reads); a busy process on
	// a shared 2-core machine gets well over 0.2 of it.
	require.LessOrEqual(t, cpus, 0.525, "usage is capped by the quota")
	require.GreaterOrEqual(t, cpus, 0.2, "a busy process uses its quota")

	// Removing a group with a process in it fails; RemoveAll kills it first.
	require.Error(t, g.Remove())
	require.NoError(t, h.Open(parent).RemoveAll(5*time.Second))
	require.False(t, g.Exists())
	require.False(t, h.Open(parent).Exists())
	require.Error(t, cmd.Wait(), "the process was killed")
}

// TestKernelCreateErrors: a path that cannot be a cgroup gets an error naming it.
func TestKernelCreateErrors(t *testing.T) {
	h := kernel(t)
	t.Cleanup(func() { _ = h.Open("tidemark-test").Remove() }) // shared with other test processes: may be busy
	_, err := h.Create("tidemark-test/cpu.shares/x", Limits{RequestMilli: 100})
	require.Error(t, err)
	require.ErrorContains(t, err, "cpu.shares")
}

// TestKernelProcessCPULimit reads the CPU limit of processes in real cgroups: one in a
// group of 200m under a parent of 1000m gets 0.2, one in the parent gets 1, and this
// test's own process, when it is in the root group, gets none.
func TestKernelProcessCPULimit(t *testing.T) {
	h := kernel(t)
	parent := fmt.Sprintf("tidemark-test/limit-%d", os.Getpid())
	t.Cleanup(func() {
		require.NoError(t, h.Open(parent).RemoveAll(5*time.Second))
		_ = h.Open("tidemark-test").Remove() // shared with other test processes: may be busy
	})
	_, err := h.Create(parent, Limits{RequestMilli: 1000, LimitMilli: 1000})
	require.NoError(t, err)
	child, err := h.Create(parent+"/runner", Limits{RequestMilli: 200, LimitMilli: 200})
	require.NoError(t, err)
	for _, tc := range []struct {
		g    *Group
		want float64
	}{{child, 0.2}, {h.Open(parent), 1}} {
		cmd := exec.Command("sleep", "30")
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		require.NoError(t, tc.g.Add(cmd.Process.Pid))
		cores, ok, err := ProcessCPULimit(fmt.Sprintf("/proc/%d", cmd.Process.Pid))
		require.NoError(t, err)
		require.True(t, ok, "a process in %s has a limit", tc.g.Path())
		require.InDelta(t, tc.want, cores, 1e-9, "the limit of a process in %s", tc.g.Path())
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	require.NoError(t, err)
	if strings.Contains(string(b), ":cpu:/\n") || strings.Contains(string(b), ":cpu,cpuacct:/\n") {
		_, ok, err := ProcessCPULimit("/proc/self")
		require.NoError(t, err)
		require.False(t, ok, "the root cgroup has no quota")
	}
}
