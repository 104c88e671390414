//go:build integration

package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// promtool is the Debian package's promtool; the test fails (never skips) without it.
const promtool = "/usr/bin/promtool"

func requirePromtool(t *testing.T) {
	t.Helper()
	_, err := os.Stat(promtool)
	require.NoError(t, err, "%s is required (apt-get install --no-install-recommends prometheus)", promtool)
}

// TestPromtoolCheckConfig validates prometheus.yml and its rule files with promtool.
//
// Debian builds Prometheus without Kubernetes service discovery, so its promtool rejects
// kubernetes_sd_configs. The test swaps each such block for a static target and checks
// everything else (intervals, TLS, authorization, relabelling, rule files) with promtool;
// the unit tests check the jobs' structure.
func TestPromtoolCheckConfig(t *testing.T) {
	requirePromtool(t)
	raw, err := os.ReadFile(filepath.Join("prometheus", "prometheus.yml"))
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &cfg))
	swapped := 0
	for _, sc := range cfg["scrape_configs"].([]any) {
		m := sc.(map[string]any)
		if _, ok := m["kubernetes_sd_configs"]; ok {
			delete(m, "kubernetes_sd_configs")
			m["static_configs"] = []any{map[string]any{"targets": []any{"127.0.0.1:1"}}}
			swapped++
		}
	}
	require.Positive(t, swapped)
	dir := t.TempDir()
	// The kubelet job reads the in-cluster service-account files, which promtool checks
	// for existence: point it at stand-ins.
	standIns := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "credentials_file" || k == "ca_file") {
					p := filepath.Join(dir, filepath.Base(s))
					require.NoError(t, os.WriteFile(p, []byte("stand-in"), 0o600))
					v[k] = p
					standIns++
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(cfg)
	require.Equal(t, 2, standIns)
	out, err := yaml.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), out, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rules"), 0o755))
	rules, err := filepath.Glob(filepath.Join("prometheus", "rules", "*.rules.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, rules)
	for _, r := range rules {
		b, err := os.ReadFile(r)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "rules", filepath.Base(r)), b, 0o644))
	}
	cmd := exec.Command(promtool, "check", "config", filepath.Join(dir, "prometheus.yml"))
	outb, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool check config:\n%s", outb)
	require.Contains(t, string(outb), "SUCCESS")
	require.Contains(t, string(outb), "rules found")
}

// TestPromtoolCheckRules validates the recording rules on their own.
func TestPromtoolCheckRules(t *testing.T) {
	requirePromtool(t)
	rules, err := filepath.Glob(filepath.Join("prometheus", "rules", "*.rules.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, rules)
	out, err := exec.Command(promtool, append([]string{"check", "rules"}, rules...)...).CombinedOutput()
	require.NoError(t, err, "promtool check rules:\n%s", out)
	require.Contains(t, string(out), "SUCCESS: 3 rules found")
}
