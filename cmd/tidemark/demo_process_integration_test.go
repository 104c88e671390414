//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/sim/process"
)

// TestIntegrationDemoProcess runs `tidemark demo --runtime process` (the built binary: its
// pods are that binary's `tidemark target` processes) on story 3's 500m profile with a
// short step load, and checks the report names a throttling onset and no failure, and
// that no cgroup of the run is left.
func TestIntegrationDemoProcess(t *testing.T) {
	bin := tidemarkBinary(t, "tidemark")
	dir := t.TempDir()
	scenario := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(scenario, []byte(`scenarios:
  users:
    executor: ramping-vus
    startVUs: 0
    stages:
      - { duration: 2s, target: 10 }
      - { duration: 10s, target: 10 }
      - { duration: 2s, target: 30 }
      - { duration: 10s, target: 30 }
      - { duration: 2s, target: 0 }
flow:
  - name: poll
    url: ${__ENV.TARGET_URL}/coupons/poll
    timeout: 30s
    sleep: 1
  - name: deduct
    method: POST
    url: ${__ENV.TARGET_URL}/coupons/deduct
    timeout: 30s
    sleep: 1
`), 0o644))
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "demo", "--runtime", "process", "--profile", "../../examples/cluster-story3-process-500m.yaml",
		"--scenario", scenario, "--scrape.interval", "1s", "--cooldown", "0s", "--quiet", "--output.dir", out, "--web.listen-address", "127.0.0.1:0")
	b, err := cmd.CombinedOutput()
	t.Logf("%s", b)
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(out, "report", "report.json"))
	require.NoError(t, err)
	var res correlator.Result
	require.NoError(t, json.Unmarshal(raw, &res))
	require.Positive(t, res.Load.Requests)
	require.Zero(t, res.Load.Failures, "no request failed")
	onset := false
	for _, c := range res.CPU {
		for _, o := range c.Onsets {
			onset = onset || o.At != nil
		}
	}
	require.True(t, onset, "a throttling onset")
	// The run's cgroups are named after the demo's pid (internal/sim/process).
	h, err := cgroup.Detect()
	require.NoError(t, err)
	if top := h.Open(process.Top); top.Exists() {
		runs, err := top.Children()
		require.NoError(t, err)
		for _, r := range runs {
			require.False(t, strings.HasPrefix(r, fmt.Sprintf("run-%d-", cmd.Process.Pid)), "cgroup %s/%s is left", process.Top, r)
		}
	}
}
