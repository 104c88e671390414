package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadK6: a scenario file gets k6's K6_* options as a script does: the shortcuts
// replace its scenarios (running its top-level flow), the test-wide ones override it,
// and without any the file loads as Load loads it (its line numbers in messages).
func TestLoadK6(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	file := write("t.yaml", "scenarios:\n  long: {executor: constant-vus, vus: 1, duration: 1h}\nsummaryTrendStats: [avg]\nflow:\n  - url: http://127.0.0.1:1/\n")

	tst, replaced, err := LoadK6(file, nil, map[string]string{"K6_VUS": "3", "K6_DURATION": "2s", "K6_SUMMARY_TREND_STATS": "p(99),count"})
	require.NoError(t, err)
	require.Equal(t, []string{"K6_DURATION", "K6_VUS"}, replaced)
	require.Len(t, tst.Scenarios, 1)
	sc := tst.Scenarios[0]
	require.Equal(t, ConstantVUs, sc.Executor)
	require.Equal(t, 3, sc.VUs)
	require.Equal(t, "2s", sc.Duration.String())
	require.Len(t, sc.Flow.Steps, 1, "the file's flow")
	require.Equal(t, []string{"p(99)", "count"}, tst.SummaryTrendStats)

	require.Empty(t, tst.SummaryBreakdown, "off unless asked for")
	require.Equal(t, DefaultSummaryBreakdownLimit, tst.BreakdownLimit())
	require.NotContains(t, tst.K6Options(nil), "summaryBreakdown")

	tst, _, err = LoadK6(file, nil, map[string]string{BreakdownEnv: "name,status", BreakdownLimitEnv: "20"})
	require.NoError(t, err)
	require.Equal(t, []string{"name", "status"}, tst.SummaryBreakdown)
	require.Equal(t, 20, tst.BreakdownLimit())
	require.Equal(t, []string{"name", "status"}, tst.K6Options(nil)["summaryBreakdown"])
	require.Equal(t, 20, tst.K6Options(nil)["summaryBreakdownLimit"])

	tst, replaced, err = LoadK6(file, nil, nil)
	require.NoError(t, err)
	require.Empty(t, replaced)
	require.Equal(t, "long", tst.Scenarios[0].Name)

	bad := write("bad.yaml", "scenarios:\n  long: {executor: constant-vus, vus: 1, duration: 1h}\nflow:\n  - url: http://127.0.0.1:1/\n    method: FETCH\n")
	_, _, err = LoadK6(bad, nil, map[string]string{"K6_TAGS": ""})
	require.ErrorContains(t, err, "bad.yaml:5")

	_, _, err = LoadK6(file, nil, map[string]string{"K6_STAGES": "oops"})
	require.ErrorContains(t, err, "K6_STAGES")
}
