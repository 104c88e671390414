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

// TestLoadBrowserOption: k6's scenario option browser.type is kept and given back in
// k6's shape (k6/execution's test.options, archives, inspect).
func TestLoadBrowserOption(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "t.yaml")
	require.NoError(t, os.WriteFile(p, []byte("scenarios:\n  ui: {executor: shared-iterations, options: {browser: {type: chromium}}}\n"+
		"  api: {executor: shared-iterations}\nflow:\n  - url: http://127.0.0.1:1/\n"), 0o600))
	tst, _, err := LoadK6(p, nil, nil)
	require.NoError(t, err)
	byName := map[string]*Scenario{}
	for _, sc := range tst.Scenarios {
		byName[sc.Name] = sc
	}
	require.Equal(t, "chromium", byName["ui"].Browser)
	require.Empty(t, byName["api"].Browser)
	require.Equal(t, map[string]any{"browser": map[string]any{"type": "chromium"}}, byName["ui"].K6Options("")["options"])
	require.NotContains(t, byName["api"].K6Options(""), "options")
}
