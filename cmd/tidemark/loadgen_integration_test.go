//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadgen"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/target"
)

// busyScript asks 20 iterations a second, each a JavaScript loop of about 15-35 ms of CPU
// on this machine's cores and one request to an idle target: 0.3 to 0.7 cores of work,
// well over the 200m the run gets.
const busyScript = `import http from 'k6/http';
export const options = { scenarios: { busy: { executor: 'constant-arrival-rate', rate: 20, timeUnit: '1s', duration: '10s', preAllocatedVUs: 5, maxVUs: 10 } } };
export default function () {
  let x = 0;
  for (let i = 0; i < 100000; i++) { x = (x + i * 7) % 1000003; }
  if (x < 0) { throw new Error('never'); }
  http.get(__ENV.TARGET + '/');
}
`

// TestIntegrationLoadGeneratorCPUBound runs `tidemark run` (the built binary) in a real
// cgroup v1 with a CFS quota of 200m, a CPU-heavy script against an idle `tidemark
// target`, remote-writing into a real Prometheus; the run writes
// tidemark_load_generator_cpu_cores 0.2 (its cgroup's quota, below the machine's CPUs)
// and a CPU counter whose rate the quota caps, and `tidemark correlate` names the load
// generator as what limited the load, with its CPU as the evidence.
func TestIntegrationLoadGeneratorCPUBound(t *testing.T) {
	h, err := cgroup.Detect()
	require.NoError(t, err, "the test needs a cgroup cpu controller")
	require.Zero(t, os.Geteuid(), "the cgroup tests run as root")
	// The machine is shared: the test's top cgroup gets the highest cpu.shares, so that
	// the run is not starved below its quota by processes outside it.
	_, err = h.Create("tidemark-test", cgroup.Limits{RequestMilli: 256000})
	require.NoError(t, err)
	path := fmt.Sprintf("tidemark-test/loadgen-%d", os.Getpid())
	g, err := h.Create(path, cgroup.Limits{RequestMilli: 256000, LimitMilli: 200})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, h.Open(path).RemoveAll(5*time.Second))
		_ = h.Open("tidemark-test").Remove() // shared with other test processes: may be busy
	})

	bin := tidemarkBinary(t, "tidemark")
	prom := promtest.StartPrometheus(t)
	tgt, url := startTestTarget(t, target.Config{})
	dir := t.TempDir()
	script := filepath.Join(dir, "busy.js")
	require.NoError(t, os.WriteFile(script, []byte(busyScript), 0o600))

	var out bytes.Buffer
	cmd := exec.Command(bin, "run", "--quiet", "--testid", "gencpu", "--env", "TARGET="+url,
		"--remote-write.url", prom.WriteURL(), "--remote-write.push-interval", "1s", script)
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	// Moved before its first push (1 s): every read of its limit sees the quota.
	require.NoError(t, g.Add(cmd.Process.Pid))
	err = cmd.Wait()
	require.NoError(t, err, out.String())
	require.Positive(t, tgt.Stats().Requests, "the run reached the target")
	t.Logf("run:\n%s", out.String())

	ctx := context.Background()
	v, err := promtest.Query(ctx, prom.URL, `max_over_time(`+loadgen.CPUCoresMetric+`{testid="gencpu"}[5m])`, time.Time{})
	require.NoError(t, err)
	require.Len(t, v.(model.Vector), 1, "one series of the generator's cores")
	require.InDelta(t, 0.2, float64(v.(model.Vector)[0].Value), 1e-9, "the cores are the cgroup's quota, not the machine's CPUs")
	// The kernel caps the process at 0.2 cores: the counter's rate over the run stays
	// under it (with a margin for the push stamps' jitter) and is well above nothing.
	v, err = promtest.Query(ctx, prom.URL, `max_over_time(rate(`+loadgen.CPUSecondsMetric+`{testid="gencpu"}[5s])[5m:1s])`, time.Time{})
	require.NoError(t, err)
	require.Len(t, v.(model.Vector), 1)
	used := float64(v.(model.Vector)[0].Value)
	t.Logf("the generator's CPU: at most %.3f cores of its 0.2", used)
	require.Greater(t, used, 0.1, "a CPU-bound run uses its quota")
	require.Less(t, used, 0.3, "the quota caps the CPU the counter counts")

	report := filepath.Join(dir, "report")
	var stdout, stderr bytes.Buffer
	code := run([]string{"correlate", "--testid", "gencpu", "--prometheus.url", prom.URL, "--after", "1s", "--no-write-back", "--output.dir", report}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	b, err := os.ReadFile(filepath.Join(report, "report.json"))
	require.NoError(t, err)
	var res correlator.Result
	require.NoError(t, json.Unmarshal(b, &res))
	bn := res.Bottleneck
	t.Logf("bottleneck: %s; evidence %q; ruled out %+v; not checked %+v", bn.Text, bn.Evidence, bn.RuledOut, bn.NotChecked)
	require.Equal(t, analysis.ResourceLoadGenerator, bn.Resource, "%s\n%s", bn.Text, strings.Join(bn.Evidence, "\n"))
	require.Regexp(t, `the load generator's own CPU at \d+% of its 0\.2 cores at \d\d:\d\d:\d\d \(rule: ≥ 90%\)`, strings.Join(bn.Evidence, "\n"))
	require.NotNil(t, bn.At, "the moment the generator saturated")
	require.Contains(t, stdout.String(), ")\n\nWhat limited the load: load-generator in stage ", "correlate's key facts lead with the verdict")
}
