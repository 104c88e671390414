package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/golang/snappy"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/loadgen"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/testrun"
	"github.com/tidemark/tidemark/remotewrite"
)

func parseOutputFlags(t *testing.T, env []string, args ...string) *outputFlags {
	t.Helper()
	app := kingpin.New("tidemark", "")
	app.Terminate(nil)
	cmd := app.Command("run", "")
	f := addOutputFlags(cmd)
	f.env = testrun.Env{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		f.env[k] = v
	}
	_, err := app.Parse(append([]string{"run"}, args...))
	require.NoError(t, err)
	return f
}

func TestOutputFlagsPrecedence(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "rw.yml")
	require.NoError(t, os.WriteFile(file, []byte("url: http://from-file/api/v1/write\npush_interval: 30s\ntrend_stats: [min]\nheaders: {X-Scope-OrgID: t1}\n"), 0o600))
	for _, tc := range []struct {
		name    string
		env     []string
		args    []string
		enabled bool
		check   func(t *testing.T, c remotewrite.Config)
	}{
		{name: "nothing configured", enabled: false},
		{name: "file", args: []string{"--remote-write.config.file=" + file}, enabled: true, check: func(t *testing.T, c remotewrite.Config) {
			require.Equal(t, "http://from-file/api/v1/write", c.URL.String())
			require.Equal(t, 30*time.Second, time.Duration(c.PushInterval))
			require.Equal(t, []string{"min"}, c.Series.TrendStats)
			require.True(t, c.StaleMarkers)
		}},
		{name: "env over file", env: []string{"K6_PROMETHEUS_RW_SERVER_URL=http://from-env/w", "K6_PROMETHEUS_RW_STALE_MARKERS=false"},
			args: []string{"--remote-write.config.file=" + file}, enabled: true, check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, "http://from-env/w", c.URL.String())
				require.Equal(t, map[string]string{"X-Scope-OrgID": "t1"}, c.Headers)
				require.False(t, c.StaleMarkers)
			}},
		{name: "flags over env", env: []string{"K6_PROMETHEUS_RW_SERVER_URL=http://from-env/w", "K6_PROMETHEUS_RW_TREND_STATS=p(99)"},
			args: []string{
				"--remote-write.url=http://from-flag/w", "--remote-write.protocol=2.0", "--remote-write.push-interval=1s",
				"--remote-write.trend-stats=p(95),max", "--remote-write.native-histograms", "--no-remote-write.stale-markers",
				"--remote-write.label=cluster=eks", "--remote-write.drop-label=url",
			}, enabled: true, check: func(t *testing.T, c remotewrite.Config) {
				require.Equal(t, "http://from-flag/w", c.URL.String())
				require.Equal(t, remotewrite.Protocol2, c.Protocol)
				require.Equal(t, time.Second, time.Duration(c.PushInterval))
				require.Equal(t, []string{"p(95)", "max"}, c.Series.TrendStats)
				require.True(t, c.Series.NativeHistograms)
				require.False(t, c.StaleMarkers)
				require.Equal(t, map[string]string{"cluster": "eks"}, c.Series.Labels)
				require.Equal(t, "url", c.Series.LabelRules[0].Label)
				require.Equal(t, "run-1", c.Series.TestID)
				require.Equal(t, "3", c.Series.InstanceID)
			}},
		{name: "k6 -o", args: []string{"-o", "experimental-prometheus-rw"}, enabled: true, check: func(t *testing.T, c remotewrite.Config) {
			require.Equal(t, "http://localhost:9090/api/v1/write", c.URL.String())
		}},
		{name: "k6 -o with env URL", env: []string{"K6_PROMETHEUS_RW_SERVER_URL=http://p/w"}, args: []string{"--out=experimental-prometheus-rw=ignored"}, enabled: true,
			check: func(t *testing.T, c remotewrite.Config) { require.Equal(t, "http://p/w", c.URL.String()) }},
		{name: "defaults", args: []string{"--remote-write.url=http://x/w"}, enabled: true, check: func(t *testing.T, c remotewrite.Config) {
			require.Equal(t, []string{"p(99)", "p(95)", "p(90)", "avg", "min", "max", "med"}, c.Series.TrendStats)
			require.Equal(t, remotewrite.Protocol1, c.Protocol)
			require.Equal(t, 5*time.Second, time.Duration(c.PushInterval))
			require.True(t, c.StaleMarkers)
			require.False(t, c.Series.NativeHistograms)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := parseOutputFlags(t, tc.env, tc.args...)
			cfgs, err := f.remoteWriteConfigs("run-1", "3")
			require.NoError(t, err)
			require.Equal(t, tc.enabled, len(cfgs) == 1)
			if tc.check != nil {
				tc.check(t, cfgs[0])
			}
		})
	}
}

func TestOutputFlagsErrors(t *testing.T) {
	t.Parallel()
	f := parseOutputFlags(t, nil, "--remote-write.url=http://x/w", "--remote-write.trend-stats=p(200)")
	_, err := f.remoteWriteConfigs("id", "")
	require.ErrorContains(t, err, `parse trend stat "p(200)"`)
	f = parseOutputFlags(t, nil, "--remote-write.url=http://x/w", "--remote-write.label=novalue")
	_, err = f.build(aggregate.New(), nil, promslog.NewNopLogger())
	require.ErrorContains(t, err, `label "novalue": want name=value`)
	f = parseOutputFlags(t, nil, "--remote-write.url=ftp://x/w")
	_, err = f.build(aggregate.New(), nil, promslog.NewNopLogger())
	require.ErrorContains(t, err, "scheme must be http or https")
	f = parseOutputFlags(t, nil, "-o", "influxdb=http://x")
	_, err = f.rwOuts()
	require.ErrorContains(t, err, `invalid output type "influxdb", available types are: csv, experimental-prometheus-rw, json`)
	// json and csv are file outputs: remote write stays off.
	f = parseOutputFlags(t, nil, "-o", "json=x.json", "-o", "csv")
	cfgs, err := f.remoteWriteConfigs("id", "")
	require.NoError(t, err)
	require.Empty(t, cfgs)
	f = parseOutputFlags(t, nil, "--remote-write.url=http://user:pa/ss@x:9090/w")
	_, err = f.remoteWriteConfigs("id", "")
	require.ErrorContains(t, err, "remote-write url")
	require.NotContains(t, err.Error(), "pa/ss")
	require.NotContains(t, err.Error(), "user:pa", "not even the part before the slash")
	f = parseOutputFlags(t, nil, "--remote-write.url=http://x/w", "--remote-write.label=1bad=x")
	_, err = f.build(aggregate.New(), nil, promslog.NewNopLogger())
	require.ErrorContains(t, err, `label "1bad=x": "1bad" is not a valid label name`)
	// Issue 24: 1ns pushed every live series about 1,250 times a second.
	f = parseOutputFlags(t, nil, "--remote-write.url=http://x/w", "--remote-write.push-interval=1ns")
	_, err = f.remoteWriteConfigs("id", "")
	require.ErrorContains(t, err, "remote write push interval 1ns: expected at least 10ms")
	f = parseOutputFlags(t, []string{"K6_PROMETHEUS_RW_SIGV4_REGION=x"})
	_, err = f.build(aggregate.New(), nil, promslog.NewNopLogger())
	require.ErrorContains(t, err, "must be set together")
}

// TestOutputSinks runs both sinks over a real aggregate store.
func TestOutputSinks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []prompb.TimeSeries
	rw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, body)
		require.NoError(t, err)
		var req prompb.WriteRequest
		require.NoError(t, req.Unmarshal(raw))
		mu.Lock()
		got = append(got, req.Timeseries...)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rw.Close()

	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltin(reg)
	pool := metrics.NewTagPool()
	store := aggregate.New()
	tags := pool.Intern([]metrics.Tag{{Key: "testid", Value: "run-9"}, {Key: "status", Value: "200"}})
	store.Push([]metrics.Sample{{Metric: b.HTTPReqs, Tags: tags, Time: time.Now(), Value: 5}})

	f := parseOutputFlags(t, []string{"JOB_COMPLETION_INDEX=2"},
		"--remote-write.url="+rw.URL, "--exporter.listen-address=127.0.0.1:0", "--remote-write.label=team=a")
	sinks, err := f.build(store, map[string]string{"testid": "run-9"}, promslog.NewNopLogger())
	require.NoError(t, err)
	require.Len(t, sinks, 2)
	for _, s := range sinks {
		s.Start()
	}
	addr := strings.TrimPrefix(sinks[1].(loadtest.Summarizer).SummaryLines()[0], "exporter: served on ")
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(page), `k6_http_reqs_total{instance_id="2",status="200",team="a",testid="run-9"} 5`)
	require.Contains(t, string(page), "tidemark_remote_write_samples_total")
	require.Contains(t, string(page), "tidemark_build_info")
	for _, s := range sinks {
		require.NoError(t, s.Stop())
	}
	// The run's series and the load generator's CPU (seconds and cores), each in the
	// final push and its stale marker.
	require.Equal(t, []string{"remote write: 6 samples in 2 requests, 0 retries, 0 dropped"}, sinks[0].(loadtest.Summarizer).SummaryLines())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 6, "final push and stale marker")
	byName := map[string]prompb.TimeSeries{}
	for _, ts := range got[:3] {
		byName[ts.Labels[0].Value] = ts
	}
	require.Equal(t, []prompb.Label{{Name: "__name__", Value: "k6_http_reqs_total"}, {Name: "instance_id", Value: "2"},
		{Name: "status", Value: "200"}, {Name: "team", Value: "a"}, {Name: "testid", Value: "run-9"}}, byName["k6_http_reqs_total"].Labels)
	require.Equal(t, 5.0, byName["k6_http_reqs_total"].Samples[0].Value)
	for _, name := range []string{loadgen.CPUSecondsMetric, loadgen.CPUCoresMetric} {
		require.Equal(t, []prompb.Label{{Name: "__name__", Value: name}, {Name: "instance_id", Value: "2"},
			{Name: "team", Value: "a"}, {Name: "testid", Value: "run-9"}}, byName[name].Labels)
	}
	require.Positive(t, byName[loadgen.CPUCoresMetric].Samples[0].Value, "the cores the generator may use")
	// The exporter serves the run's series alone: the process's CPU is its own process_cpu_seconds_total.
	require.NotContains(t, string(page), loadgen.CPUCoresMetric)
}

// TestTwoEndpoints: a repeated --remote-write.url pushes every series to each endpoint.
func TestTwoEndpoints(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hits := map[string]int{}
	handler := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			mu.Lock()
			hits[name]++
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		})
	}
	a := httptest.NewServer(handler("a"))
	defer a.Close()
	b := httptest.NewServer(handler("b"))
	defer b.Close()
	f := parseOutputFlags(t, nil, "--remote-write.url="+a.URL, "--remote-write.url="+b.URL, "--exporter.listen-address=127.0.0.1:0")
	cfgs, err := f.remoteWriteConfigs("id", "0")
	require.NoError(t, err)
	require.Len(t, cfgs, 2)
	store := aggregate.New()
	sinks, err := f.build(store, map[string]string{"testid": "id"}, promslog.NewNopLogger())
	require.NoError(t, err)
	require.Len(t, sinks, 3)
	for _, s := range sinks {
		s.Start()
	}
	addr := strings.TrimPrefix(sinks[2].(loadtest.Summarizer).SummaryLines()[0], "exporter: served on ")
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(page), `tidemark_remote_write_samples_total{url="`+a.URL+`"}`)
	require.Contains(t, string(page), `tidemark_remote_write_samples_total{url="`+b.URL+`"}`)
	for _, s := range sinks {
		require.NoError(t, s.Stop())
	}
	require.Equal(t, []string{"remote write: 0 samples in 0 requests, 0 retries, 0 dropped (" + b.URL + ")"}, sinks[1].(loadtest.Summarizer).SummaryLines())
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 0, hits["a"]+hits["b"], "an empty store sends nothing")
}
