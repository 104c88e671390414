//go:build integration && linux

package cadvisor

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/cgroups"
	"github.com/stretchr/testify/require"
)

// testCgroup is a real cgroup made for a test, in every hierarchy cAdvisor reads (cpu,
// cpuacct and memory on cgroup v1; the unified one on v2).
type testCgroup struct {
	path string   // cgroup path, such as "/tidemark-cadvtest-123/pod-a"
	dirs []string // its directories, one per hierarchy; dirs[0] holds cpu.stat
	acct string   // the directory with cpuacct.usage (v1)
	v2   bool
}

// hierarchies returns the mount points to make cgroups in (cpu's first, then cpuacct's
// unless mounted with cpu) and that of cpuacct.
func hierarchies(t testing.TB) (mounts []string, acct string, v2 bool) {
	t.Helper()
	if cgroups.IsCgroup2UnifiedMode() {
		return []string{"/sys/fs/cgroup"}, "", true
	}
	for _, ss := range []string{"cpu", "cpuacct", "memory"} {
		mp, err := cgroups.FindCgroupMountpoint("", ss)
		require.NoError(t, err, "cgroup v1 controller %s must be mounted for this test", ss)
		if ss == "cpuacct" {
			acct = mp
		}
		if !slices.Contains(mounts, mp) {
			mounts = append(mounts, mp)
		}
	}
	return mounts, acct, false
}

// makeCgroup creates the cgroup path (and its parents) and removes it when the test
// ends, after killing what runs in it. Parents are removed by their own makeCgroup call,
// which must come first (t.Cleanup runs last-in first-out).
func makeCgroup(t testing.TB, path string) *testCgroup {
	t.Helper()
	mounts, acct, v2 := hierarchies(t)
	cg := &testCgroup{path: path, v2: v2, acct: filepath.Join(acct, path)}
	for _, mp := range mounts {
		dir := filepath.Join(mp, path)
		require.NoError(t, os.Mkdir(dir, 0o755), "make cgroup (the test must run as root)")
		cg.dirs = append(cg.dirs, dir)
	}
	if v2 {
		// Children of path get the cpu and memory controllers.
		require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(cg.dirs[0]), "cgroup.subtree_control"), []byte("+cpu +memory"), 0o644))
	}
	t.Cleanup(func() {
		for _, dir := range cg.dirs {
			killAll(t, dir)
			// The kernel takes a moment to let go of a killed task's cgroup.
			var err error
			for range 100 {
				if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("remove cgroup %s: %v", dir, err)
			}
		}
	})
	return cg
}

// killAll kills every process of the cgroup directory.
func killAll(t testing.TB, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return
	}
	for f := range strings.FieldsSeq(string(b)) {
		pid, err := strconv.Atoi(f)
		if err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// setQuota sets the CFS quota and period (microseconds) and the cpu shares (v1; the v2
// weight is derived from shares as the kubelet does).
func (cg *testCgroup) setCPU(t testing.TB, quotaUS, periodUS, shares int) {
	t.Helper()
	if cg.v2 {
		write(t, cg.dirs[0], "cpu.max", fmt.Sprintf("%d %d", quotaUS, periodUS))
		write(t, cg.dirs[0], "cpu.weight", strconv.Itoa(1+((shares-2)*9999)/262142))
		return
	}
	write(t, cg.dirs[0], "cpu.cfs_period_us", strconv.Itoa(periodUS))
	write(t, cg.dirs[0], "cpu.cfs_quota_us", strconv.Itoa(quotaUS))
	write(t, cg.dirs[0], "cpu.shares", strconv.Itoa(shares))
}

func write(t testing.TB, dir, file, value string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644), "write %s", filepath.Join(dir, file))
}

// runBusy starts a shell spinning in the cgroup and kills it when the test ends. Its
// children inherit the cgroup.
func (cg *testCgroup) runBusy(t testing.TB, loops int) *os.Process {
	t.Helper()
	// Each loop ends when the test process does, even if it dies before its cleanup.
	loop := fmt.Sprintf("while [ -d /proc/%d ]; do :; done", os.Getpid())
	script := loop
	for range loops - 1 {
		script = "(" + loop + ") & " + script
	}
	// The shell waits for the cgroup to be set before it spins (and forks).
	cmd := exec.Command("sh", "-c", "read _; "+script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // one group to stop and kill
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	for _, dir := range cg.dirs {
		write(t, dir, "cgroup.procs", strconv.Itoa(cmd.Process.Pid))
	}
	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	return cmd.Process
}

// kernelStat is what the kernel says of a cgroup's CPU, in cAdvisor's units.
type kernelStat struct {
	periods, throttled uint64
	throttledNS        uint64
	usageNS            uint64
}

func (cg *testCgroup) stat(t testing.TB) kernelStat {
	t.Helper()
	kv := readKV(t, filepath.Join(cg.dirs[0], "cpu.stat"))
	s := kernelStat{periods: kv["nr_periods"], throttled: kv["nr_throttled"]}
	if cg.v2 {
		s.throttledNS = kv["throttled_usec"] * 1000
		s.usageNS = kv["usage_usec"] * 1000
		return s
	}
	s.throttledNS = kv["throttled_time"]
	b, err := os.ReadFile(filepath.Join(cg.acct, "cpuacct.usage"))
	require.NoError(t, err)
	s.usageNS, err = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	require.NoError(t, err)
	return s
}

func readKV(t testing.TB, file string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	kv := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "%s: %q", file, sc.Text())
		kv[k] = n
	}
	require.NoError(t, sc.Err())
	return kv
}
