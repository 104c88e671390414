package podmetrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

// podServer serves a registry with one gauge through client_golang's own handler on a
// loopback port, as a pod's /metrics does.
func podServer(t *testing.T, busy float64, extra prometheus.Collector) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hikaricp_connections_active", Help: "Active connections"}, []string{"pool"})
	g.WithLabelValues("HikariPool-1").Set(busy)
	reg.MustRegister(g)
	if extra != nil {
		reg.MustRegister(extra)
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

func TestGatherLabelsEachPod(t *testing.T) {
	t.Parallel()
	clash := prometheus.NewGauge(prometheus.GaugeOpts{Name: "app_info", Help: "Info", ConstLabels: prometheus.Labels{"pod": "from-the-app"}})
	clash.Set(1)
	targets := []Target{
		{Namespace: "signup", Pod: "signup-5d8f-a", Container: "signup", URL: podServer(t, 3, clash)},
		{Namespace: "signup", Pod: "signup-5d8f-b", Container: "signup", URL: podServer(t, 7, nil)},
	}
	g := New(func() []Target { return targets }, promslog.NewNopLogger())
	require.NoError(t, testutil.GatherAndCompare(g, strings.NewReader(`
# HELP app_info Info
# TYPE app_info gauge
app_info{container="signup",exported_pod="from-the-app",namespace="signup",pod="signup-5d8f-a"} 1
# HELP hikaricp_connections_active Active connections
# TYPE hikaricp_connections_active gauge
hikaricp_connections_active{container="signup",namespace="signup",pod="signup-5d8f-a",pool="HikariPool-1"} 3
hikaricp_connections_active{container="signup",namespace="signup",pod="signup-5d8f-b",pool="HikariPool-1"} 7
`), "app_info", "hikaricp_connections_active"))
}

func TestGatherLeavesOutAPodThatFails(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(nil)
	down.Close() // nothing listens there now
	targets := []Target{
		{Namespace: "ns", Pod: "up-pod", URL: podServer(t, 2, nil)},
		{Namespace: "ns", Pod: "gone-pod", URL: down.URL + "/metrics"},
	}
	g := New(func() []Target { return targets }, promslog.NewNopLogger())
	fams, err := g.Gather()
	require.ErrorContains(t, err, "pod ns/gone-pod")
	require.Len(t, fams, 1)
	require.Len(t, fams[0].GetMetric(), 1)
	rec := httptest.NewRecorder()
	g.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code, "the other pods are still served")
	require.Contains(t, rec.Body.String(), `hikaricp_connections_active{namespace="ns",pod="up-pod",pool="HikariPool-1"} 2`)
}
