package remotewrite

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/series"
)

// k6's remote-write output name and its default URL (reference/k6.md §1.1–1.2).
const (
	K6Output           = "experimental-prometheus-rw"
	k6DefaultServerURL = "http://localhost:9090/api/v1/write"
)

// Overrides are remote-write settings given on a command line. Compose applies them
// over, lowest first: DefaultConfig, the configuration file and k6's K6_PROMETHEUS_RW_*
// environment variables. A nil pointer or slice is a setting not given.
type Overrides struct {
	// ConfigFile is a YAML file in Config's shape; empty for none.
	ConfigFile string
	// URLs replace the endpoint of the file and the environment; every one gets every
	// series.
	URLs         []string
	Protocol     *string
	PushInterval *time.Duration
	// FlushTimeout bounds the whole stop: the final push and the stale markers.
	FlushTimeout *time.Duration
	// LabelValueMaxLength and LongLabelValues are series.Config's.
	LabelValueMaxLength *int
	LongLabelValues     *string
	TrendStats          *string // comma-separated, as K6_PROMETHEUS_RW_TREND_STATS
	NativeHistograms    *bool
	StaleMarkers        *bool
	// NativeByDefault turns native histograms on unless NativeHistograms or
	// K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM says otherwise (for a receiver known
	// to read them, the embedded store).
	NativeByDefault bool
	// Labels are static name=value labels added to every series.
	Labels []string
	// DropLabels are tags not turned into labels.
	DropLabels []string
	// Outputs are k6 --out values: experimental-prometheus-rw turns remote write on, at
	// k6's default URL unless one is configured.
	Outputs []string
	// Environ is the process environment.
	Environ map[string]string
	// TestID and InstanceID label every series.
	TestID, InstanceID string
}

// Compose returns the composed configuration, whose Series naming an exporter of the
// same run shares, and one validated Config per endpoint: none when remote write is off.
func Compose(o Overrides) (Config, []Config, error) {
	cfg, err := o.compose()
	if err != nil {
		return cfg, nil, err
	}
	urls := []*config.URL{cfg.URL}
	if o.URLs != nil {
		urls = urls[:0]
		for _, raw := range o.URLs {
			u, err := ParseURL(raw)
			if err != nil {
				return cfg, nil, fmt.Errorf("remote-write url: %w", err)
			}
			urls = append(urls, &config.URL{URL: u})
		}
	}
	var out []Config
	for _, u := range urls {
		if u == nil || u.URL == nil || u.String() == "" {
			continue
		}
		c := cfg
		c.URL = u
		if err := c.Validate(); err != nil {
			return cfg, nil, err
		}
		out = append(out, c)
	}
	return cfg, out, nil
}

func (o Overrides) compose() (Config, error) {
	nativeGiven := o.NativeHistograms != nil
	if _, set := o.Environ[k6Env+"TREND_AS_NATIVE_HISTOGRAM"]; o.NativeByDefault && o.NativeHistograms == nil && !set {
		native := true
		o.NativeHistograms = &native
	}
	cfg := DefaultConfig
	cfg.Series.TrendStats = append([]string(nil), series.DefaultTrendStats...)
	if o.ConfigFile != "" {
		var err error
		if cfg, err = LoadFile(o.ConfigFile); err != nil {
			return cfg, err
		}
	}
	if _, err := cfg.ApplyK6Env(o.Environ); err != nil {
		return cfg, err
	}
	if o.Protocol != nil {
		cfg.Protocol = *o.Protocol
	}
	if o.PushInterval != nil {
		cfg.PushInterval = model.Duration(*o.PushInterval)
	}
	if o.FlushTimeout != nil {
		cfg.Queue.FinalFlushTimeout = model.Duration(*o.FlushTimeout)
	}
	if o.LabelValueMaxLength != nil {
		cfg.Series.LabelValueMaxLength = *o.LabelValueMaxLength
	}
	if o.LongLabelValues != nil {
		cfg.Series.LongLabelValues = *o.LongLabelValues
	}
	if o.TrendStats != nil {
		cfg.Series.TrendStats = series.SplitStats(*o.TrendStats)
	}
	if o.NativeHistograms != nil {
		cfg.Series.NativeHistograms = *o.NativeHistograms
	}
	if o.StaleMarkers != nil {
		cfg.StaleMarkers = *o.StaleMarkers
	}
	if cfg.Series.NativeHistograms && cfg.k6Native && !nativeGiven && o.TrendStats == nil && !cfg.statsGiven {
		// k6's meaning: with native histograms on, trends are sent as histograms only, and
		// K6_PROMETHEUS_RW_TREND_STATS applies no more. Tidemark's flag and file keep
		// theirs: stats listed there (or the flag's histograms) come as well.
		cfg.Series.TrendStats = nil
	}
	if err := o.applySeries(&cfg.Series); err != nil {
		return cfg, err
	}
	for _, out := range o.Outputs {
		// k6 ignores anything after "=" for this output; so do we.
		name, _, _ := strings.Cut(out, "=")
		if name != K6Output {
			return cfg, fmt.Errorf("output %q: the only output is %s (the exporter serves the series for scraping)", out, K6Output)
		}
		if cfg.URL == nil || cfg.URL.URL == nil {
			u, _ := url.Parse(k6DefaultServerURL)
			cfg.URL = &config.URL{URL: u}
		}
	}
	return cfg, nil
}

// applySeries adds the static labels, the dropped labels, the test id and the instance
// id.
func (o Overrides) applySeries(c *series.Config) error {
	labels, err := ParseLabels(o.Labels)
	if err != nil {
		return fmt.Errorf("remote-write label: %w", err)
	}
	if len(labels) > 0 && c.Labels == nil {
		c.Labels = map[string]string{}
	}
	maps.Copy(c.Labels, labels)
	for _, l := range o.DropLabels {
		c.LabelRules = append(c.LabelRules, series.LabelRule{Label: l, Action: series.ActionDrop})
	}
	c.TestID, c.InstanceID = o.TestID, o.InstanceID
	return c.Validate()
}

// InstanceID returns the instance_id label of a run's series, "" for none. A run on one
// instance has none, as k6's series (k6 adds no instance label; dashboards and queries
// work with or without it). The label tells apart the instances of a run split over
// several, which write the same testid: explicit is --instance-id (or the index given by
// --instances); else a run that is one share of a split run (a partial execution segment)
// or a pod of a Kubernetes Indexed Job (JOB_COMPLETION_INDEX in environ) is labelled with
// the Job's completion index, else the host name.
func InstanceID(explicit string, environ map[string]string, share bool) string {
	if explicit != "" {
		return explicit
	}
	if v := environ["JOB_COMPLETION_INDEX"]; v != "" {
		return v
	}
	if !share {
		return ""
	}
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
