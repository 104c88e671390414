//go:build integration && linux

package cadvisor

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

// poll is how often eventually looks again.
const poll = 200 * time.Millisecond

// parentPath is a test-unique top-level cgroup path.
func parentPath(t *testing.T) string {
	return fmt.Sprintf("/tidemark-cadvtest-%s-%d-%d", strings.ToLower(t.Name()), os.Getpid(), time.Now().UnixNano()%1e9)
}

// sample is one series of a gather: its labels and value.
type sample struct {
	labels map[string]string
	value  float64
	tsMS   int64
}

// gather collects c once and returns the series by metric name.
func gather(t *testing.T, c prometheus.Collector) map[string][]sample {
	t.Helper()
	reg := prometheus.NewRegistry() // not pedantic: cAdvisor describes its series without their labels, as served to the kubelet
	require.NoError(t, reg.Register(c))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string][]sample{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			s := sample{labels: map[string]string{}, tsMS: m.GetTimestampMs()}
			for _, lp := range m.GetLabel() {
				s.labels[lp.GetName()] = lp.GetValue()
			}
			s.value = value(mf.GetType(), m)
			out[mf.GetName()] = append(out[mf.GetName()], s)
		}
	}
	return out
}

func value(typ dto.MetricType, m *dto.Metric) float64 {
	switch typ {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue()
	default:
		return m.GetUntyped().GetValue()
	}
}

// one returns the single series of name with id (and the extra labels), failing
// otherwise.
func one(t *testing.T, g map[string][]sample, name, id string) sample {
	t.Helper()
	var found []sample
	for _, s := range g[name] {
		if s.labels["id"] == id {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "series %s{id=%q}", name, id)
	return found[0]
}

// ids returns the ids a gather reports, by container_start_time_seconds, which cAdvisor
// serves for every container (container_cpu_usage_seconds_total only once it is > 0).
func ids(g map[string][]sample) []string {
	var out []string
	for _, s := range g["container_start_time_seconds"] {
		out = append(out, s.labels["id"])
	}
	sort.Strings(out)
	return out
}

// eventually polls cond every poll until it holds or 15 s pass, then fails
// with the last reason cond gave.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var why string
	for time.Now().Before(deadline) {
		var ok bool
		if ok, why = cond(); ok {
			return
		}
		time.Sleep(poll)
	}
	t.Fatalf("%s: not within 15s: %s", what, why)
}

// newCollector makes a Collector over subtree.
func newCollector(t *testing.T, subtree string, labels LabelsFunc) *Collector {
	t.Helper()
	c, err := New(promslog.NewNopLogger(), Config{Subtree: subtree, Labels: labels})
	require.NoError(t, err)
	return c
}

// TestThrottlingMatchesKernel runs two busy loops in a cgroup with a 200m CFS quota and
// checks that cAdvisor's series equal what the kernel's cpu.stat and cpuacct say, carry
// the spec as set and the labels of the labels func.
func TestThrottlingMatchesKernel(t *testing.T) {
	parent := parentPath(t)
	makeCgroup(t, parent)
	pod := makeCgroup(t, parent+"/pod-a")
	// 200m for two loops that want 2 CPUs: throttled in most periods even when the
	// machine's two cores are busy with other work (at 500m a loop got 0.3 CPU and was
	// never throttled on a loaded machine).
	const quota, period = 20000, 100000
	pod.setCPU(t, quota, period, 512)
	proc := pod.runBusy(t, 2)

	c := newCollector(t, parent, func(p string) (Labels, bool) {
		if p == pod.path {
			return Labels{Namespace: "shop", Pod: "pod-a", Container: "app", Image: "busy:1", Name: "abc123"}, true
		}
		return Labels{}, false
	})

	// The kernel throttles the loop; cAdvisor reports it.
	eventually(t, "throttled periods reported", func() (bool, string) {
		g := gather(t, c)
		s := g["container_cpu_cfs_throttled_periods_total"]
		if len(s) == 0 {
			return false, "no series yet"
		}
		return s[0].value >= 5, fmt.Sprintf("%v throttled periods", s[0].value)
	})

	// While it runs, each counter lies between the kernel's reads before and after the gather.
	before := pod.stat(t)
	g1 := gather(t, c)
	after := pod.stat(t)
	for _, tc := range []struct {
		name          string
		before, after float64
	}{
		{"container_cpu_cfs_periods_total", float64(before.periods), float64(after.periods)},
		{"container_cpu_cfs_throttled_periods_total", float64(before.throttled), float64(after.throttled)},
		{"container_cpu_cfs_throttled_seconds_total", float64(before.throttledNS) / 1e9, float64(after.throttledNS) / 1e9},
		{"container_cpu_usage_seconds_total", float64(before.usageNS) / 1e9, float64(after.usageNS) / 1e9},
	} {
		v := one(t, g1, tc.name, pod.path).value
		require.GreaterOrEqual(t, v, tc.before, tc.name)
		require.LessOrEqual(t, v, tc.after, tc.name)
	}
	u1 := one(t, g1, "container_cpu_usage_seconds_total", pod.path)
	time.Sleep(1500 * time.Millisecond)
	u2 := one(t, gather(t, c), "container_cpu_usage_seconds_total", pod.path)
	require.Greater(t, u2.tsMS, u1.tsMS, "a later read")
	rate := (u2.value - u1.value) / (float64(u2.tsMS-u1.tsMS) / 1000)
	// A sample's timestamp is taken just after its read, so over >= 1 s the rate is
	// within a period's quota of the quota's share either way.
	require.LessOrEqual(t, rate, float64(quota)/period*1.1+0.02, "usage rate under a 200m quota")
	require.Positive(t, rate)

	// Stopped, the cgroup's counters stand still, and cAdvisor reports exactly the
	// kernel's numbers.
	require.NoError(t, syscall.Kill(-proc.Pid, syscall.SIGSTOP), "stop the loops' process group")
	eventually(t, "kernel counters settle", func() (bool, string) {
		a := pod.stat(t)
		time.Sleep(3 * 100 * time.Millisecond) // three CFS periods
		b := pod.stat(t)
		return a == b, fmt.Sprintf("%+v then %+v", a, b)
	})
	k := pod.stat(t)
	{
		g := gather(t, c)
		got := kernelStat{
			periods:     uint64(one(t, g, "container_cpu_cfs_periods_total", pod.path).value),
			throttled:   uint64(one(t, g, "container_cpu_cfs_throttled_periods_total", pod.path).value),
			throttledNS: uint64(math.Round(one(t, g, "container_cpu_cfs_throttled_seconds_total", pod.path).value * 1e9)),
			usageNS:     uint64(math.Round(one(t, g, "container_cpu_usage_seconds_total", pod.path).value * 1e9)),
		}
		// float64 seconds keep nanoseconds exactly up to 2^53 ns (104 days).
		require.Equal(t, k, got, "cAdvisor's counters equal the kernel's")
		require.Equal(t, k, pod.stat(t), "the counters stood still")
	}
	require.Positive(t, k.throttled)

	g := gather(t, c)
	require.Equal(t, []string{pod.path}, ids(g), "only the labelled cgroup is reported")
	require.InDelta(t, quota, one(t, g, "container_spec_cpu_quota", pod.path).value, 0)
	require.InDelta(t, period, one(t, g, "container_spec_cpu_period", pod.path).value, 0)
	wantShares := 512.0
	if pod.v2 {
		// cAdvisor maps cpu.weight back to shares; the round trip is not exact.
		wantShares = one(t, g, "container_spec_cpu_shares", pod.path).value
		require.InDelta(t, 512, wantShares, 30)
	}
	require.InDelta(t, wantShares, one(t, g, "container_spec_cpu_shares", pod.path).value, 0)
	ws := one(t, g, "container_memory_working_set_bytes", pod.path)
	require.Positive(t, ws.value, "a shell's working set")

	usage := one(t, g, "container_cpu_usage_seconds_total", pod.path)
	require.Equal(t, map[string]string{
		"id": pod.path, "name": "abc123", "image": "busy:1",
		"namespace": "shop", "pod": "pod-a", "container": "app", "cpu": "total",
	}, usage.labels)
	require.Equal(t, map[string]string{
		"id": pod.path, "name": "abc123", "image": "busy:1",
		"namespace": "shop", "pod": "pod-a", "container": "app",
	}, one(t, g, "container_cpu_cfs_throttled_periods_total", pod.path).labels)
	require.InDelta(t, 0, g["container_scrape_error"][0].value, 0)

	// cadvisor_version_info names the kernel (uname's release). (Its cadvisorVersion is
	// the library's module version from the build info, which a test binary lacks.)
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	require.NoError(t, err)
	v := g["cadvisor_version_info"]
	require.Len(t, v, 1)
	require.Equal(t, strings.TrimSpace(string(release)), v[0].labels["kernelVersion"])
}

// TestOnlyTheSubtree: cgroups outside the subtree (one whose path merely starts with the
// subtree's) and cgroups the labels func refuses are not reported; a new cgroup inside
// is found at the next gather.
func TestOnlyTheSubtree(t *testing.T) {
	parent := parentPath(t)
	makeCgroup(t, parent)
	makeCgroup(t, parent+"/pod-a")
	makeCgroup(t, parent+"/pod-hidden")
	sibling := parent + "0"
	makeCgroup(t, sibling)
	makeCgroup(t, sibling+"/pod-x")

	c := newCollector(t, parent, func(p string) (Labels, bool) {
		if p == parent || strings.HasSuffix(p, "/pod-hidden") {
			return Labels{}, false
		}
		return Labels{Namespace: "shop", Pod: p[strings.LastIndex(p, "/")+1:]}, true
	})
	require.Equal(t, []string{parent + "/pod-a"}, ids(gather(t, c)))

	makeCgroup(t, parent+"/pod-b")
	g := gather(t, c)
	require.Equal(t, []string{parent + "/pod-a", parent + "/pod-b"}, ids(g))
	for _, s := range g["container_start_time_seconds"] {
		require.Equal(t, s.labels["id"][len(parent)+1:], s.labels["pod"])
		require.Empty(t, s.labels["container"], "the labels func gave no container")
	}
}

// TestSubtreeAppearsLater: before the subtree exists the collector serves no cgroup
// and no error; cgroups are found at the next gather once made.
func TestSubtreeAppearsLater(t *testing.T) {
	parent := parentPath(t)
	c := newCollector(t, parent, func(string) (Labels, bool) { return Labels{}, true })
	g := gather(t, c)
	require.Empty(t, ids(g))
	require.InDelta(t, 0, g["container_scrape_error"][0].value, 0)

	makeCgroup(t, parent)
	makeCgroup(t, parent+"/pod-a")
	require.Equal(t, []string{parent, parent + "/pod-a"}, ids(gather(t, c)))
}

// TestConcurrentGathers: two scrapes at once each get every series (run with -race).
func TestConcurrentGathers(t *testing.T) {
	parent := parentPath(t)
	makeCgroup(t, parent)
	pod := makeCgroup(t, parent+"/pod-a")
	pod.setCPU(t, 20000, 100000, 512)
	c := newCollector(t, parent, func(p string) (Labels, bool) { return Labels{Pod: "pod-a"}, p == pod.path })
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for i := range got {
		wg.Go(func() {
			reg := prometheus.NewRegistry()
			if err := reg.Register(c); err != nil {
				t.Error(err)
				return
			}
			mfs, err := reg.Gather()
			if err != nil {
				t.Error(err)
				return
			}
			for _, mf := range mfs {
				if mf.GetName() == "container_spec_cpu_quota" {
					for _, m := range mf.GetMetric() {
						got[i] = append(got[i], fmt.Sprint(m.GetGauge().GetValue()))
					}
				}
			}
		})
	}
	wg.Wait()
	for i := range got {
		require.Equal(t, []string{"20000"}, got[i], "gather %d", i)
	}
}

// BenchmarkGather measures one gather of a subtree of ten pod cgroups (v1: cpu, cpuacct
// and memory hierarchies), each with a process, as a scrape of /metrics/cadvisor does.
func BenchmarkGather(b *testing.B) {
	parent := fmt.Sprintf("/tidemark-cadvbench-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)
	makeCgroup(b, parent)
	for i := range 10 {
		pod := makeCgroup(b, fmt.Sprintf("%s/pod-%d", parent, i))
		pod.setCPU(b, 50000, 100000, 512)
		proc := pod.runBusy(b, 1)
		require.NoError(b, syscall.Kill(-proc.Pid, syscall.SIGSTOP)) // present, not spinning
	}
	c, err := New(promslog.NewNopLogger(), Config{Subtree: parent, Labels: func(p string) (Labels, bool) {
		return Labels{Namespace: "shop", Pod: p[strings.LastIndex(p, "/")+1:], Container: "app"}, p != parent
	}})
	require.NoError(b, err)
	reg := prometheus.NewRegistry()
	require.NoError(b, reg.Register(c))
	// CPU time (user + system) per gather, which a loaded machine inflates less than
	// the wall time of ns/op.
	var before, after syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &before))
	n := 0
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &after))
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
}

// TestPodsComeAndGo: gathers while pod cgroups are made and removed under them serve
// the cgroups that exist, without scrape errors, and nothing once they are gone.
func TestPodsComeAndGo(t *testing.T) {
	parent := parentPath(t)
	makeCgroup(t, parent)
	mounts, _, _ := hierarchies(t)
	c := newCollector(t, parent, func(p string) (Labels, bool) { return Labels{Pod: "p"}, p != parent })

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			var dirs []string
			for _, mp := range mounts {
				d := filepath.Join(mp, fmt.Sprintf("%s/pod-%d", parent, i))
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Error(err)
					return
				}
				dirs = append(dirs, d)
			}
			for _, d := range slices.Backward(dirs) {
				if err := os.Remove(d); err != nil {
					t.Error(err)
				}
			}
		}
	}()
	gathers := 0
	for running := true; running; gathers++ {
		select {
		case <-done:
			running = false
		default:
		}
		g := gather(t, c)
		require.InDelta(t, 0, g["container_scrape_error"][0].value, 0)
		for _, id := range ids(g) {
			require.True(t, strings.HasPrefix(id, parent+"/pod-"), id)
		}
	}
	require.Empty(t, ids(gather(t, c)), "all pods gone")
	t.Logf("%d gathers while 200 pods came and went", gathers)
}
