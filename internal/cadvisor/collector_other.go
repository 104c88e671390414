//go:build !linux

package cadvisor

import (
	"context"
	"errors"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
)

// Collector serves cAdvisor's series; off Linux it cannot be created.
type Collector struct{}

// New returns an error off Linux: cAdvisor reads Linux cgroups.
func New(_ *slog.Logger, cfg Config) (*Collector, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return nil, errors.New("cadvisor collector needs Linux cgroups")
}

// Start returns nil.
func (*Collector) Start(context.Context) error { return nil }

// Stop returns nil.
func (*Collector) Stop() error { return nil }

// Describe implements prometheus.Collector.
func (*Collector) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (*Collector) Collect(chan<- prometheus.Metric) {}
