package process

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/internal/cadvisor"
	"github.com/tidemark/tidemark/internal/cgroup"
)

// Labels are the kubelet's labels of a container's cAdvisor series besides id (the cgroup
// path), field for field internal/cadvisor's Labels.
type Labels struct {
	Namespace, Pod, Container, Image string
	// Name is the runtime's container id.
	Name string
}

// LabelsFunc maps a pod's cgroup path ("/tidemark/<run>/<pod>") to its labels; false
// means the cgroup is not reported. It is safe for concurrent use.
type LabelsFunc func(cgroupPath string) (Labels, bool)

// Containers serves cAdvisor-named series of the cgroups under a subtree.
type Containers interface {
	prometheus.Collector
	Start(ctx context.Context) error
	Stop() error
}

// ContainersFunc builds the Containers of a run: subtree is the run's cgroup path, labels
// names each pod's cgroup.
type ContainersFunc func(logger *slog.Logger, subtree string, h *cgroup.Hierarchy, labels LabelsFunc) (Containers, error)

// CadvisorContainers serves the pods' cAdvisor series from cAdvisor's own library
// (internal/cadvisor, the code the kubelet embeds), read at each gather, with the
// kubelet's labels from labels. It is the runtime's default.
func CadvisorContainers(logger *slog.Logger, subtree string, _ *cgroup.Hierarchy, labels LabelsFunc) (Containers, error) {
	c, err := cadvisor.New(logger, cadvisor.Config{Subtree: subtree, Labels: func(path string) (cadvisor.Labels, bool) {
		l, ok := labels(path)
		return cadvisor.Labels(l), ok
	}})
	if err != nil {
		return nil, fmt.Errorf("serve the pods' cAdvisor series: %w", err)
	}
	return c, nil
}

// CPUStatContainers is the runtime's own cAdvisor-named series, read from each pod
// cgroup's cpu.stat and CPU usage at every scrape with cAdvisor's semantics:
// container_cpu_usage_seconds_total (cpuacct.usage or usage_usec, in seconds, cpu="total"),
// container_cpu_cfs_periods_total (nr_periods), container_cpu_cfs_throttled_periods_total
// (nr_throttled), container_cpu_cfs_throttled_seconds_total (throttled_time or
// throttled_usec, in seconds), container_spec_cpu_quota and container_spec_cpu_period
// (microseconds; the CFS series only with a quota, as cAdvisor) and
// container_spec_cpu_shares, each with the labels id, name, image, pod, namespace and
// container. It is the fall-back to give with WithContainers where cAdvisor's library
// does not serve, and a check of it (the same counters, read without cAdvisor).
func CPUStatContainers(_ *slog.Logger, subtree string, h *cgroup.Hierarchy, labels LabelsFunc) (Containers, error) {
	l := []string{"id", "name", "image", "pod", "namespace", "container"}
	d := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(append([]string(nil), l...), extra...), nil)
	}
	return &cpuStatCollector{
		h: h, subtree: subtree, labels: labels,
		usage:            d("container_cpu_usage_seconds_total", "Cumulative cpu time consumed in seconds.", "cpu"),
		periods:          d("container_cpu_cfs_periods_total", "Number of elapsed enforcement period intervals."),
		throttledPeriods: d("container_cpu_cfs_throttled_periods_total", "Number of throttled period intervals."),
		throttledSecs:    d("container_cpu_cfs_throttled_seconds_total", "Total time duration the container has been throttled."),
		quota:            d("container_spec_cpu_quota", "CPU quota of the container."),
		period:           d("container_spec_cpu_period", "CPU period of the container."),
		shares:           d("container_spec_cpu_shares", "CPU share of the container."),
	}, nil
}

type cpuStatCollector struct {
	h                                               *cgroup.Hierarchy
	subtree                                         string
	labels                                          LabelsFunc
	usage, periods, throttledPeriods, throttledSecs *prometheus.Desc
	quota, period, shares                           *prometheus.Desc
}

var _ Containers = (*cpuStatCollector)(nil)

// Start does nothing: the collector reads the cgroups at each scrape.
func (c *cpuStatCollector) Start(context.Context) error { return nil }

// Stop does nothing.
func (c *cpuStatCollector) Stop() error { return nil }

// Describe implements prometheus.Collector.
func (c *cpuStatCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.usage, c.periods, c.throttledPeriods, c.throttledSecs, c.quota, c.period, c.shares} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *cpuStatCollector) Collect(ch chan<- prometheus.Metric) {
	children, err := c.h.Open(c.subtree).Children()
	if err != nil {
		return
	}
	for _, name := range children {
		g := c.h.Open(c.subtree + "/" + name)
		lb, ok := c.labels(g.Path())
		if !ok {
			continue
		}
		st, err := g.Stat()
		if err != nil {
			continue // removed while reading
		}
		cfg, err := g.Config()
		if err != nil {
			continue
		}
		l := []string{g.Path(), lb.Name, lb.Image, lb.Pod, lb.Namespace, lb.Container}
		ch <- prometheus.MustNewConstMetric(c.usage, prometheus.CounterValue, st.Usage.Seconds(), append(l, "total")...)
		ch <- prometheus.MustNewConstMetric(c.shares, prometheus.GaugeValue, float64(cfg.Shares), l...)
		ch <- prometheus.MustNewConstMetric(c.period, prometheus.GaugeValue, float64(cfg.PeriodUs), l...)
		if cfg.QuotaUs <= 0 {
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.quota, prometheus.GaugeValue, float64(cfg.QuotaUs), l...)
		ch <- prometheus.MustNewConstMetric(c.periods, prometheus.CounterValue, float64(st.Periods), l...)
		ch <- prometheus.MustNewConstMetric(c.throttledPeriods, prometheus.CounterValue, float64(st.Throttled), l...)
		ch <- prometheus.MustNewConstMetric(c.throttledSecs, prometheus.CounterValue, st.ThrottledTime.Seconds(), l...)
	}
}
