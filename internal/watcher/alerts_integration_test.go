//go:build integration

package watcher_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// alertsBlock is the rule file in docs/exporter.md: the first yaml block of its
// Alerting section.
var alertsBlock = regexp.MustCompile("(?s)### Alerting\n.*?```yaml\n(.*?)```")

// TestAlertingRules checks the alerting rules docs/exporter.md shows with the real
// promtool: they parse (promtool check rules), TidemarkRegression fires when a
// kind="regression" change appears and stops once it was there 6 h earlier, an
// improvement never fires, and TidemarkExporterStale fires after ten minutes without a
// look (promtool test rules).
func TestAlertingRules(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/exporter.md")
	require.NoError(t, err)
	m := alertsBlock.FindSubmatch(doc)
	require.NotNil(t, m, "docs/exporter.md has no yaml block under ### Alerting")
	dir := t.TempDir()
	rules := filepath.Join(dir, "tidemark-exporter.rules.yml")
	require.NoError(t, os.WriteFile(rules, m[1], 0o600))
	out, err := exec.Command("/usr/bin/promtool", "check", "rules", rules).CombinedOutput()
	require.NoError(t, err, "promtool check rules:\n%s", out)
	require.Contains(t, string(out), "SUCCESS: 2 rules found")

	const regression = `tidemark_fact_regression{baseline_testid="spike-50-20260301",fact="hpa_reaction_seconds",from="load_step",instance="exporter:9466",job="tidemark-exporter",kind="regression",object="shoong/order",testid="spike-50-20260302"}`
	const improvement = `tidemark_fact_regression{baseline_testid="spike-50-20260301",fact="error_ratio",instance="exporter:9466",job="tidemark-exporter",kind="improvement",testid="spike-50-20260302"}`
	tests := `rule_files: [tidemark-exporter.rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      # The run is correlated at 10m; the exporter exposes its changes from then on.
      - series: '` + regression + `'
        values: '_x10 30x600'
      - series: '` + improvement + `'
        values: '_x10 -0.01x600'
      - series: 'tidemark_exporter_last_success_timestamp_seconds{instance="exporter:9466",job="tidemark-exporter"}'
        values: '60+60x10 660x60'
    alert_rule_test:
      - eval_time: 5m
        alertname: TidemarkRegression
        exp_alerts: []
      - eval_time: 20m
        alertname: TidemarkRegression
        exp_alerts:
          - exp_labels:
              severity: warning
              baseline_testid: spike-50-20260301
              fact: hpa_reaction_seconds
              from: load_step
              instance: exporter:9466
              job: tidemark-exporter
              kind: regression
              object: shoong/order
              testid: spike-50-20260302
            exp_annotations:
              summary: "spike-50-20260302: hpa_reaction_seconds shoong/order regressed by 30 against spike-50-20260301"
              description: "See the run's report under the exporter's /runs."
      - eval_time: 7h
        alertname: TidemarkRegression
        exp_alerts: []
      - eval_time: 12m
        alertname: TidemarkExporterStale
        exp_alerts: []
      - eval_time: 40m
        alertname: TidemarkExporterStale
        exp_alerts:
          - exp_labels:
              severity: warning
              instance: exporter:9466
              job: tidemark-exporter
            exp_annotations:
              summary: "tidemark exporter exporter:9466 has not completed a look for 10 minutes"
`
	testFile := filepath.Join(dir, "tests.yml")
	require.NoError(t, os.WriteFile(testFile, []byte(tests), 0o600))
	cmd := exec.Command("/usr/bin/promtool", "test", "rules", "tests.yml")
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "promtool test rules:\n%s", out)
}
