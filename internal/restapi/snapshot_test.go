package restapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
)

// snapshot holds two seconds of a script like testdata/k6/scripts/script.js: requests
// and checks in group "visit homepage" and its sub-group "nested".
func snapshot(t *testing.T) *aggregate.Snapshot {
	t.Helper()
	reg, pool := metrics.NewRegistry(), metrics.NewTagPool()
	mk := func(name string, typ metrics.Type, vt metrics.ValueType) *metrics.Metric {
		m, err := reg.New(name, typ, vt)
		require.NoError(t, err)
		return m
	}
	reqs := mk("http_reqs", metrics.Counter, metrics.Default)
	dur := mk("http_req_duration", metrics.Trend, metrics.Time)
	checks := mk("checks", metrics.Rate, metrics.Default)
	vus := mk("vus", metrics.Gauge, metrics.Default)
	sent := mk("data_sent", metrics.Counter, metrics.Data)
	info := mk("tidemark_run_info", metrics.Gauge, metrics.Default)
	t0 := time.Unix(1_700_000_000, 0)
	home := []metrics.Tag{{Key: "group", Value: "::visit homepage"}}
	ok := pool.Intern(append([]metrics.Tag{{Key: "expected_response", Value: "true"}}, home...))
	bad := pool.Intern(append([]metrics.Tag{{Key: "expected_response", Value: "false"}}, home...))
	is200 := pool.Intern(append([]metrics.Tag{{Key: "check", Value: "is 200"}}, home...))
	one := pool.Intern([]metrics.Tag{{Key: "check", Value: "one"}, {Key: "group", Value: "::visit homepage::nested"}})
	st := aggregate.New(aggregate.WithClock(func() time.Time { return t0.Add(2 * time.Second) }))
	st.Push([]metrics.Sample{
		{Metric: vus, Tags: pool.Intern(nil), Time: t0, Value: 2},
		{Metric: info, Tags: pool.Intern(nil), Time: t0, Value: 1},
		{Metric: reqs, Tags: ok, Time: t0, Value: 1},
		{Metric: reqs, Tags: ok, Time: t0, Value: 1},
		{Metric: reqs, Tags: bad, Time: t0, Value: 1},
		{Metric: dur, Tags: ok, Time: t0, Value: 0.010},
		{Metric: dur, Tags: ok, Time: t0, Value: 0.010},
		{Metric: dur, Tags: bad, Time: t0, Value: 0.010},
		{Metric: sent, Tags: pool.Intern(nil), Time: t0, Value: 300},
		{Metric: checks, Tags: is200, Time: t0.Add(time.Millisecond), Value: 1},
		{Metric: checks, Tags: is200, Time: t0.Add(time.Millisecond), Value: 0},
		{Metric: checks, Tags: one, Time: t0.Add(2 * time.Millisecond), Value: 1},
	})
	return st.Snapshot()
}

func TestMetricsFromSnapshot(t *testing.T) {
	t.Parallel()
	got := MetricsFromSnapshot(snapshot(t), 2*time.Second, map[string]bool{"http_req_duration": false})
	names := make([]string, 0, len(got))
	byName := map[string]Metric{}
	for _, m := range got {
		names = append(names, m.Name)
		byName[m.Name] = m
	}
	require.Equal(t, []string{"checks", "data_sent", "http_req_duration", "http_req_duration{expected_response:true}", "http_reqs", "vus"}, names)
	require.Equal(t, Metric{Name: "http_reqs", Type: "counter", Contains: "default", Sample: map[string]float64{"count": 3, "rate": 1.5}}, byName["http_reqs"])
	require.Equal(t, Metric{Name: "vus", Type: "gauge", Contains: "default", Sample: map[string]float64{"value": 2}}, byName["vus"])
	require.Equal(t, map[string]float64{"count": 300, "rate": 150}, byName["data_sent"].Sample)
	require.InDelta(t, 2.0/3, byName["checks"].Sample["rate"], 1e-9)
	d := byName["http_req_duration"]
	require.Equal(t, "trend", d.Type)
	require.Equal(t, "time", d.Contains)
	require.NotNil(t, d.Tainted)
	require.False(t, *d.Tainted)
	require.Nil(t, byName["http_reqs"].Tainted)
	require.Len(t, d.Sample, 6)
	for _, stat := range []string{"avg", "max", "med", "min", "p(90)", "p(95)"} {
		require.InEpsilon(t, 10, d.Sample[stat], 0.05, "%s in milliseconds", stat)
	}
	require.Len(t, byName["http_req_duration{expected_response:true}"].Sample, 6)

	require.Empty(t, MetricsFromSnapshot(nil, time.Second, nil))
	zero := MetricsFromSnapshot(snapshot(t), 0, nil)
	require.Zero(t, zero[len(zero)-2].Sample["rate"], "no rate before the start")
}

func TestGroupsFromSnapshot(t *testing.T) {
	t.Parallel()
	want := &Group{Groups: []*Group{{
		Path: "::visit homepage", Name: "visit homepage",
		Checks: []Check{{Path: "::visit homepage::is 200", Name: "is 200", Passes: 1, Fails: 1}},
		Groups: []*Group{{
			Path: "::visit homepage::nested", Name: "nested",
			Checks: []Check{{Path: "::visit homepage::nested::one", Name: "one", Passes: 1}},
		}},
	}}}
	require.Equal(t, want, GroupsFromSnapshot(snapshot(t)))
	require.Equal(t, &Group{}, GroupsFromSnapshot(nil))
	// k6's ids, recorded in testdata/k6/running_groups.txt.
	require.Equal(t, "d41d8cd98f00b204e9800998ecf8427e", aggregate.GroupID(""))
	require.Equal(t, "b0470a9324a4ae563b04e9ac49fbc9cf", aggregate.GroupID("::visit homepage"))
	require.Equal(t, "ce059f56092314573080c267d1fd0042", aggregate.GroupID("::visit homepage::is 200"))
}
