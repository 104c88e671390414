package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/prometheus/config"
	"github.com/stretchr/testify/require"
)

// TestDemoRejectsBadDurations: bad durations stop the demo before it starts anything.
func TestDemoRejectsBadDurations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "zero scrape interval", args: []string{"--scrape.interval", "0s"}, wantErr: "--scrape.interval 0s: expected a positive duration"},
		{name: "sub-millisecond scrape interval", args: []string{"--scrape.interval", "1500us"}, wantErr: "--scrape.interval 1.5ms"},
		{name: "negative cooldown", args: []string{"--cooldown=-1s"}, wantErr: "--cooldown -1s: expected a duration of zero or more"},
		{name: "zero stabilisation window", args: []string{"--fast.downscale-stabilization", "0s"}, wantErr: "--fast.downscale-stabilization 0s: expected a positive duration"},
		{name: "negative stabilisation window", args: []string{"--fast.downscale-stabilization=-30s"}, wantErr: "--fast.downscale-stabilization -30s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "demo")
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"demo", "--quiet", "--output.dir", out}, tc.args...), &stdout, &stderr)
			require.Equal(t, exitInvalidConfig, code, "stderr: %s", stderr.String())
			require.Contains(t, stderr.String(), tc.wantErr)
			require.NoDirExists(t, out, "nothing is started")
		})
	}
}

// TestDemoScrapeConfigLoads: the demo's scrape configuration is one Prometheus loads, for
// intervals that are not whole seconds too.
func TestDemoScrapeConfigLoads(t *testing.T) {
	t.Parallel()
	for _, every := range []time.Duration{5 * time.Second, 1500 * time.Millisecond} {
		p := filepath.Join(t.TempDir(), "prometheus.yml")
		require.NoError(t, writeDemoScrapeConfig(p, "http://127.0.0.1:9/metrics", every))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		cfg, err := config.Load(string(b), nil)
		require.NoError(t, err, "%s:\n%s", every, b)
		require.Len(t, cfg.ScrapeConfigs, 4)
	}
}
