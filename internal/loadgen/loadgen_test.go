package loadgen

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
)

// fake is a process whose CPU time, cgroup limit and CPUs a test sets.
type fake struct {
	used     time.Duration
	usageErr error
	limit    float64
	limited  bool
	limitErr error
	procs    int
}

func (f *fake) opts() []Option {
	return []Option{
		WithUsage(func() (time.Duration, error) { return f.used, f.usageErr }),
		WithLimit(func() (float64, bool, error) { return f.limit, f.limited, f.limitErr }),
		WithProcs(func() int { return f.procs }),
	}
}

// mapped maps inputs as remote write does, for a run of testid "r1" on instance "2".
func mapped(t *testing.T, in []series.Input) map[string]series.Series {
	t.Helper()
	m, err := series.NewMapper(series.Config{TestID: "r1", InstanceID: "2"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]series.Series{}
	for _, s := range m.Map(nil, in) {
		out[s.Name] = s
	}
	return out
}

func TestCPUSeries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(f *fake) // after NewCPU, before the snapshot
		start func(f *fake) // before NewCPU
		secs  float64       // -1: no counter
		cores float64
	}{
		{name: "counts from the start, a 200m quota below 2 CPUs", edit: func(f *fake) { f.used += 1500 * time.Millisecond }, secs: 1.5, cores: 0.2},
		{name: "no quota: the CPUs", edit: func(f *fake) { f.limited = false }, secs: 0, cores: 2},
		{name: "a quota above the CPUs: the CPUs", edit: func(f *fake) { f.limit = 3.5 }, secs: 0, cores: 2},
		{name: "GOMAXPROCS 1 below a quota of 1.5", edit: func(f *fake) { f.limit, f.procs = 1.5, 1 }, secs: 0, cores: 1},
		{name: "an unreadable limit: the CPUs", edit: func(f *fake) { f.limitErr = errors.New("no cgroup") }, secs: 0, cores: 2},
		{name: "the first CPU read failed: counts from the first that works", start: func(f *fake) { f.usageErr = errors.New("EFAULT") },
			edit: func(f *fake) { f.usageErr, f.used = nil, f.used+time.Second }, secs: 0, cores: 0.2},
		{name: "every CPU read failed: the cores alone", start: func(f *fake) { f.usageErr = errors.New("EFAULT") }, secs: -1, cores: 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{used: 40 * time.Second, limit: 0.2, limited: true, procs: 2}
			if tc.start != nil {
				tc.start(f)
			}
			c, err := NewCPU(map[string]string{"testid": "r1"}, promslog.NewNopLogger(), f.opts()...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(f)
			}
			got := mapped(t, c.Append(nil))
			s, ok := got[CPUSecondsMetric]
			switch {
			case tc.secs < 0 && ok:
				t.Errorf("counter written without a CPU time: %+v", s)
			case tc.secs >= 0 && !ok:
				t.Fatalf("no %s in %v", CPUSecondsMetric, got)
			case tc.secs >= 0 && (s.Value != tc.secs || s.Type != series.Counter):
				t.Errorf("%s = %g (%s), want counter %g", CPUSecondsMetric, s.Value, s.Type, tc.secs)
			}
			g, ok := got[CPUCoresMetric]
			if !ok || g.Value != tc.cores || g.Type != series.Gauge {
				t.Errorf("%s = %+v, want gauge %g", CPUCoresMetric, g, tc.cores)
			}
			for _, s := range got {
				if l := labels(s); len(l) != 2 || l["testid"] != "r1" || l["instance_id"] != "2" {
					t.Errorf("%s labels %v, want testid and instance_id only", s.Name, l)
				}
			}
		})
	}
}

func labels(s series.Series) map[string]string {
	out := map[string]string{}
	for _, l := range s.Labels {
		out[l.Name] = l.Value
	}
	return out
}

// TestCPUCounterNeverFalls: a read that fails after one that worked repeats the last
// value, and a smaller reading (a clock that went back) does not lower the counter.
func TestCPUCounterNeverFalls(t *testing.T) {
	f := &fake{limit: 0.5, limited: true, procs: 4}
	c, err := NewCPU(map[string]string{"testid": "r1"}, promslog.NewNopLogger(), f.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, step := range []func(){
		func() { f.used = 2 * time.Second },
		func() { f.usageErr = errors.New("EFAULT") },
		func() { f.usageErr, f.used = nil, time.Second },
		func() { f.used = 3 * time.Second },
	} {
		step()
		got = append(got, mapped(t, c.Append(nil))[CPUSecondsMetric].Value)
	}
	want := []float64{2, 2, 2, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("counter %v, want %v", got, want)
		}
	}
}

// TestSourceKeepsTheRunsSeries: the run's own inputs pass through unchanged, followed by
// the CPU's two.
func TestSourceKeepsTheRunsSeries(t *testing.T) {
	reg := metrics.NewRegistry()
	vus, err := reg.New("vus", metrics.Gauge, metrics.Default)
	if err != nil {
		t.Fatal(err)
	}
	tags := metrics.NewTagPool().Intern([]metrics.Tag{{Key: "testid", Value: "r1"}})
	run := []series.Input{{Metric: vus, Tags: tags, Value: 7}}
	f := &fake{limit: 0.2, limited: true, procs: 2}
	c, err := NewCPU(map[string]string{"testid": "r1"}, promslog.NewNopLogger(), f.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Source(series.SnapshotFunc(func() []series.Input { return append([]series.Input(nil), run...) })).Snapshot()
	if len(got) != 3 || got[0] != run[0] || got[1].Metric.Name != CPUSecondsMetric || got[2].Metric.Name != CPUCoresMetric {
		t.Errorf("snapshot %+v, want the run's vus then the CPU's two series", got)
	}
	if m := mapped(t, got); m["k6_vus"].Value != 7 {
		t.Errorf("k6_vus %+v, want 7", m["k6_vus"])
	}
	if got := c.Source(series.SnapshotFunc(func() []series.Input { return nil })).Snapshot(); len(got) != 0 {
		t.Errorf("a run without series got %d inputs, want none", len(got))
	}
}

// TestProcessUsage reads this process's real CPU time: it grows over a busy loop (by how
// much depends on the machine's other load, so only that it grows is asserted).
func TestProcessUsage(t *testing.T) {
	u0, err := ProcessUsage()
	if err != nil {
		t.Fatal(err)
	}
	var x uint64
	start := time.Now()
	for time.Since(start) < 200*time.Millisecond {
		for i := range 10000 {
			x += uint64(i) ^ x<<1
		}
	}
	u1, err := ProcessUsage()
	if err != nil {
		t.Fatal(err)
	}
	if d := u1 - u0; d <= 0 {
		t.Errorf("CPU time did not grow over a busy loop (%d): %s → %s", x, u0, u1)
	}
}
