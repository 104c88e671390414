package cadvisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/google/cadvisor/lib/container"
	"github.com/google/cadvisor/lib/container/common"
	"github.com/google/cadvisor/lib/container/libcontainer"
	"github.com/google/cadvisor/lib/machine"
	"github.com/google/cadvisor/lib/metrics"
	info "github.com/google/cadvisor/lib/model"
	"github.com/google/cadvisor/lib/version"
	"github.com/opencontainers/cgroups"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"
)

// Collector serves cAdvisor's series for the cgroups under Config.Subtree, read by
// cAdvisor's code at each gather. It is a prometheus.Collector and safe for concurrent
// use; nothing runs between gathers.
type Collector struct {
	prom *metrics.PrometheusCollector
}

var _ prometheus.Collector = (*Collector)(nil)

// New checks the machine's cgroup filesystem and returns a Collector for cfg.Subtree.
// The error names what is missing: the cgroup filesystem, the cpu or cpuacct controller,
// or read access to the cpu hierarchy. Reading needs no more than read access (cgroup
// files are world-readable by default); the subtree may be created later.
func New(logger *slog.Logger, cfg Config) (*Collector, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	v2, err := checkCgroups()
	if err != nil {
		return nil, err
	}
	ms := includedMetrics(v2)
	// cAdvisor's raw factory takes the same mounts (the hierarchies of these metrics).
	subsystems, err := libcontainer.GetCgroupSubsystems(ms)
	if err != nil {
		return nil, fmt.Errorf("find cgroup hierarchies: %w", err)
	}
	cpu, ok := common.GetControllerPath(subsystems, "cpu", v2)
	if !ok {
		return nil, errors.New("find cgroup hierarchies: no cpu controller among the cgroup mounts")
	}
	if _, err := os.ReadDir(cpu); err != nil {
		return nil, fmt.Errorf("read the cpu cgroup hierarchy: %w", err)
	}
	r := &reader{
		logger:     logger,
		subtree:    cfg.Subtree,
		labels:     cfg.Labels,
		subsystems: subsystems,
		metrics:    ms,
		// GetSpec uses NumCores only to fix a cpuset mask; this is what the Go runtime
		// may use, as cAdvisor's machine info would say inside this process's cpuset.
		machine: &info.MachineInfo{NumCores: runtime.NumCPU()},
		// What cAdvisor's manager reports (getVersionInfo), with the library's module
		// version when the build did not stamp one (it never does outside cAdvisor's own).
		version: &info.VersionInfo{
			KernelVersion:      machine.KernelVersion(),
			ContainerOsVersion: machine.ContainerOsVersion(),
			CadvisorVersion:    cadvisorVersion(),
			CadvisorRevision:   version.Info["revision"],
		},
	}
	return &Collector{prom: metrics.NewPrometheusCollector(
		r, kubeletLabels(cfg.Labels), ms, clock.RealClock{},
		// The kubelet's request for /metrics/cadvisor: the latest sample of each cgroup.
		info.RequestOptions{IdType: info.TypeName, Count: 1, Recursive: true},
	)}, nil
}

// includedMetrics is the kubelet's set for /metrics/cadvisor less what needs parts we do
// not run (disk and network need the container's root filesystem and network namespace;
// cpu load needs a netlink reader the kubelet does not give cAdvisor either), plus PSI
// on cgroup v2, which recent kubelets serve. On cgroup v1 there is no PSI per cgroup, and
// cAdvisor would serve zeros.
func includedMetrics(v2 bool) container.MetricSet {
	s := container.MetricSet{
		container.CpuUsageMetrics:    struct{}{},
		container.MemoryUsageMetrics: struct{}{},
		container.ProcessMetrics:     struct{}{},
	}
	if v2 {
		s[container.PressureMetrics] = struct{}{}
	}
	return s
}

// checkCgroups reports whether the machine runs cgroup v2, or an error naming what
// cAdvisor would miss.
func checkCgroups() (v2 bool, err error) {
	if cgroups.IsCgroup2UnifiedMode() {
		b, err := os.ReadFile(v2Controllers)
		if err != nil {
			return true, fmt.Errorf("read cgroup v2 controllers: %w", err)
		}
		return true, checkV2(string(b))
	}
	mounts, err := cgroups.GetCgroupMounts(true)
	if err != nil {
		return false, fmt.Errorf("find cgroup mounts: %w", err)
	}
	return false, checkV1(mounts)
}

// v2Controllers lists the controllers of the cgroup v2 root.
const v2Controllers = "/sys/fs/cgroup/cgroup.controllers"

// checkV2 checks the controllers of the cgroup v2 root (cgroup.controllers).
func checkV2(controllers string) error {
	if !slices.Contains(strings.Fields(controllers), "cpu") {
		return fmt.Errorf("cgroup v2 controller cpu is not enabled (%s lists %q)", v2Controllers, strings.TrimSpace(controllers))
	}
	return nil
}

// checkV1 checks that the cgroup v1 mounts have the cpu and cpuacct controllers.
func checkV1(mounts []cgroups.Mount) error {
	if len(mounts) == 0 {
		return errors.New("no cgroup filesystem is mounted (no cgroup or cgroup2 line in /proc/self/mountinfo)")
	}
	for _, ss := range []string{"cpu", "cpuacct"} {
		if !slices.ContainsFunc(mounts, func(m cgroups.Mount) bool { return slices.Contains(m.Subsystems, ss) }) {
			return fmt.Errorf("cgroup v1 controller %s is not mounted (/proc/self/mountinfo has no cgroup mount with it)", ss)
		}
	}
	return nil
}

// cadvisorVersion is the version stamped into cAdvisor's library, or else the version of
// its module in this binary.
func cadvisorVersion() string {
	if v := version.Info["version"]; v != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/google/cadvisor/lib" {
				return d.Version
			}
		}
	}
	return ""
}

// Start does nothing and returns nil: the Collector reads at each gather. It is here so
// that a Collector serves where a runtime wants a collector with a lifecycle.
func (c *Collector) Start(context.Context) error { return nil }

// Stop does nothing and returns nil (see Start).
func (c *Collector) Stop() error { return nil }

// Describe implements prometheus.Collector (cAdvisor's descriptors, without their
// labels, as the kubelet registers them).
func (c *Collector) Describe(ch chan<- *prometheus.Desc) { c.prom.Describe(ch) }

// Collect implements prometheus.Collector: a fresh read of every reported cgroup under
// the subtree, plus cadvisor_version_info and container_scrape_error.
func (c *Collector) Collect(ch chan<- prometheus.Metric) { c.prom.Collect(ch) }

// reader is the info provider of cAdvisor's PrometheusCollector: where the kubelet's
// cAdvisor answers from its housekeeping cache, it reads the subtree's cgroups on the
// spot, with cAdvisor's cgroup handler (the raw factory's) and spec reader.
type reader struct {
	logger     *slog.Logger
	subtree    string
	labels     LabelsFunc
	subsystems map[string]string // controller → mount point
	metrics    container.MetricSet
	machine    *info.MachineInfo
	version    *info.VersionInfo

	mu sync.Mutex // one read at a time: concurrent scrapes would only repeat it
}

// GetRequestedContainersInfo implements cAdvisor's infoProvider. It ignores the
// container the collector asks for ("/") and reads the subtree.
func (r *reader) GetRequestedContainersInfo(string, info.RequestOptions) (map[string]*info.ContainerInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	refs, err := common.ListContainers(r.subtree, common.MakeCgroupPaths(r.subsystems, r.subtree), container.ListRecursive)
	if err != nil {
		return nil, fmt.Errorf("list cgroups under %s: %w", r.subtree, err)
	}
	names := make([]string, 0, len(refs)+1)
	names = append(names, r.subtree)
	for _, ref := range refs {
		names = append(names, ref.Name)
	}
	out := make(map[string]*info.ContainerInfo, len(names))
	for _, name := range names {
		if !within(name, r.subtree) {
			continue
		}
		if _, ok := r.labels(name); !ok {
			continue
		}
		ci, err := r.read(name)
		if err != nil {
			// The other cgroups are still served: cAdvisor's collector serves nothing
			// when its provider fails.
			r.logger.Warn("Failed to read cgroup", "cgroup", name, "err", err)
			continue
		}
		if ci != nil {
			out[name] = ci
		}
	}
	return out, nil
}

// read reads one cgroup as cAdvisor's raw container handler does (GetSpec, GetStats), or
// returns nil when it does not exist, or stopped existing while read (a pod ended).
func (r *reader) read(name string) (*info.ContainerInfo, error) {
	paths := common.MakeCgroupPaths(r.subsystems, name)
	present := existing(paths)
	if len(present) == 0 {
		return nil, nil
	}
	spec, err := common.GetSpec(paths, r, false, false)
	if err != nil {
		return nil, fmt.Errorf("read spec of cgroup %s: %w", name, err)
	}
	mgr, err := libcontainer.NewCgroupManager(name, paths)
	if err != nil {
		return nil, fmt.Errorf("open cgroup %s: %w", name, err)
	}
	stats, err := libcontainer.NewHandler(mgr, "/", 0, r.metrics).GetStats()
	if err != nil {
		if len(existing(present)) < len(present) {
			return nil, nil // removed while we read it
		}
		return nil, fmt.Errorf("read stats of cgroup %s: %w", name, err)
	}
	return &info.ContainerInfo{
		ContainerReference: info.ContainerReference{Name: name},
		Spec:               spec,
		Stats:              []*info.ContainerStats{stats},
	}, nil
}

// existing returns the paths whose directories exist. A cgroup need not be in every
// hierarchy (the runtime may leave out memory on v1).
func existing(paths map[string]string) map[string]string {
	out := make(map[string]string, len(paths))
	for k, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out[k] = p
		}
	}
	return out
}

// GetVersionInfo implements cAdvisor's infoProvider and info.MachineInfoFactory.
func (r *reader) GetVersionInfo() (*info.VersionInfo, error) { return r.version, nil }

// GetMachineInfo implements cAdvisor's infoProvider and info.MachineInfoFactory.
func (r *reader) GetMachineInfo() (*info.MachineInfo, error) { return r.machine, nil }

// kubeletLabels is the kubelet's ContainerLabelsFunc (containerPrometheusLabelsFunc in
// pkg/kubelet/server/server.go): always the six labels, empty when unknown, with the
// pod's names taken from our labels func instead of the runtime's container labels.
func kubeletLabels(labels LabelsFunc) metrics.ContainerLabelsFunc {
	return func(ci *info.ContainerInfo) map[string]string {
		l, _ := labels(ci.Name)
		return map[string]string{
			metrics.LabelID:    ci.Name,
			metrics.LabelName:  l.Name,
			metrics.LabelImage: l.Image,
			"namespace":        l.Namespace,
			"pod":              l.Pod,
			"container":        l.Container,
		}
	}
}
