//go:build integration

package metrics_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/series"
	tgt "github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/remotewrite"
)

// customScript adds to one metric of each type per iteration: 10 iterations, the counter
// by 2 (tagged kind=web), the gauge to the iteration number, the rate true on even
// iterations, the time trend the request's duration. THRESHOLD_COUNT sets the
// counter's threshold: 20 passes, anything else fails.
const customScript = `
import http from 'k6/http';
import exec from 'k6/execution';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
const orders = new Counter('orders');
const depth = new Gauge('queue_depth');
const ok = new Rate('order_ok');
const wait = new Trend('order_wait', true);
export const options = {
  scenarios: { s: { executor: 'shared-iterations', vus: 2, iterations: 10 } },
  thresholds: {
    orders: ['count==' + __ENV.THRESHOLD_COUNT],
    'orders{kind:web}': ['count>0'],
    order_ok: ['rate==0.5'],
    order_wait: ['max<5000'],
  },
};
export default function () {
  const res = http.get(__ENV.BASE_URL + '/orders');
  const i = exec.scenario.iterationInTest;
  orders.add(2, { kind: 'web' });
  depth.add(i);
  ok.add(i % 2 === 0);
  wait.add(res.timings.duration);
}
`

// TestIntegrationCustomMetrics runs a script with custom metrics of every type against
// the built-in target with remote write into a real Prometheus: they reach Prometheus
// under k6's names (k6_<name>_total, k6_<name>, k6_<name>_rate, k6_<name>_<stat> in
// seconds for a time trend), with the sample's tags, and thresholds on them pass (exit 0)
// and fail (exit 99).
func TestIntegrationCustomMetrics(t *testing.T) {
	_, base := targettest.Start(t, tgt.Config{})
	prom := promtest.StartPrometheus(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "custom.js")
	require.NoError(t, os.WriteFile(script, []byte(customScript), 0o600))

	run := func(t *testing.T, count int) (string, error) {
		t.Helper()
		logger := promslog.NewNopLogger()
		r, err := js.New(js.Config{Script: script, Env: map[string]string{"BASE_URL": base, "THRESHOLD_COUNT": fmt.Sprint(count)}, Logger: logger})
		require.NoError(t, err)
		testID := fmt.Sprintf("js-custom-%d-%d", count, time.Now().UnixNano())
		every := time.Second
		_, rw, err := remotewrite.Compose(remotewrite.Overrides{URLs: []string{prom.WriteURL()}, PushInterval: &every, TestID: testID})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err = loadtest.Run(r.Context(ctx), loadtest.Config{
			Test: r.Test(), Source: "custom.js", TestID: testID, VUs: r, Registry: r.Registry(), Logger: logger,
			Actors: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
				c, err := remotewrite.NewClient(rw[0], series.FromAggregate(agg), logger, prometheus.NewRegistry())
				return []loadtest.Sink{c}, err
			})},
		})
		require.NoError(t, r.Err())
		return testID, err
	}

	t.Run("thresholds pass", func(t *testing.T) {
		testID, err := run(t, 20)
		require.NoError(t, err)
		require.Equal(t, exitcode.OK, exitcode.Of(err))
		// The run ended with stale markers: read each series' last value over the run.
		last := func(expr string, want func(float64) bool) {
			t.Helper()
			promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(expr, testID), 30*time.Second, func(v model.Value) bool {
				vec, ok := v.(model.Vector)
				return ok && len(vec) == 1 && want(float64(vec[0].Value))
			})
		}
		last(`max_over_time(k6_orders_total{testid=%q, kind="web", scenario="s"}[10m])`, func(v float64) bool { return v == 20 })
		last(`count(last_over_time(k6_queue_depth{testid=%q}[10m]))`, func(v float64) bool { return v == 1 })
		last(`max_over_time(k6_queue_depth{testid=%q}[10m]) <= 9`, func(float64) bool { return true })
		last(`last_over_time(k6_order_ok_rate{testid=%q}[10m])`, func(v float64) bool { return v == 0.5 })
		// A time trend is in seconds: the target answers in well under a second.
		last(`max_over_time(k6_order_wait_max{testid=%q}[10m])`, func(v float64) bool { return v > 0 && v < 1 })
		last(`count(last_over_time(k6_order_wait_p99{testid=%q}[10m]))`, func(v float64) bool { return v == 1 })
	})
	t.Run("a threshold on a custom metric fails", func(t *testing.T) {
		_, err := run(t, 21)
		require.Error(t, err)
		require.Equal(t, exitcode.ThresholdsFailed, exitcode.Of(err), "%v", err)
		require.ErrorContains(t, err, "orders")
	})
}
