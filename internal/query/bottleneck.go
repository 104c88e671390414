package query

import (
	"encoding/json"
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"
)

// Level is one threshold of a bottleneck rule, with the catalog line it was written
// on, so that a value out of range is reported at its line.
type Level struct {
	V    float64
	Line int
}

// UnmarshalYAML reads a number and remembers its line.
func (l *Level) UnmarshalYAML(n *yaml.Node) error {
	l.Line = n.Line
	if err := n.Decode(&l.V); err != nil {
		return fmt.Errorf("line %d: expected a number: %w", n.Line, err)
	}
	return nil
}

// MarshalYAML writes the number alone.
func (l Level) MarshalYAML() (any, error) { return l.V, nil }

// MarshalJSON writes the number alone.
func (l Level) MarshalJSON() ([]byte, error) { return json.Marshal(l.V) }

// BottleneckRules are the thresholds of the rules that name the resource that limited
// a run (analysis.DecideBottleneck; docs/correlation.md "What limited the load"). A
// threshold left out of a custom catalog takes the embedded catalog's value.
type BottleneckRules struct {
	CPU           CPURule           `yaml:"cpu" json:"cpu"`
	Startup       StartupRule       `yaml:"startup" json:"startup"`
	Database      DatabaseRule      `yaml:"database" json:"database"`
	Pool          PoolRule          `yaml:"pool" json:"pool"`
	Memory        MemoryRule        `yaml:"memory" json:"memory"`
	LoadGenerator LoadGeneratorRule `yaml:"load_generator" json:"load_generator"`
}

// CPURule says the app's CPU saturated when its per-pod usage reached UsageOfLimit of its
// CPU limit, or its containers were throttled in ThrottledRatio of their CFS periods.
type CPURule struct {
	UsageOfLimit   Level `yaml:"usage_of_limit" json:"usage_of_limit"`
	ThrottledRatio Level `yaml:"throttled_ratio" json:"throttled_ratio"`
}

// StartupRule says start-up limited the run when FailuresInGapShare of its failures were
// answered while an HPA's current replicas were ahead of Ready.
type StartupRule struct {
	FailuresInGapShare Level `yaml:"failures_in_gap_share" json:"failures_in_gap_share"`
}

// DatabaseRule says the database server saturated when its connections reached
// ConnectionsOfMax of max_connections, its CPU CPUPercent, or its CPU credit balance
// fell to CreditBalanceMin.
type DatabaseRule struct {
	ConnectionsOfMax Level `yaml:"connections_of_max" json:"connections_of_max"`
	CPUPercent       Level `yaml:"cpu_percent" json:"cpu_percent"`
	CreditBalanceMin Level `yaml:"credit_balance_min" json:"credit_balance_min"`
}

// PoolRule says the application's connection pool was exhausted when its busy connections
// (or the database's connection plateau) reached BusyOfSize of the pool's size, or
// requests waited for a connection.
type PoolRule struct {
	BusyOfSize Level `yaml:"busy_of_size" json:"busy_of_size"`
}

// MemoryRule says memory limited the run when a container's working set reached
// WorkingSetOfLimit of its memory limit, or a container was OOM-killed.
type MemoryRule struct {
	WorkingSetOfLimit Level `yaml:"working_set_of_limit" json:"working_set_of_limit"`
}

// LoadGeneratorRule says the load generator was the limit of a broken stage while no
// resource of the service saturated: its own CPU reached CPUOfAvailable of the cores it
// may use (tidemark_load_generator_cpu_*, which `tidemark run` writes), or the stage
// broke only by its drops or its achieved rate, with errors within
// defaults.error_ratio_ok and its p95 within LatencyRise times the lowest stage p95 of
// the run.
type LoadGeneratorRule struct {
	LatencyRise    Level `yaml:"latency_rise" json:"latency_rise"`
	CPUOfAvailable Level `yaml:"cpu_of_available" json:"cpu_of_available"`
}

// DefaultBottleneckRules are the embedded catalog's bottleneck thresholds.
func DefaultBottleneckRules() BottleneckRules {
	l := func(v float64) Level { return Level{V: v} }
	return BottleneckRules{
		CPU:           CPURule{UsageOfLimit: l(0.9), ThrottledRatio: l(0.25)},
		Startup:       StartupRule{FailuresInGapShare: l(0.5)},
		Database:      DatabaseRule{ConnectionsOfMax: l(0.9), CPUPercent: l(90), CreditBalanceMin: l(5)},
		Pool:          PoolRule{BusyOfSize: l(0.95)},
		Memory:        MemoryRule{WorkingSetOfLimit: l(0.95)},
		LoadGenerator: LoadGeneratorRule{LatencyRise: l(2), CPUOfAvailable: l(0.9)},
	}
}

// levels lists each threshold with its name and range check, for defaults and
// validation.
func (b *BottleneckRules) levels() []struct {
	name string
	l    *Level
	ok   func(float64) bool
	want string
} {
	ratio := func(v float64) bool { return v > 0 && v <= 1 }
	pct := func(v float64) bool { return v > 0 && v <= 100 }
	nonneg := func(v float64) bool { return v >= 0 }
	rise := func(v float64) bool { return v >= 1 }
	type lv = struct {
		name string
		l    *Level
		ok   func(float64) bool
		want string
	}
	return []lv{
		{"cpu.usage_of_limit", &b.CPU.UsageOfLimit, ratio, "a ratio in (0, 1]"},
		{"cpu.throttled_ratio", &b.CPU.ThrottledRatio, ratio, "a ratio in (0, 1]"},
		{"startup.failures_in_gap_share", &b.Startup.FailuresInGapShare, ratio, "a ratio in (0, 1]"},
		{"database.connections_of_max", &b.Database.ConnectionsOfMax, ratio, "a ratio in (0, 1]"},
		{"database.cpu_percent", &b.Database.CPUPercent, pct, "a percentage in (0, 100]"},
		{"database.credit_balance_min", &b.Database.CreditBalanceMin, nonneg, "a credit balance ≥ 0"},
		{"pool.busy_of_size", &b.Pool.BusyOfSize, ratio, "a ratio in (0, 1]"},
		{"memory.working_set_of_limit", &b.Memory.WorkingSetOfLimit, ratio, "a ratio in (0, 1]"},
		{"load_generator.latency_rise", &b.LoadGenerator.LatencyRise, rise, "a factor ≥ 1"},
		{"load_generator.cpu_of_available", &b.LoadGenerator.CPUOfAvailable, ratio, "a ratio in (0, 1]"},
	}
}

// complete fills the thresholds a catalog left out with the defaults and checks the
// others, naming the line of each value out of range.
func (b *BottleneckRules) complete() []error {
	def := DefaultBottleneckRules()
	dl := def.levels()
	var errs []error
	for i, lv := range b.levels() {
		if lv.l.Line == 0 {
			*lv.l = *dl[i].l
			continue
		}
		if math.IsNaN(lv.l.V) || !lv.ok(lv.l.V) {
			errs = append(errs, fmt.Errorf("line %d: bottleneck.%s is %v: expected %s", lv.l.Line, lv.name, lv.l.V, lv.want))
		}
	}
	return errs
}
