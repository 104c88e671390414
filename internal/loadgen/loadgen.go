// Package loadgen measures the load generator's own CPU and writes it with the run's
// series, so that a correlation can tell a run the generator limited from one the
// service did (analysis.LoadGeneratorRule): the CPU time the process used (user and
// system, getrusage) and the CPU it may use, the lowest of GOMAXPROCS, the CPUs it may
// run on and the CFS quota of its own cgroup (a k6-operator runner pod with a CPU
// limit, a container with --cpus).
package loadgen

import (
	"log/slog"
	"math"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
)

// The load generator's series, labelled with the run's tags (testid) and, on an
// instance of a distributed run, instance_id.
const (
	// CPUSecondsMetric is a counter: the CPU seconds (user + system) the process used
	// since the run's outputs started. Its rate is the cores it used.
	CPUSecondsMetric = "tidemark_load_generator_cpu_seconds_total"
	// CPUCoresMetric is a gauge: the cores the process may use.
	CPUCoresMetric = "tidemark_load_generator_cpu_cores"
)

// Usage returns the CPU time the process has used.
type Usage func() (time.Duration, error)

// Limit returns the cores the process's cgroup lets it use; ok is false when no quota
// limits it.
type Limit func() (cores float64, ok bool, err error)

// ProcessUsage is the process's user and system CPU time (getrusage RUSAGE_SELF: every
// thread, the exited ones included).
func ProcessUsage() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// ProcessLimit is the CFS quota of the process's own cgroup and its ancestors
// (cgroup.ProcessCPULimit of /proc/self).
func ProcessLimit() (float64, bool, error) { return cgroup.ProcessCPULimit("/proc/self") }

type options struct {
	usage Usage
	limit Limit
	procs func() int
}

// Option sets an optional dependency of NewCPU.
type Option func(*options)

// WithUsage reads the CPU time from u instead of getrusage.
func WithUsage(u Usage) Option { return func(o *options) { o.usage = u } }

// WithLimit reads the cgroup's CPU limit from l instead of /proc/self.
func WithLimit(l Limit) Option { return func(o *options) { o.limit = l } }

// WithProcs reads the CPUs the Go runtime may use from procs instead of the lower of
// runtime.GOMAXPROCS and runtime.NumCPU.
func WithProcs(procs func() int) Option { return func(o *options) { o.procs = procs } }

// CPU is the load generator's CPU as two series of the run. It is safe for concurrent
// use.
type CPU struct {
	logger         *slog.Logger
	usage          Usage
	limit          Limit
	procs          func() int
	seconds, cores *metrics.Metric
	tags           *metrics.TagSet

	mu sync.Mutex
	// base is the CPU time when the CPU was made; last the latest value written, which
	// a failed read repeats.
	base, last  time.Duration
	ok          bool
	lastCores   float64
	usageWarned bool
	limitWarned bool
}

// NewCPU returns the CPU series of a run whose tags (testid included) are runTags. The
// counter starts at 0 now.
func NewCPU(runTags map[string]string, logger *slog.Logger, opts ...Option) (*CPU, error) {
	o := options{usage: ProcessUsage, limit: ProcessLimit, procs: func() int { return min(runtime.GOMAXPROCS(0), runtime.NumCPU()) }}
	for _, opt := range opts {
		opt(&o)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reg := metrics.NewRegistry()
	seconds, err := reg.New(CPUSecondsMetric, metrics.Counter, metrics.Default)
	if err != nil {
		return nil, err
	}
	cores, err := reg.New(CPUCoresMetric, metrics.Gauge, metrics.Default)
	if err != nil {
		return nil, err
	}
	tags := make([]metrics.Tag, 0, len(runTags))
	for k, v := range runTags {
		tags = append(tags, metrics.Tag{Key: k, Value: v})
	}
	c := &CPU{logger: logger.With("component", "loadgen"), usage: o.usage, limit: o.limit, procs: o.procs,
		seconds: seconds, cores: cores, tags: metrics.NewTagPool().Intern(tags)}
	if base, err := c.usage(); err == nil {
		c.base, c.ok = base, true
	} else {
		c.logger.Warn("Failed to read the load generator's CPU time", "err", err)
		c.usageWarned = true
	}
	return c, nil
}

// Append appends the two series as they are now to dst. A read that fails repeats the
// last value and is logged once; it never fails the run.
func (c *CPU) Append(dst []series.Input) []series.Input {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u, err := c.usage(); err != nil {
		if !c.usageWarned {
			c.logger.Warn("Failed to read the load generator's CPU time", "err", err)
			c.usageWarned = true
		}
	} else {
		if !c.ok {
			// The first read failed: count from the first that works.
			c.base, c.ok = u, true
		}
		c.last = max(c.last, u-c.base)
	}
	cores := float64(c.procs())
	if l, ok, err := c.limit(); err != nil {
		if !c.limitWarned {
			c.logger.Warn("Failed to read the load generator's CPU limit, its CPUs taken instead", "err", err)
			c.limitWarned = true
		}
		if c.lastCores > 0 {
			cores = c.lastCores
		}
	} else if ok && l > 0 {
		cores = math.Min(cores, l)
	}
	c.lastCores = cores
	if !c.ok {
		return append(dst, series.Input{Metric: c.cores, Tags: c.tags, Value: cores})
	}
	return append(dst,
		series.Input{Metric: c.seconds, Tags: c.tags, Value: c.last.Seconds()},
		series.Input{Metric: c.cores, Tags: c.tags, Value: cores})
}

// Source returns src with the CPU's series appended to every snapshot that has series of
// the run (an empty run sends nothing). It appends to the slice src returns, which must
// be the caller's (series.FromAggregate makes one per snapshot).
func (c *CPU) Source(src series.Snapshotter) series.Snapshotter {
	return series.SnapshotFunc(func() []series.Input {
		// Read first: remote write stamps a push with the moment before it takes the
		// snapshot, which can take a while in a process short of CPU (a 200m quota
		// holds it for up to 80 ms of each 100 ms), and a counter read late is a rate
		// read high.
		cpu := c.Append(nil)
		in := src.Snapshot()
		if len(in) == 0 {
			return in
		}
		return append(in, cpu...)
	})
}

// Source returns src with the load generator's CPU series of a run (tags runTags)
// appended to every snapshot, counted from now: what `tidemark run` remote-writes.
func Source(src series.Snapshotter, runTags map[string]string, logger *slog.Logger, opts ...Option) series.Snapshotter {
	c, err := NewCPU(runTags, logger, opts...)
	if err != nil {
		if logger != nil {
			logger.Warn("Failed to set up the load generator's CPU series, the run is written without them", "err", err)
		}
		return src
	}
	return c.Source(src)
}
