package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestDetectFrom(t *testing.T) {
	dir := t.TempDir()
	v2cpu := filepath.Join(dir, "v2cpu")
	v2nocpu := filepath.Join(dir, "v2nocpu")
	writeTestFile(t, filepath.Join(v2cpu, "cgroup.controllers"), "cpuset cpu io memory pids\n")
	writeTestFile(t, filepath.Join(v2nocpu, "cgroup.controllers"), "hugetlb\n")
	line := func(id int, mnt, fstype, super string) string {
		return fmt.Sprintf("%d 23 0:%d / %s rw,relatime - %s %s %s\n", id, id, mnt, fstype, fstype, super)
	}
	for _, tc := range []struct {
		name, mountinfo string
		want            *Hierarchy
		wantErr         string
	}{
		{
			name: "v1 apart, as on this project's machines",
			mountinfo: line(31, "/sys/fs/cgroup", "tmpfs", "rw,mode=755") + line(32, "/sys/fs/cgroup/cpu", "cgroup", "rw,cpu") +
				line(33, "/sys/fs/cgroup/cpuacct", "cgroup", "rw,cpuacct") + line(41, v2nocpu, "cgroup2", "rw"),
			want: NewV1("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct"),
		},
		{
			name:      "v1 together",
			mountinfo: line(32, `/sys/fs/cgroup/cpu\054cpuacct`, "cgroup", "rw,cpu,cpuacct"),
			want:      NewV1("/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"),
		},
		{
			name:      "v2 unified",
			mountinfo: line(30, v2cpu, "cgroup2", "rw,nsdelegate"),
			want:      NewV2(v2cpu),
		},
		{
			name:      "v2 without cpu",
			mountinfo: line(30, v2nocpu, "cgroup2", "rw"),
			wantErr:   fmt.Sprintf(`no cgroup cpu controller: %%s has no cgroup (v1) mount with the cpu controller; cgroup2 at %s lists no cpu in cgroup.controllers ("hugetlb")`, v2nocpu),
		},
		{
			name:      "nothing",
			mountinfo: line(31, "/sys/fs/cgroup", "tmpfs", "rw"),
			wantErr:   "no cgroup cpu controller: %s has no cgroup (v1) mount with the cpu controller; no cgroup2 mount",
		},
		{
			name:      "v1 cpu without cpuacct",
			mountinfo: line(32, "/sys/fs/cgroup/cpu", "cgroup", "rw,cpu"),
			wantErr:   "no cgroup cpu controller: %s has the v1 cpu controller at /sys/fs/cgroup/cpu but no cgroup mount with cpuacct (needed for CPU usage)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "mountinfo")
			writeTestFile(t, file, tc.mountinfo)
			h, err := DetectFrom(file)
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrNoCPUController)
				require.EqualError(t, err, fmt.Sprintf(tc.wantErr, file))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, h)
		})
	}
}

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		l              Limits
		shares, weight uint64
		quota          int64
	}{
		{Limits{RequestMilli: 500, LimitMilli: 500}, 512, 20, 50000},
		{Limits{RequestMilli: 1000, LimitMilli: 1000}, 1024, 39, 100000},
		{Limits{RequestMilli: 100, LimitMilli: 200}, 102, 4, 20000},
		{Limits{RequestMilli: 1}, 2, 1, -1},
		{Limits{RequestMilli: 250, LimitMilli: 5, Period: 50 * time.Millisecond}, 256, 10, 1000},
	} {
		require.Equal(t, tc.shares, tc.l.Shares(), "%+v", tc.l)
		require.Equal(t, tc.weight, tc.l.Weight(), "%+v", tc.l)
		require.Equal(t, tc.quota, tc.l.QuotaUs(), "%+v", tc.l)
	}
	// cAdvisor's conversion back from the weight (lossy, as on a real v2 node).
	require.Equal(t, uint64(500), WeightToShares(20))
}

func TestParseCPUStat(t *testing.T) {
	v1 := "nr_periods 120\nnr_throttled 57\nthrottled_time 3456789012\nnr_bursts 0\nburst_time 0\n"
	s, err := ParseCPUStat([]byte(v1), V1)
	require.NoError(t, err)
	require.Equal(t, Stat{Periods: 120, Throttled: 57, ThrottledTime: 3456789012}, s)
	// The v2 format (Documentation/admin-guide/cgroup-v2.rst), tested on a file: this
	// machine's cpu controller is v1.
	v2 := "usage_usec 2500000\nuser_usec 2400000\nsystem_usec 100000\nnr_periods 40\nnr_throttled 12\nthrottled_usec 600000\nnr_bursts 0\nburst_usec 0\n"
	s, err = ParseCPUStat([]byte(v2), V2)
	require.NoError(t, err)
	require.Equal(t, Stat{Periods: 40, Throttled: 12, ThrottledTime: 600 * time.Millisecond, Usage: 2500 * time.Millisecond}, s)
	_, err = ParseCPUStat([]byte("usage_usec 1\nuser_usec 1\nsystem_usec 0\n"), V2)
	require.EqualError(t, err, "parse cpu.stat: no nr_periods (is the cpu controller enabled for this cgroup?)")
	_, err = ParseCPUStat([]byte("nr_periods x\n"), V1)
	require.EqualError(t, err, `parse cpu.stat: nr_periods: "x" is not a counter`)
}

func TestParseCPUMax(t *testing.T) {
	c, err := ParseCPUMax([]byte("50000 100000\n"))
	require.NoError(t, err)
	require.Equal(t, Config{QuotaUs: 50000, PeriodUs: 100000}, c)
	c, err = ParseCPUMax([]byte("max 100000\n"))
	require.NoError(t, err)
	require.Equal(t, Config{QuotaUs: -1, PeriodUs: 100000}, c)
	_, err = ParseCPUMax([]byte("max\n"))
	require.EqualError(t, err, `parse cpu.max "max": expected QUOTA PERIOD`)
}

// TestV2Files checks what Create writes and what Stat and Config read on a v2 hierarchy,
// on plain files in a temporary directory: this machine has no v2 cpu controller, so the
// kernel's side of v2 is not exercised here (TestKernelThrottling runs on v1 here).
func TestV2Files(t *testing.T) {
	root := t.TempDir()
	h := NewV2(root)
	g, err := h.Create("tidemark/r1/pod-a", Limits{RequestMilli: 500, LimitMilli: 500})
	require.NoError(t, err)
	require.Equal(t, "/tidemark/r1/pod-a", g.Path())
	for _, dir := range []string{root, filepath.Join(root, "tidemark"), filepath.Join(root, "tidemark/r1")} {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		require.NoError(t, err)
		require.Equal(t, "+cpu", string(b), dir)
	}
	for file, want := range map[string]string{"cpu.weight": "20", "cpu.max": "50000 100000"} {
		b, err := os.ReadFile(filepath.Join(root, "tidemark/r1/pod-a", file))
		require.NoError(t, err)
		require.Equal(t, want, string(b), file)
	}
	c, err := g.Config()
	require.NoError(t, err)
	require.Equal(t, Config{Shares: WeightToShares(20), QuotaUs: 50000, PeriodUs: 100000}, c)
	writeTestFile(t, filepath.Join(root, "tidemark/r1/pod-a/cpu.stat"), "usage_usec 7\nnr_periods 3\nnr_throttled 2\nthrottled_usec 9\n")
	s, err := g.Stat()
	require.NoError(t, err)
	require.Equal(t, Stat{Usage: 7 * time.Microsecond, Periods: 3, Throttled: 2, ThrottledTime: 9 * time.Microsecond}, s)
	writeTestFile(t, filepath.Join(root, "tidemark/r1/pod-a/cgroup.procs"), "12\n7\n")
	procs, err := g.Procs()
	require.NoError(t, err)
	require.Equal(t, []int{7, 12}, procs)
	_, err = h.Create("/", Limits{})
	require.EqualError(t, err, "create cgroup: the root cgroup is not Tidemark's")
}
