package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/store"
)

func TestProcRSS(t *testing.T) {
	t.Parallel()
	vm, anon, err := procRSS(strings.NewReader("Name:\tx\nVmRSS:\t  2048 kB\nRssAnon:\t  1024 kB\nRssFile:\t1 kB\n"))
	require.NoError(t, err)
	require.InDelta(t, 2048*1024, vm, 0)
	require.InDelta(t, 1024*1024, anon, 0)
	_, _, err = procRSS(strings.NewReader("Name:\tx\n"))
	require.Error(t, err)
}

func TestMetricValue(t *testing.T) {
	t.Parallel()
	v, err := metricValue(strings.NewReader("# HELP go_memstats_heap_inuse_bytes x\ngo_memstats_heap_inuse_bytes_total 1\ngo_memstats_heap_inuse_bytes 1.5e+07\n"), "go_memstats_heap_inuse_bytes")
	require.NoError(t, err)
	require.InDelta(t, 1.5e7, v, 0)
	_, err = metricValue(strings.NewReader("other 1\n"), "go_memstats_heap_inuse_bytes")
	require.Error(t, err)
}

func TestJudge(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	at := func(s int, heap float64) sample {
		return sample{at: time.Duration(s) * time.Second, heapInuse: heap * mib}
	}
	for _, tc := range []struct {
		name    string
		warmup  time.Duration
		samples []sample
		ok      bool
	}{
		{"flat", 0, []sample{at(10, 100), at(20, 104), at(50, 101), at(90, 110), at(100, 106)}, true},
		{"within tolerance and slack", 0, []sample{at(10, 100), at(20, 100), at(90, 127), at(100, 127)}, true},
		{"grows", 0, []sample{at(10, 100), at(20, 100), at(90, 140), at(100, 150)}, false},
		{"grows during the warm-up only", 30 * time.Second, []sample{at(10, 50), at(20, 60), at(40, 100), at(50, 100), at(90, 110), at(100, 106)}, true},
		{"grows after the warm-up", 30 * time.Second, []sample{at(10, 50), at(20, 60), at(40, 100), at(50, 100), at(90, 140), at(100, 150)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cs := judge(tc.samples, tc.warmup, 30*time.Second, 100*time.Second, 0.2, 8*mib)
			require.Len(t, cs, 1, "only the heap was sampled")
			require.Equal(t, tc.ok, cs[0].ok(), "%+v", cs[0])
		})
	}
}

// TestSoakCountsEverySample runs a short soak against the embedded store: every
// acknowledged sample is counted, queries succeed, memory is sampled.
func TestSoakCountsEverySample(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	st, err := store.Open(store.Config{Dir: t.TempDir()}, promslog.NewNopLogger(), reg)
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.Handle("/", st.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c, err := parse([]string{"-url", srv.URL, "-duration", "2s", "-writers", "2", "-series", "20",
		"-interval", "50ms", "-queriers", "1", "-sample-every", "100ms", "-tolerance", "10", "-pid", strconv.Itoa(os.Getpid())}, os.Stderr)
	require.NoError(t, err)
	res, err := soak(context.Background(), c, srv.Client())
	require.NoError(t, err)
	require.Positive(t, res.acked)
	require.Equal(t, res.acked, res.stored, res.report(c))
	require.Positive(t, res.queries)
	require.Zero(t, res.queryErrs, res.lastQueryErr)
	require.Len(t, res.checks, 3, "heap, VmRSS and RssAnon")
	require.True(t, res.ok(), res.report(c))
	require.Contains(t, res.report(c), "per window (MiB)")
}
