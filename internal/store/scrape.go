package store

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"go.yaml.in/yaml/v3"

	// Registers file_sd_configs, the one service discovery besides static_configs that
	// the store supports; the other mechanisms pull in cloud and Kubernetes SDKs.
	_ "github.com/prometheus/prometheus/discovery/file"
)

// defaultScrapeTimeout is Prometheus' default scrape_timeout.
const defaultScrapeTimeout = 10 * time.Second

// scrapeConfig returns the Prometheus configuration the scrape manager runs: the file
// cfg.ScrapeConfigFile, or one job scraping cfg.ScrapeTargets. Both go through
// Prometheus' own config loader, so defaults and validation are exactly Prometheus'.
func scrapeConfig(cfg Config, logger *slog.Logger) (*config.Config, error) {
	if cfg.ScrapeConfigFile != "" {
		c, err := config.LoadFile(cfg.ScrapeConfigFile, false, logger)
		if err != nil {
			return nil, &ConfigError{Err: fmt.Errorf("load scrape config %q: %w", cfg.ScrapeConfigFile, err)}
		}
		return c, nil
	}
	type staticConfig struct {
		Targets []string `yaml:"targets"`
	}
	type job struct {
		JobName        string         `yaml:"job_name"`
		ScrapeInterval string         `yaml:"scrape_interval"`
		ScrapeTimeout  string         `yaml:"scrape_timeout"`
		StaticConfigs  []staticConfig `yaml:"static_configs"`
	}
	type global struct {
		ScrapeInterval string `yaml:"scrape_interval"`
	}
	doc := struct {
		Global        global `yaml:"global"`
		ScrapeConfigs []job  `yaml:"scrape_configs,omitempty"`
	}{Global: global{ScrapeInterval: model.Duration(cfg.ScrapeInterval).String()}}
	if len(cfg.ScrapeTargets) > 0 {
		// A scrape may not take longer than its interval.
		timeout := min(defaultScrapeTimeout, cfg.ScrapeInterval)
		doc.ScrapeConfigs = []job{{
			JobName:        ScrapeJobName,
			ScrapeInterval: model.Duration(cfg.ScrapeInterval).String(),
			ScrapeTimeout:  model.Duration(timeout).String(),
			StaticConfigs:  []staticConfig{{Targets: cfg.ScrapeTargets}},
		}}
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode scrape config: %w", err)
	}
	c, err := config.Load(string(b), logger)
	if err != nil {
		return nil, &ConfigError{Err: fmt.Errorf("scrape targets %q: %w", cfg.ScrapeTargets, err)}
	}
	return c, nil
}
