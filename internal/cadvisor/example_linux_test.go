package cadvisor_test

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tidemark/tidemark/internal/cadvisor"
)

// A runtime serves the cAdvisor series of its pods' cgroups as a kubelet's
// /metrics/cadvisor, with the pod names it knows.
func ExampleNew() {
	logger := slog.Default()
	cadvisor.RouteKlog(logger) // once, in main

	c, err := cadvisor.New(logger, cadvisor.Config{
		Subtree: "/tidemark/run-1",
		Labels: func(cgroupPath string) (cadvisor.Labels, bool) {
			pod, ok := strings.CutPrefix(cgroupPath, "/tidemark/run-1/")
			if !ok || strings.Contains(pod, "/") {
				return cadvisor.Labels{}, false // the run's own cgroup, or deeper
			}
			return cadvisor.Labels{Namespace: "shop", Pod: pod, Container: "app", Image: "tidemark-target"}, true
		},
	})
	if err != nil {
		logger.Error("No cgroups to read", "err", err)
		return
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	http.Handle("/metrics/cadvisor", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
}
