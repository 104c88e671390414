//go:build integration

package js

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/series"
	tgt "github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/remotewrite"
)

// stagesScript is the seeds' first shape: ramping VUs in stages, one request and
// sleep(1) per iteration, setup and teardown each making one request of their own
// (told apart at the target by their status).
const stagesScript = `
import http from 'k6/http';
import { check, sleep } from 'k6';
export const options = {
  stages: [{ duration: '3s', target: 4 }, { duration: '3s', target: 4 }, { duration: '2s', target: 0 }],
  thresholds: { http_req_failed: ['rate<0.01'], checks: ['rate==1'] },
};
export function setup() {
  const res = http.get(__ENV.BASE_URL + '/setup?status=201');
  return { created: res.status };
}
export default function (data) {
  const res = http.get(__ENV.BASE_URL + '/orders');
  check(res, { 'status 200': (r) => r.status === 200, 'setup data': () => data.created === 201 });
  sleep(1);
}
export function teardown(data) {
  http.get(__ENV.BASE_URL + '/teardown?status=202');
}
`

// TestIntegrationStagesSleep runs the stages+sleep(1) script against the built-in
// target and real Prometheus: the requests Prometheus counts, the summary counts and
// the target served are the same number, and setup and teardown ran once.
func TestIntegrationStagesSleep(t *testing.T) {
	ts, base := targettest.Start(t, tgt.Config{})
	prom := promtest.StartPrometheus(t)
	dir := writeFiles(t, map[string]string{"script.js": stagesScript})

	logger := promslog.NewNopLogger()
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), Env: map[string]string{"BASE_URL": base}, Logger: logger})
	require.NoError(t, err)

	testID := fmt.Sprintf("js-stages-%d", time.Now().UnixNano())
	every := time.Second
	_, rw, err := remotewrite.Compose(remotewrite.Overrides{URLs: []string{prom.WriteURL()}, PushInterval: &every, TestID: testID})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var client *remotewrite.Client
	res, err := loadtest.Run(r.Context(ctx), loadtest.Config{
		Test: r.Test(), Source: "script.js", TestID: testID, VUs: r, Registry: r.Registry(), Logger: logger,
		Actors: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
			c, err := remotewrite.NewClient(rw[0], series.FromAggregate(agg), logger, prometheus.NewRegistry())
			client = c
			return []loadtest.Sink{c}, err
		})},
	})
	require.NoError(t, err)
	require.NoError(t, r.Err())
	require.Zero(t, client.Stats().Dropped)

	served := ts.Stats()
	require.Equal(t, int64(1), served.ByStatus["201"], "setup ran once")
	require.Equal(t, int64(1), served.ByStatus["202"], "teardown ran once")
	// 4 VUs for about 6.5 s at one iteration a second, less on the ramps.
	require.Greater(t, served.Requests, int64(15))

	snap := res.Summary.Snapshot
	var reqs float64
	for _, s := range snap.Series {
		if s.Metric.Name == "http_reqs" {
			reqs += s.Count
		}
	}
	require.Equal(t, float64(served.Requests), reqs, "the summary's http_reqs")

	// The run ended with stale markers: read each series' last value over the run.
	v := promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(`sum(max_over_time(k6_http_reqs_total{testid=%q}[10m]))`, testID), 30*time.Second,
		func(v model.Value) bool {
			vec, ok := v.(model.Vector)
			return ok && len(vec) == 1 && int64(vec[0].Value) == served.Requests
		})
	t.Logf("target served %d requests (%v), Prometheus counts %v", served.Requests, served.ByStatus, v)
	iters := promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(`sum(max_over_time(k6_iterations_total{testid=%q}[10m]))`, testID), 30*time.Second, promtest.NonEmpty)
	require.Equal(t, float64(served.Requests-2), float64(iters.(model.Vector)[0].Value), "one request per iteration, plus setup's and teardown's")
}

// customScript makes requests and feeds custom metrics, with thresholds on them that
// pass or, with FAIL set, fail.
const customScript = `
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
const orders = new Counter('orders');
const basket = new Trend('basket_size');
export const options = {
  vus: 2, iterations: 10,
  thresholds: {
    orders: [__ENV.FAIL ? 'count>10' : 'count==10'],
    basket_size: ['max<100'],
  },
};
export default function () {
  http.get(__ENV.BASE_URL + '/order');
  orders.add(1);
  basket.add(__ITER === 0 ? 7 : 3);
}
`

// TestIntegrationCustomMetrics: custom metrics reach Prometheus under k6's names
// (k6_orders_total) with the requests the target counted, and thresholds on them pass
// (exit 0) or fail (exit 99).
func TestIntegrationCustomMetrics(t *testing.T) {
	prom := promtest.StartPrometheus(t)
	dir := writeFiles(t, map[string]string{"script.js": customScript})
	for _, fail := range []bool{false, true} {
		ts, base := targettest.Start(t, tgt.Config{})
		env := map[string]string{"BASE_URL": base}
		if fail {
			env["FAIL"] = "1"
		}
		logger := promslog.NewNopLogger()
		r, err := New(Config{Script: filepath.Join(dir, "script.js"), Env: env, Logger: logger})
		require.NoError(t, err)
		testID := fmt.Sprintf("js-custom-%v-%d", fail, time.Now().UnixNano())
		every := time.Second
		_, rw, err := remotewrite.Compose(remotewrite.Overrides{URLs: []string{prom.WriteURL()}, PushInterval: &every, TestID: testID})
		require.NoError(t, err)
		_, err = loadtest.Run(r.Context(context.Background()), loadtest.Config{
			Test: r.Test(), Source: "script.js", TestID: testID, VUs: r, Registry: r.Registry(), Logger: logger,
			Actors: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
				c, err := remotewrite.NewClient(rw[0], series.FromAggregate(agg), logger, prometheus.NewRegistry())
				return []loadtest.Sink{c}, err
			})},
		})
		want := 0
		if fail {
			want = exitcode.ThresholdsFailed
		}
		require.Equal(t, want, exitcode.Of(err), "%v", err)
		require.Equal(t, int64(10), ts.Stats().Requests)
		promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(`sum(max_over_time(k6_orders_total{testid=%q}[10m]))`, testID), 30*time.Second,
			func(v model.Value) bool {
				vec, ok := v.(model.Vector)
				return ok && len(vec) == 1 && vec[0].Value == 10
			})
		promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(`max(max_over_time(k6_basket_size_max{testid=%q}[10m]))`, testID), 30*time.Second,
			func(v model.Value) bool {
				vec, ok := v.(model.Vector)
				return ok && len(vec) == 1 && vec[0].Value == 7
			})
	}
}
