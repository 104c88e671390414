//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// TestIntegrationDemoHybrid runs the hybrid example as its README does: `tidemark
// target` serves the page (here in-process, on loopback) and `tidemark demo --scenario
// examples/hybrid/hybrid.js` runs the spike's protocol VUs and the browser VU (real
// Chromium) against the simulated cluster. The report has the page's LCP over the run
// and in every stage of the spike, the spike's hold worse than the baseline (the page's
// image waits for the service under load), and report.md its Web Vitals section. The
// browser scenario's hold is neither a stage of the load nor its throttling onset.
func TestIntegrationDemoHybrid(t *testing.T) {
	_, base := targettest.Start(t, target.Config{})
	t.Setenv("PAGE_URL", base+target.PagePath)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run([]string{"demo", "--scenario", filepath.Join("..", "..", "examples", "hybrid", "hybrid.js"), "--output.dir", out, "--quiet",
		"--web.listen-address", "127.0.0.1:0", "--scrape.interval", "2s", "--cooldown", "0s"}, &stdout, &stderr)
	t.Logf("the demo took %s\n%s", time.Since(start).Round(time.Second), stdout.String())
	require.Equal(t, exitcode.OK, code, "stderr: %s", stderr.String())

	b, err := os.ReadFile(filepath.Join(out, "report", "report.json"))
	require.NoError(t, err)
	var res correlator.Result
	require.NoError(t, json.Unmarshal(b, &res))
	wv := res.WebVitals
	require.NotNil(t, wv, "report.json has web_vitals")
	const lcp = "browser_web_vital_lcp"
	p95 := analysis.QuantileStat(0.95)
	run := analysis.Vital(wv.Run, lcp, p95)
	require.NotNil(t, run, "LCP p95 over the run: %+v", wv.Run)
	require.Equal(t, analysis.VitalHistogram, run.Source, "the demo writes native histograms")

	// The spike's stages (baseline, ramp, hold) each have the page's LCP; the browser
	// scenario's own stage is left out.
	byStage := map[int]*analysis.VitalStat{}
	for _, sv := range wv.Stages {
		require.Equal(t, "spike", sv.Scenario)
		byStage[sv.Stage] = analysis.Vital(sv.Vitals, lcp, p95)
	}
	var spike []int
	for _, st := range res.Load.Stages {
		if st.Scenario == "spike" {
			spike = append(spike, st.Index)
		}
	}
	require.Len(t, spike, 3)
	for _, i := range spike {
		require.NotNil(t, byStage[i], "stage %d has LCP p95: %+v", i, wv.Stages)
	}
	baseline, hold := byStage[spike[0]].Value.Value, byStage[spike[2]].Value.Value
	t.Logf("LCP p95: baseline %.3fs, hold %.3fs; not Ready in the hold: %+v", baseline, hold, wv.Stages[len(wv.Stages)-1].NotReady)
	require.Greater(t, hold, 2*baseline, "the page's image waits for the order service the spike overloads")

	md, err := os.ReadFile(filepath.Join(out, "report", "report.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "## Web Vitals")
	require.Regexp(t, `LCP was worst in stage \d+: `, string(md))
	require.Contains(t, string(md), "### Per stage of the load")
	// The browser scenario is not load: the STAGES row of its 1 VU reads 1 VU (not the
	// run's), and the report leaves it out of the load's stages, the capacity, the
	// throttling onset and the verdict.
	require.Regexp(t, `\n +page #1 \(browser\) +0s-45s +1 VUs +1 VUs `, stdout.String())
	for _, st := range res.Load.Stages {
		require.NotEqual(t, "page", st.Scenario, "the browser scenario's hold is no stage of the load")
	}
	require.NotContains(t, res.Load.Capacity.Text, "page")
	require.NotContains(t, res.Bottleneck.Text, "page")
	for _, w := range res.CPU {
		for _, h := range w.Holds {
			require.NotEqual(t, "vus", h.Unit, "%s: the spike's holds are iterations/s; a hold in VUs is the browser's", w.Workload)
		}
	}
	require.Contains(t, stdout.String(), "WEB VITALS")
	require.Regexp(t, `browser_web_vital_lcp\.+: avg=`, stdout.String())
}
