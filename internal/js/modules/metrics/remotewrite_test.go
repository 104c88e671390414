package metrics_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/remotewrite"
)

// receiver is a remote-write 1.0 endpoint keeping the last value of every series.
type receiver struct {
	mu   sync.Mutex
	last map[string]float64 // name{<kind label>} → last non-stale value
	meta map[string]map[string]string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err == nil {
		body, err = snappy.Decode(nil, body)
	}
	var req prompb.WriteRequest
	if err == nil {
		err = req.Unmarshal(body)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, ts := range req.Timeseries {
		name, labels := "", map[string]string{}
		for _, l := range ts.Labels {
			if l.Name == "__name__" {
				name = l.Value
				continue
			}
			labels[l.Name] = l.Value
		}
		for _, s := range ts.Samples {
			if s.Value == s.Value { // Stale markers are NaN.
				key := name + "{" + labels["kind"] + "}"
				rc.last[key] = s.Value
				rc.meta[key] = labels
			}
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// TestCustomMetricsRemoteWrite: custom metrics reach a remote-write endpoint under
// k6's names, labelled with the VU's tags and their own, as built-in ones do.
func TestCustomMetricsRemoteWrite(t *testing.T) {
	t.Parallel()
	rc := &receiver{last: map[string]float64{}, meta: map[string]map[string]string{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL + "/api/v1/write")
	require.NoError(t, err)
	cfg := remotewrite.DefaultConfig
	cfg.URL = &config.URL{URL: u}
	cfg.Series.TrendStats = []string{"p(99)", "max"}
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
const orders = new Counter('orders');
const queue = new Gauge('queue');
const ok = new Rate('ok');
const latency = new Trend('latency', true);
export const options = { vus: 1, iterations: 4 };
export default function () {
  orders.add(2, { kind: 'big' });
  queue.add(__ITER);
  ok.add(__ITER < 3);
  latency.add(250);
}
`})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), nil, modulestest.WithSinks(
		func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
			c, err := remotewrite.NewClient(cfg, series.FromAggregate(agg), promslog.NewNopLogger(), prometheus.NewRegistry())
			return []loadtest.Sink{c}, err
		}))
	require.NoError(t, out.Err)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for key, want := range map[string]float64{
		"k6_orders_total{big}": 8,
		"k6_queue{}":           3,
		"k6_ok_rate{}":         0.75,
		"k6_latency_max{}":     0.25, // seconds
	} {
		require.Contains(t, rc.last, key)
		require.InDelta(t, want, rc.last[key], 1e-9, key)
	}
	require.InDelta(t, 0.25, rc.last["k6_latency_p99{}"], 0.25*0.003)
	require.Equal(t, map[string]string{"kind": "big", "scenario": "default", "testid": "test"}, rc.meta["k6_orders_total{big}"])
}
