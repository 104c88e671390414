//go:build integration

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/target"
)

// TestIntegrationK6RemoteWriteSeries runs a k6 script the way a k6 CronJob does (-o
// experimental-prometheus-rw and K6_PROMETHEUS_RW_* variables only) into a real
// Prometheus and a real VictoriaMetrics, and reads the run back as Grafana does:
//   - a range query at a 1 s step over the run and after it ends on the summary's
//     http_reqs count: the final totals stay for a push interval before their stale
//     markers (a marker 1 ms after the final push showed the push before, 50 of 78);
//     after that nothing of the run is left in instant queries;
//   - a single instance writes no instance_id (k6 writes none);
//   - native histograms asked for with k6's variable (or --features) come instead of the trend gauges
//     (seven gauges per trend came as well);
//   - K6_PROMETHEUS_RW_LABELS labels every series, and its testid names the run.
func TestIntegrationK6RemoteWriteSeries(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	for _, srv := range []*promtest.Server{promtest.StartPrometheus(t), promtest.StartVictoriaMetrics(t)} {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			_, url := startTestTarget(t, target.Config{})
			script := filepath.Join(t.TempDir(), "test.js")
			require.NoError(t, os.WriteFile(script, []byte(`import http from 'k6/http';
export const options = {
  scenarios: { steady: { executor: 'constant-arrival-rate', rate: 13, timeUnit: '1s', duration: '6s', preAllocatedVUs: 4 } },
};
export default function () { http.get(__ENV.URL + '/'); }
`), 0o600))
			export := filepath.Join(t.TempDir(), "export.json")
			const push = 2 * time.Second
			testID := "k6env-" + srv.Name
			begin := time.Now().Add(-time.Second)
			env := []string{
				"K6_PROMETHEUS_RW_SERVER_URL=" + srv.WriteURL(),
				"K6_PROMETHEUS_RW_PUSH_INTERVAL=" + push.String(),
				"K6_PROMETHEUS_RW_STALE_MARKERS=true",
				"K6_PROMETHEUS_RW_LABELS=testid=" + testID + ",team=checkout",
			}
			args := []string{"run", "-q", "-o", "experimental-prometheus-rw", "--summary-export", export, "-e", "URL=" + url, script}
			if srv.Name == "prometheus" {
				env = append(env, "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true")
			} else { // k6 v2.1's feature flag asks for the same
				args = append([]string{"run", "--features", "native-histograms"}, args[1:]...)
			}
			code, out := execEnv(t, bin, env, args...)
			ended := time.Now()
			require.Equal(t, 0, code, out)
			reqs := exportedValue(t, export, "http_reqs", "count")
			require.Positive(t, reqs)

			// Grafana's range query at a 1 s step, over the run and past its stale markers
			// (stamped a push interval after the final push, already stored).
			sel := fmt.Sprintf(`{testid=%q}`, testID)
			var m model.Matrix
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				v, err := promtest.QueryRange(context.Background(), srv.URL, "sum(k6_http_reqs_total"+sel+")", begin, ended.Add(push+3*time.Second), time.Second)
				require.NoError(t, err)
				m = v.(model.Matrix)
				// VictoriaMetrics makes rows searchable after a second or two.
				if len(m) == 1 && len(m[0].Values) > 0 && float64(m[0].Values[len(m[0].Values)-1].Value) == reqs || time.Now().After(deadline) {
					break
				}
			}
			require.Len(t, m, 1, "the run's requests at a 1 s step")
			require.NotEmpty(t, m[0].Values)
			last := m[0].Values[len(m[0].Values)-1]
			require.InDelta(t, reqs, float64(last.Value), 0, "the last step of a 1 s range query shows the summary's requests:\n%v", m)
			require.True(t, last.Timestamp.Time().Before(ended.Add(push+time.Second)), "the stale markers end the series a push interval after the run (last point at %s, run ended %s)", last.Timestamp.Time(), ended)

			// Every series of the run, raw (a range selector leaves stale markers out).
			v, err := promtest.Query(context.Background(), srv.URL, sel+"[10m]", time.Time{})
			require.NoError(t, err)
			raw := v.(model.Matrix)
			require.NotEmpty(t, raw)
			gauge := regexp.MustCompile(`^k6_(http_req_[a-z_]+|iteration_duration)_(p[0-9]+|avg|min|max|med|count|sum)$`)
			names := map[string]bool{}
			for _, s := range raw {
				name := string(s.Metric[model.MetricNameLabel])
				names[name] = true
				require.NotContains(t, s.Metric, model.LabelName("instance_id"), "one instance writes no instance_id: %s", s.Metric)
				require.Equal(t, model.LabelValue("checkout"), s.Metric["team"], "K6_PROMETHEUS_RW_LABELS on %s", s.Metric)
				require.False(t, gauge.MatchString(name), "native histograms instead of trend gauges: %s", s.Metric)
			}
			if srv.Name == "prometheus" { // VictoriaMetrics 1.x stores no native histograms
				require.True(t, names["k6_http_req_duration_seconds"], "the native histogram: %v", names)
			}
			require.True(t, names["k6_http_reqs_total"], "%v", names)

			// Once the markers' time has come, nothing of the run is left in instant queries.
			promtest.WaitForQuery(t, srv.URL, sel, 30*time.Second, promtest.SeriesCount(0))
		})
	}
}

// execEnv runs the binary with env added to the test's environment and returns its exit
// code and combined output.
func execEnv(t *testing.T, bin string, env []string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return ee.ExitCode(), out.String()
	}
	require.NoError(t, err, out.String())
	return 0, out.String()
}
