// Package cluster builds the cluster `tidemark simulate` and `tidemark demo` run, on the
// runtime asked for: the in-memory simulator (sim.Server) or the process runtime
// (process.Runtime, pods as real processes in kernel cgroups).
package cluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/tidemark/tidemark/internal/cadvisor"
	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/process"
)

// The runtimes of Config.Runtime.
const (
	// RuntimeSim is the in-memory simulator (sim.Server), the default.
	RuntimeSim = "sim"
	// RuntimeProcess runs pods as real processes in kernel cgroups (package process).
	RuntimeProcess = "process"
)

// Cluster is what simulate and demo need of a running cluster.
type Cluster interface {
	Start(ctx context.Context) error
	Stop() error
	MetricsURL() string
	ScrapeConfig(interval time.Duration) (string, error)
	FirstServiceURL() (string, error)
	WaitScaledIn(ctx context.Context, limit time.Duration) bool
	Snapshot() sim.Snapshot
	Profile() *sim.Profile
	WriteIntro(w io.Writer, realWindow time.Duration) error
}

var (
	_ Cluster = (*sim.Server)(nil)
	_ Cluster = (*process.Runtime)(nil)
)

// Config chooses the runtime and its addresses.
type Config struct {
	// Runtime is RuntimeSim ("" too) or RuntimeProcess.
	Runtime string
	// MetricsAddress and WebConfigFile serve the metrics endpoint ("" : 127.0.0.1:0).
	MetricsAddress, WebConfigFile string
	// ServiceAddresses override services' listen addresses by name.
	ServiceAddresses map[string]string
	// Fast shortens the HPA downscale stabilisation window to FastWindow.
	Fast       bool
	FastWindow time.Duration
	// PodArgs gives each pod of the process runtime more `tidemark target` flags and
	// environment (a database pool's: internal/sim/realdb's DB.PodArgs fits); nil: none.
	// The simulator ignores it.
	PodArgs process.PodArgsFunc
	// Containers serves the process runtime's cAdvisor series (nil:
	// process.CadvisorContainers, cAdvisor's library). The simulator ignores it.
	Containers process.ContainersFunc
}

// New builds (does not start) the cluster of profile p.
func New(p *sim.Profile, cfg Config, logger *slog.Logger) (Cluster, error) {
	addr := cfg.MetricsAddress
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	switch cfg.Runtime {
	case "", RuntimeSim:
		opts := []sim.Option{sim.WithMetricsAddress(addr), sim.WithWebConfigFile(cfg.WebConfigFile)}
		for name, a := range cfg.ServiceAddresses {
			opts = append(opts, sim.WithServiceAddress(name, a))
		}
		if cfg.Fast {
			opts = append(opts, sim.WithFast(cfg.FastWindow))
		}
		return sim.NewServer(p, logger, opts...)
	case RuntimeProcess:
		// cAdvisor's library logs through klog, process-wide: into our logger, one level
		// down (internal/cadvisor), before its collector first gathers.
		cadvisor.RouteKlog(logger)
		opts := []process.Option{process.WithMetricsAddress(addr), process.WithWebConfigFile(cfg.WebConfigFile)}
		for name, a := range cfg.ServiceAddresses {
			opts = append(opts, process.WithServiceAddress(name, a))
		}
		if cfg.Fast {
			opts = append(opts, process.WithFast(cfg.FastWindow))
		}
		if cfg.PodArgs != nil {
			opts = append(opts, process.WithPodArgs(cfg.PodArgs))
		}
		if cfg.Containers != nil {
			opts = append(opts, process.WithContainers(cfg.Containers))
		}
		return process.New(p, logger, opts...)
	}
	return nil, fmt.Errorf("unknown cluster runtime %q: expected %s or %s", cfg.Runtime, RuntimeSim, RuntimeProcess)
}
