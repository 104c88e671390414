//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/demo"
	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestIntegrationDemoBottlenecks runs `tidemark demo` on every profile of
// examples/bottleneck/ at once, each with its short step load, and checks the report's
// verdict against the simulator's ground truth (simulator.json): the simulator's own
// limit is the resource the profile was built to saturate (for the load generator:
// nothing failed and iterations were dropped), the report names it in the stage of
// its first failure, and every resource it ruled out carries its numbers.
func TestIntegrationDemoBottlenecks(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "bottleneck")
	kinds := []string{
		analysis.ResourceCPU, analysis.ResourceReplicas, analysis.ResourceStartup, analysis.ResourceDatabase,
		analysis.ResourcePool, analysis.ResourceMemory, analysis.ResourceLoadGenerator, analysis.ResourceNone,
	}
	type demoRun struct {
		out            string
		code           int
		stdout, stderr bytes.Buffer
	}
	// The eight demos run at once (not as parallel subtests, which -parallel would
	// bound by the CPUs): each is mostly waiting for its load and scrapes.
	runs := map[string]*demoRun{}
	var wg sync.WaitGroup
	start := time.Now()
	for _, kind := range kinds {
		r := &demoRun{out: t.TempDir()}
		runs[kind] = r
		wg.Go(func() {
			// No cool-down wait and no scale-in: the runs are short and the HPAs'
			// scale-in is not what they check.
			r.code = run([]string{"demo", "--output.dir", r.out, "--quiet", "--web.listen-address", "127.0.0.1:0",
				"--profile", filepath.Join(dir, kind+".yaml"), "--scenario", filepath.Join(dir, kind+"-load.yaml"),
				"--cooldown", "0s", "--fast.downscale-stabilization", "5m"}, &r.stdout, &r.stderr)
		})
	}
	wg.Wait()
	t.Logf("the eight demos took %s", time.Since(start).Round(time.Second))
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			r := runs[kind]
			t.Logf("%s", r.stdout.String())
			require.Equal(t, exitcode.OK, r.code, "stderr: %s", r.stderr.String())
			b, err := os.ReadFile(filepath.Join(r.out, "report", "report.json"))
			require.NoError(t, err)
			var res correlator.Result
			require.NoError(t, json.Unmarshal(b, &res))
			truth := requireVerdictAsTheSimulatorCounted(t, filepath.Join(r.out, demo.SimulatorFile), &res)
			switch kind {
			case analysis.ResourceLoadGenerator:
				require.Equal(t, analysis.ResourceNone, truth.Limit, "the service answered every request it got")
				require.Positive(t, res.Load.Dropped, "one VU cannot keep up with the step")
			case analysis.ResourceNone:
				require.Equal(t, analysis.ResourceNone, truth.Limit)
				require.Zero(t, res.Load.Dropped)
			default:
				require.Equal(t, kind, truth.Limit, "the simulator saturated what the profile was built to saturate: %+v", truth.Causes)
				require.NotNil(t, truth.LimitAt)
			}
			if kind == analysis.ResourceMemory {
				// The OOM kill (the simulator's first oom_killed failure) is dated at the
				// first kube-state-metrics scrape that shows it, on that source's measured
				// grid (a second after its samples), or a working set at the limit
				// sampled before it: within a scrape of the kill either way.
				require.NotNil(t, res.Bottleneck.At)
				res2 := func(name string) time.Duration {
					for _, s := range res.Sources {
						if s.Name == name {
							require.True(t, s.Measured, "%s's interval is measured, not assumed", name)
							return time.Duration(s.ResolutionSeconds * float64(time.Second))
						}
					}
					t.Fatalf("no source %s", name)
					return 0
				}
				at := res.Bottleneck.At.At
				t.Logf("OOM kill at %s, dated %s (%+.3fs)", truth.LimitAt.Format(time.TimeOnly+".000"), at.Format(time.TimeOnly+".000"), at.Sub(*truth.LimitAt).Seconds())
				require.False(t, at.Before(truth.LimitAt.Add(-res2("cadvisor"))), "dated before the kill")
				require.False(t, at.After(truth.LimitAt.Add(res2("ksm")+time.Second)), "dated late")
			}
			require.Contains(t, r.stdout.String(), "What limited the load: "+kind)
		})
	}
}
