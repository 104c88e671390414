package scenario

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExamples loads every scenario file under examples/ (the cluster-*.yaml files
// are simulation configs, not scenarios).
func TestExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../examples/*.yaml")
	require.NoError(t, err)
	var n int
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "cluster-") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			tst, err := Load(f, nil)
			require.NoError(t, err)
			require.NotEmpty(t, tst.Scenarios)
			for _, sc := range tst.Scenarios {
				require.NotEmpty(t, sc.Flow.Steps)
				for _, st := range sc.Flow.Steps {
					if st.URL != nil {
						require.True(t, strings.HasPrefix(st.URL.String(), "http://127.0.0.1:8099"), st.URL.String())
					}
				}
			}
			_, err = tst.ThresholdSet(nil)
			require.NoError(t, err)
		})
	}
	require.GreaterOrEqual(t, n, 6)
}

// TestExampleStories pins the examples to the stories they reproduce.
func TestExampleStories(t *testing.T) {
	t.Parallel()
	load := func(name string) *Test {
		tst, err := Load("../../examples/"+name, map[string]string{"TARGET_URL": "http://10.0.0.1:8080"})
		require.NoError(t, err)
		require.Len(t, tst.Scenarios, 1)
		for _, st := range tst.Scenarios[0].Flow.Steps {
			require.True(t, strings.HasPrefix(st.URL.String(), "http://10.0.0.1:8080/"), "TARGET_URL overrides the default")
		}
		return tst
	}
	mins := func(m int) time.Duration { return time.Duration(m) * time.Minute }

	tst := load("load-steps.yaml")
	sc := tst.Scenarios[0]
	require.Equal(t, RampingArrivalRate, sc.Executor)
	require.Equal(t, 20, sc.PreAllocatedVUs)
	require.Equal(t, 200, sc.MaxVUs)
	require.Equal(t, []Stage{{mins(2), 10}, {mins(5), 10}, {mins(2), 30}, {mins(5), 30}, {mins(2), 50}, {mins(5), 50}, {mins(2), 0}}, sc.Stages)
	require.Equal(t, map[string][]Threshold{
		"http_req_duration": {{Expr: "p(95)<500", Line: 24}},
		"http_req_failed":   {{Expr: "rate<0.01", Line: 25}},
	}, tst.Thresholds)

	sc = load("spike.yaml").Scenarios[0]
	require.Equal(t, RampingArrivalRate, sc.Executor)
	require.InDelta(t, 10, sc.StartRate, 0)
	var peak float64
	for _, s := range sc.Stages {
		peak = max(peak, s.Target)
	}
	require.InDelta(t, 50, peak, 0)

	sc = load("ramping-vus.yaml").Scenarios[0]
	require.Equal(t, RampingVUs, sc.Executor)
	require.Equal(t, 30, sc.StartVUs)
	require.Len(t, sc.Stages, 10)
	for i, s := range sc.Stages {
		require.Equal(t, Stage{time.Minute, float64(30 * (i + 1))}, s)
	}
	require.Equal(t, Think{Min: time.Second}, sc.Flow.Steps[0].Sleep)

	sc = load("constant-1000tps.yaml").Scenarios[0]
	require.Equal(t, ConstantArrivalRate, sc.Executor)
	require.InDelta(t, 1000, sc.Rate, 0)
	require.Equal(t, time.Second, sc.TimeUnit)

	sc = load("sessions.yaml").Scenarios[0]
	require.Equal(t, RampingVUs, sc.Executor)
	require.Equal(t, 0, sc.StartVUs)
	require.Equal(t, Stage{4 * time.Minute, 240}, sc.Stages[0], "one VU per second")
	require.Len(t, sc.Flow.Steps, 31, "a login and 30 polls per session")

	tst = load("quick.yaml")
	sc = tst.Scenarios[0]
	require.Equal(t, ConstantVUs, sc.Executor)
	require.Equal(t, 10*time.Second, sc.Duration)
}
