//go:build integration

package remotewrite_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/series/seriestest"
	"github.com/tidemark/tidemark/remotewrite"
)

// syntheticRun fills a real aggregate store with every metric type, tagged as the
// engine tags samples (testid on every sample).
type syntheticRun struct {
	run    *seriestest.Run
	store  *aggregate.Store
	testID string
	ok     *metrics.TagSet
	fail   *metrics.TagSet
}

func newSyntheticRun(testID string) *syntheticRun {
	r := &syntheticRun{run: seriestest.NewRun(), store: aggregate.New(), testID: testID}
	r.ok = r.run.Tags("testid", testID, "scenario", "default", "method", "GET", "status", "200", "name", "http://127.0.0.1/api",
		"url", "http://127.0.0.1/api", "expected_response", "true", "proto", "HTTP/1.1")
	r.fail = r.run.Tags("testid", testID, "scenario", "default", "method", "GET", "status", "503", "name", "http://127.0.0.1/api",
		"url", "http://127.0.0.1/api", "expected_response", "false", "proto", "HTTP/1.1", "error_code", "1503")
	return r
}

// requests pushes n requests: every 20th fails; durations are 1 ms … 1000 ms.
func (r *syntheticRun) requests(from, n int) {
	b := r.run.Builtin
	now := time.Now()
	run := r.run.Tags("testid", r.testID)
	sc := r.run.Tags("testid", r.testID, "scenario", "default")
	var ss []metrics.Sample
	for i := from; i < from+n; i++ {
		tags, failed := r.ok, 0.0
		if i%20 == 19 {
			tags, failed = r.fail, 1
		}
		d := float64(i%1000+1) / 1000
		ss = append(ss,
			metrics.Sample{Metric: b.HTTPReqs, Tags: tags, Time: now, Value: 1},
			metrics.Sample{Metric: b.HTTPReqDuration, Tags: tags, Time: now, Value: d},
			metrics.Sample{Metric: b.HTTPReqFailed, Tags: tags, Time: now, Value: failed},
			metrics.Sample{Metric: b.DataSent, Tags: sc, Time: now, Value: 100},
			metrics.Sample{Metric: b.Checks, Tags: r.run.Tags("testid", r.testID, "scenario", "default", "check", "is 200"), Time: now, Value: 1 - failed},
			metrics.Sample{Metric: r.run.Payload, Tags: sc, Time: now, Value: float64(100 + i%50)},
		)
	}
	ss = append(ss,
		metrics.Sample{Metric: b.VUs, Tags: run, Time: now, Value: 10},
		metrics.Sample{Metric: b.VUsMax, Tags: run, Time: now, Value: 10},
		metrics.Sample{Metric: r.run.RunInfo, Tags: run, Time: now, Value: 1},
		metrics.Sample{Metric: r.run.Target, Tags: r.run.Tags("testid", r.testID, "scenario", "default", "unit", "iterations_per_second"), Time: now, Value: 50},
	)
	r.store.Push(ss)
}

func integrationConfig(writeURL string, testID string) remotewrite.Config {
	u, err := url.Parse(writeURL)
	if err != nil {
		panic(err)
	}
	cfg := remotewrite.DefaultConfig
	cfg.URL = &config.URL{URL: u}
	cfg.PushInterval = model.Duration(250 * time.Millisecond)
	cfg.Queue.MaxBackoff = model.Duration(time.Second)
	cfg.Series.TestID = testID
	cfg.Series.InstanceID = "it-1"
	return cfg
}

func query(t *testing.T, base, expr string) model.Vector {
	t.Helper()
	v, err := promtest.Query(context.Background(), base, expr, time.Time{})
	require.NoError(t, err, expr)
	vec, ok := v.(model.Vector)
	require.True(t, ok, "%s: %T", expr, v)
	return vec
}

func labelSet(m model.Metric) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, string(k))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		if n != model.MetricNameLabel {
			parts = append(parts, fmt.Sprintf("%s=%q", n, m[model.LabelName(n)]))
		}
	}
	return string(m[model.MetricNameLabel]) + "{" + strings.Join(parts, ",") + "}"
}

// TestIntegrationSeriesLand pushes a synthetic run into real Prometheus and
// VictoriaMetrics: every series lands with the contract's exact names, labels and
// units; after Stop, stale markers make them vanish from instant queries.
func TestIntegrationSeriesLand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		start  func(testing.TB, ...promtest.Option) *promtest.Server
		native bool
	}{
		{name: "prometheus", start: promtest.StartPrometheus, native: true},
		// VictoriaMetrics 1.79 has no native histograms: the float series must land
		// regardless, which is why histograms travel in their own requests.
		{name: "victoria-metrics", start: promtest.StartVictoriaMetrics, native: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.start(t)
			testID := "land-" + tc.name
			run := newSyntheticRun(testID)
			run.requests(0, 2000)
			cfg := integrationConfig(srv.WriteURL(), testID)
			cfg.Series.NativeHistograms = tc.native
			src := series.FromAggregate(run.store)
			logger, logs := newLogger(slog.LevelInfo)
			c, err := remotewrite.NewClient(cfg, src, logger, nil)
			require.NoError(t, err)
			c.Start()
			defer func() { _ = c.Stop() }() // a safety net on failure; the test checks Stop itself

			m, err := series.NewMapper(cfg.Series)
			require.NoError(t, err)
			want := map[string]float64{}
			for _, s := range m.Map(nil, src.Snapshot()) {
				if s.Histogram != nil {
					continue
				}
				var parts []string
				for _, l := range s.Labels {
					parts = append(parts, fmt.Sprintf("%s=%q", l.Name, l.Value))
				}
				want[s.Name+"{"+strings.Join(parts, ",")+"}"] = s.Value
			}
			sel := fmt.Sprintf(`{testid=%q,__name__!~".*_seconds|.*_bytes"}`, testID)
			promtest.WaitForQuery(t, srv.URL, sel, 30*time.Second, promtest.SeriesCount(len(want)))
			got := map[string]float64{}
			for _, s := range query(t, srv.URL, sel) {
				got[labelSet(s.Metric)] = float64(s.Value)
			}
			require.Len(t, got, len(want))
			for k, v := range want {
				require.Contains(t, got, k)
				// VictoriaMetrics keeps 12 significant digits.
				require.InEpsilon(t, v+1e-12, got[k]+1e-12, 1e-9, k)
			}

			// Spot checks of the contract, written out.
			ok := `expected_response="true",instance_id="it-1",method="GET",name="http://127.0.0.1/api",proto="HTTP/1.1",scenario="default",status="200",testid="` + testID + `",url="http://127.0.0.1/api"`
			require.Equal(t, 1900.0, got["k6_http_reqs_total{"+ok+"}"])
			require.Equal(t, 0.999, got["k6_http_req_duration_max{"+ok+"}"], "seconds, not ms")
			require.InEpsilon(t, 0.95, got["k6_http_req_duration_p95{"+ok+"}"], 0.01)
			require.Equal(t, 10.0, got[`k6_vus{instance_id="it-1",testid="`+testID+`"}`])
			require.Equal(t, 1.0, got[`tidemark_run_info{instance_id="it-1",testid="`+testID+`"}`], "no k6_ prefix")
			require.Equal(t, 200000.0, got[`k6_data_sent_total{instance_id="it-1",scenario="default",testid="`+testID+`"}`])
			require.InDelta(t, 0.95, got[`k6_checks_rate{check="is 200",instance_id="it-1",scenario="default",testid="`+testID+`"}`], 1e-9)

			if tc.name == "prometheus" {
				h := promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`k6_http_req_duration_seconds{testid=%q}`, testID), 10*time.Second, promtest.SeriesCount(2))
				require.NotNil(t, h.(model.Vector)[0].Histogram, "a native histogram")
				require.Empty(t, logs.lines("Remote write rejected"))
			}

			// Counters move on; the next pushes carry them.
			run.requests(2000, 1000)
			promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`sum(k6_http_reqs_total{testid=%q})`, testID), 30*time.Second, func(v model.Value) bool {
				vec := v.(model.Vector)
				return len(vec) == 1 && vec[0].Value == 3000
			})

			require.NoError(t, c.Stop())
			st := c.Stats()
			require.Zero(t, st.Retries)
			if tc.name == "prometheus" {
				require.Zero(t, st.Dropped)
			}
			// Stale markers: every series vanishes from instant queries a push interval after the end.
			promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`{testid=%q}`, testID), 30*time.Second, promtest.SeriesCount(0))
			// The data is still there for range queries.
			vec := query(t, srv.URL, fmt.Sprintf(`sum(last_over_time(k6_http_reqs_total{testid=%q}[5m]))`, testID))
			require.Len(t, vec, 1)
			require.Equal(t, 3000.0, float64(vec[0].Value))
		})
	}
}

// TestIntegrationNativeHistogramQuantile: the native histogram's p95 through
// histogram_quantile agrees with the exact p95 within the schema-3 bucket width, and
// with the p95 gauge; it also aggregates across instances.
func TestIntegrationNativeHistogramQuantile(t *testing.T) {
	t.Parallel()
	srv := promtest.StartPrometheus(t)
	testID := "hq"
	var clients []*remotewrite.Client
	for i, instance := range []string{"a", "b"} {
		run := newSyntheticRun(testID)
		run.requests(i*1000, 1000) // together: 1 ms … 1000 ms, twice over
		cfg := integrationConfig(srv.WriteURL(), testID)
		cfg.Series.NativeHistograms = true
		cfg.Series.InstanceID = instance
		c, err := remotewrite.NewClient(cfg, series.FromAggregate(run.store), promslog.NewNopLogger(), nil)
		require.NoError(t, err)
		c.Start()
		defer func() { _ = c.Stop() }() // a safety net on failure; the test checks Stop itself
		clients = append(clients, c)
	}
	expr := fmt.Sprintf(`histogram_quantile(0.95, sum(k6_http_req_duration_seconds{testid=%q}))`, testID)
	v := promtest.WaitForQuery(t, srv.URL, expr, 30*time.Second, promtest.SeriesCount(1))
	got := float64(v.(model.Vector)[0].Value)
	var all []float64
	for i := range 2000 {
		all = append(all, float64(i%1000+1)/1000)
	}
	exact := seriestest.NewDist(all...)
	// Schema 3 buckets are 2^(1/8) ≈ 9% wide; interpolation lands within one bucket.
	require.InEpsilon(t, exact.Quantile(0.95), got, 0.09, "histogram_quantile %v vs exact %v", got, exact.Quantile(0.95))

	gauge := promtest.WaitForQuery(t, srv.URL, fmt.Sprintf(`max(k6_http_req_duration_p95{testid=%q,instance_id="a",status="200"})`, testID), 10*time.Second, promtest.SeriesCount(1))
	require.InEpsilon(t, 0.95, float64(gauge.(model.Vector)[0].Value), 0.01)
	for _, c := range clients {
		require.NoError(t, c.Stop())
	}
}

// TestIntegrationReceiverRestart: Prometheus is killed for 20 s mid-stream and
// restarted: the final counters are exact, retries are counted, nothing is dropped.
func TestIntegrationReceiverRestart(t *testing.T) {
	t.Parallel()
	prom := promtest.StartPrometheus(t)

	testID := "restart"
	run := newSyntheticRun(testID)
	cfg := integrationConfig(prom.WriteURL(), testID)
	cfg.Series.NativeHistograms = true
	cfg.Queue.MaxBackoff = model.Duration(2 * time.Second)
	logger, logs := newLogger(slog.LevelInfo)
	c, err := remotewrite.NewClient(cfg, series.FromAggregate(run.store), logger, nil)
	require.NoError(t, err)
	c.Start()
	defer func() { _ = c.Stop() }() // a safety net on failure; the test checks Stop itself

	total := 0
	step := func(d time.Duration) {
		end := time.Now().Add(d)
		for time.Now().Before(end) {
			run.requests(total, 100)
			total += 100
			time.Sleep(100 * time.Millisecond)
		}
	}
	step(2 * time.Second)
	promtest.WaitForQuery(t, prom.URL, fmt.Sprintf(`sum(k6_http_reqs_total{testid=%q})`, testID), 10*time.Second, promtest.NonEmpty)
	prom.Kill()
	step(20 * time.Second)
	prom.Restart(t)
	step(2 * time.Second)
	require.NoError(t, c.Stop())

	vec := query(t, prom.URL, fmt.Sprintf(`sum(last_over_time(k6_http_reqs_total{testid=%q}[5m]))`, testID))
	require.Len(t, vec, 1)
	require.Equal(t, float64(total), float64(vec[0].Value), "final counter exact")
	st := c.Stats()
	require.Positive(t, st.Retries, "retries counted")
	require.Positive(t, st.Superseded, "the backlog coalesced")
	require.Zero(t, st.Dropped)
	require.Len(t, logs.lines("Remote write failed, retrying"), 1)
	require.Len(t, logs.lines("Remote write recovered"), 1)
	t.Log(st.String())
}

// TestIntegrationRejections: a wrong path (404) and wrong credentials (401) each give
// one clear message, no retry storm, and the client keeps running and stops cleanly.
func TestIntegrationRejections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		start   func(t *testing.T) string // returns the write URL
		status  string
		message string
	}{
		{name: "404 wrong path", status: "status=404", message: "404 page not found", start: func(t *testing.T) string {
			return promtest.StartPrometheus(t).URL + "/api/v1/wrong"
		}},
		{name: "401 wrong credentials", status: "status=401", message: "message=", start: func(t *testing.T) string {
			return promtest.StartVictoriaMetrics(t, promtest.WithArgs("-httpAuth.username=u", "-httpAuth.password=right")).WriteURL()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := newSyntheticRun("rej")
			run.requests(0, 100)
			cfg := integrationConfig(tc.start(t), "rej")
			cfg.PushInterval = model.Duration(100 * time.Millisecond)
			cfg.HTTPClientConfig.BasicAuth = &config.BasicAuth{Username: "u", Password: "wrong-password"}
			logger, logs := newLogger(slog.LevelInfo)
			c, err := remotewrite.NewClient(cfg, series.FromAggregate(run.store), logger, nil)
			require.NoError(t, err)
			c.Start()
			require.Eventually(t, func() bool { return c.Stats().Dropped > 100 }, 20*time.Second, 20*time.Millisecond, "the stream continues")
			require.NoError(t, c.Stop())
			st := c.Stats()
			require.Zero(t, st.Retries, "no retry storm")
			lines := logs.lines("Remote write rejected")
			require.Len(t, lines, 1, "one message:\n%s", logs.String())
			require.Contains(t, lines[0], tc.status)
			require.Contains(t, lines[0], tc.message)
			require.NotContains(t, logs.String(), "wrong-password")
			t.Log(lines[0])
		})
	}
}

// TestIntegrationOversizeRequest: VictoriaMetrics with a 1,000-byte request limit answers
// a larger request 400 "too big". The client splits it at once and halves its batches
// for the rest of the run: every series lands, nothing is dropped, and the log says
// the batch size was lowered, once per halving.
func TestIntegrationOversizeRequest(t *testing.T) {
	t.Parallel()
	vm := promtest.StartVictoriaMetrics(t, promtest.WithArgs("-maxInsertRequestSize=1000"))
	testID := "oversize"
	run := newSyntheticRun(testID)
	run.requests(0, 100)
	cfg := integrationConfig(vm.WriteURL(), testID)
	cfg.PushInterval = model.Duration(100 * time.Millisecond)
	logger, logs := newLogger(slog.LevelInfo)
	src := series.FromAggregate(run.store)
	c, err := remotewrite.NewClient(cfg, src, logger, nil)
	require.NoError(t, err)
	c.Start()
	m, err := series.NewMapper(cfg.Series)
	require.NoError(t, err)
	all := m.Map(nil, src.Snapshot())
	promtest.WaitForQuery(t, vm.URL, fmt.Sprintf(`{testid=%q}`, testID), 60*time.Second, promtest.SeriesCount(len(all)))
	require.NoError(t, c.Stop())
	st := c.Stats()
	require.Zero(t, st.Dropped, "%s\n%s", st, logs.String())
	require.Empty(t, logs.lines("Remote write rejected"))
	require.NotEmpty(t, logs.lines("Halving remote write batch size"))
}
