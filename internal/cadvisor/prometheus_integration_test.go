//go:build integration && linux

package cadvisor

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
)

// TestPrometheusStoresKernelCounts: a real Prometheus scraping the collector as a
// kubelet's /metrics/cadvisor stores, once the loops stop, the kernel's own throttled
// periods and periods, with the kubelet's labels.
func TestPrometheusStoresKernelCounts(t *testing.T) {
	parent := parentPath(t)
	makeCgroup(t, parent)
	pod := makeCgroup(t, parent+"/pod-a")
	pod.setCPU(t, 20000, 100000, 512)
	proc := pod.runBusy(t, 2)
	c := newCollector(t, parent, func(p string) (Labels, bool) {
		return Labels{Namespace: "shop", Pod: "pod-a", Container: "app", Image: "busy:1"}, p == pod.path
	})

	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(c))
	mux := http.NewServeMux()
	mux.Handle("/metrics/cadvisor", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { _ = srv.Close() })

	prom := promtest.StartPrometheus(t, promtest.WithConfig(fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: kubelet
    metrics_path: /metrics/cadvisor
    static_configs:
      - targets: [%q]
    relabel_configs: # as kube-prometheus' kubelet ServiceMonitor
      - source_labels: [__metrics_path__]
        target_label: metrics_path
`, ln.Addr().String())))

	sel := fmt.Sprintf(`{job="kubelet", metrics_path="/metrics/cadvisor", namespace="shop", pod="pod-a", container="app", image="busy:1", id=%q}`, pod.path)
	promtest.WaitForQuery(t, prom.URL, "container_cpu_cfs_throttled_periods_total"+sel+" > 0", 30*time.Second, promtest.NonEmpty)

	require.NoError(t, syscall.Kill(-proc.Pid, syscall.SIGSTOP), "stop the loops' process group")
	eventually(t, "kernel counters settle", func() (bool, string) {
		a := pod.stat(t)
		time.Sleep(3 * 100 * time.Millisecond) // three CFS periods
		b := pod.stat(t)
		return a == b, fmt.Sprintf("%+v then %+v", a, b)
	})
	k := pod.stat(t)
	for name, want := range map[string]uint64{
		"container_cpu_cfs_throttled_periods_total": k.throttled,
		"container_cpu_cfs_periods_total":           k.periods,
	} {
		promtest.WaitForQuery(t, prom.URL, name+sel, 30*time.Second, func(v model.Value) bool {
			vec, ok := v.(model.Vector)
			return ok && len(vec) == 1 && uint64(vec[0].Value) == want
		})
	}
}
