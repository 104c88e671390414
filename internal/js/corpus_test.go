package js_test

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

const corpus = "testdata/corpus/"

// TestCorpusScripts runs every corpus script that no module's own test runs (see
// testdata/corpus/README.md; k6/http, k6/metrics, k6/data, k6/encoding, k6/crypto and
// jslib have theirs) as `tidemark run` does, each against a target of its own: the exit
// code its header states, the run's request count, the target's own count where the
// script states it, and what the script prints.
func TestCorpusScripts(t *testing.T) {
	t.Parallel()
	type tc struct {
		script string
		env    map[string]string
		opts   []modulestest.Option
		exit   int
		// requests is the run's http_reqs count, or the least of it when atLeast; -1
		// skips it. target is the target's own count; -1 skips it.
		requests     float64
		atLeast      float64
		atMost       float64
		target       int64
		summary      []string
		summaryFiles map[string]string
	}
	for _, c := range []tc{
		{script: "lifecycle.js", exit: 0, requests: 6, target: 4, summary: []string{"lifecycle: handleSummary ran"},
			summaryFiles: map[string]string{"lifecycle-summary.json": `{"setup_runs":1,"teardown_runs":1,"iterations":4,"checks_failed":0}`}},
		{script: "k6-core.js", exit: 0, requests: 4, target: 4},
		{script: "execution.js", exit: 0, requests: 6, target: 6},
		{script: "execution-tags.js", exit: 0, requests: 4, target: 4},
		{script: "abort.js", exit: 108, requests: 2, target: 2},
		{script: "open.js", exit: 0, requests: 0, target: 0},
		{script: "env.js", env: map[string]string{"CORPUS_GREETING": "hello", "CORPUS_NUMBER": "42"}, exit: 0, requests: 6, target: 6},
		{script: "env.js", exit: exitcode.ThresholdsFailed, requests: 6, target: 6},
		{script: "console.js", exit: 0, requests: -1, target: -1},
		{script: "modules-esm.js", exit: 0, requests: 1, target: 1},
		{script: "modules-cjs.js", exit: 0, requests: 1, target: 1},
		{script: "typescript.ts", exit: 0, requests: 2, target: 2},
		{script: "remote-module.js", opts: []modulestest.Option{modulestest.WithModulesDir("modules")}, exit: 0, requests: 1, target: 1},
		{script: "thresholds-abort.js", exit: exitcode.ThresholdsFailed, requests: -1, atMost: 49, target: -1},
		{script: "seed-stages-sleep.js", exit: 0, requests: -1, atLeast: 8, target: -1},
		{script: "seed-arrival-rate.js", exit: 0, requests: -1, atLeast: 60, atMost: 70, target: -1},
		{script: "seed-ramping-vus.js", exit: 0, requests: -1, atLeast: 30, target: -1},
	} {
		name := c.script
		if c.env != nil {
			name += "+env"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ts, base := targettest.Start(t, target.Config{})
			dir := t.TempDir()
			env := map[string]string{"BASE_URL": base, "SUMMARY_DIR": dir}
			maps.Copy(env, c.env)
			out := modulestest.RunTest(t, corpus+c.script, env, c.opts...)
			require.Equal(t, c.exit, out.ExitCode, "%v\n%s", out.Err, out.Summary)
			var reqs float64
			if s, ok := out.Snapshot.Metric("http_reqs"); ok {
				reqs = s.Count
			}
			if c.requests >= 0 {
				require.InDelta(t, c.requests, reqs, 0, "http_reqs")
			}
			if c.atLeast > 0 {
				require.GreaterOrEqual(t, reqs, c.atLeast, "http_reqs")
			}
			if c.atMost > 0 {
				require.LessOrEqual(t, reqs, c.atMost, "http_reqs")
			}
			if c.target >= 0 {
				require.Equal(t, c.target, ts.Stats().Requests, "requests the target served")
			} else if c.requests < 0 {
				// Every request of these scripts reaches the target.
				require.InDelta(t, reqs, float64(ts.Stats().Requests), 0, "the target's count")
			}
			for _, s := range c.summary {
				require.Contains(t, out.Summary, s)
			}
			for f, want := range c.summaryFiles {
				b, err := os.ReadFile(filepath.Join(dir, f))
				require.NoError(t, err)
				require.JSONEq(t, want, string(b))
			}
		})
	}
}

// TestCorpusBrokenScripts loads every script of testdata/corpus/broken: each fails
// before any iteration, with the exit code and the place its header names.
func TestCorpusBrokenScripts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		script string
		exit   int
		says   []string
	}{
		{"syntax-error.js", 107, []string{"syntax-error.js:12:26"}},
		{"throw-init.js", 107, []string{"throw-init.js:9"}},
		{"init-type-error.js", 107, []string{"init-type-error.js:10"}},
		{"http-in-init.js", 107, []string{"http-in-init.js"}},
		{"bad-metric-name.js", 107, []string{"bad-metric-name.js:9", "orders-placed!"}},
		{"unknown-module.js", 107, []string{"k6/nonexistent"}},
		{"module-not-found.js", 107, []string{"no-such-module.js"}},
		{"no-default-export.js", 104, []string{"default"}},
		{"missing-exec.js", 104, []string{"placeOrder"}},
		{"unknown-executor.js", 104, []string{"ramping-arrivals"}},
		{"negative-vus.js", 104, []string{"vus"}},
		{"bad-duration.js", 104, []string{"ten seconds"}},
		{"bad-threshold.js", 104, []string{"p95<500"}},
		{"threshold-unknown-metric.js", 104, []string{"corpus_undefined_metric"}},
	} {
		t.Run(c.script, func(t *testing.T) {
			t.Parallel()
			_, err := js.New(js.Config{Script: corpus + "broken/" + c.script, Logger: promslog.NewNopLogger()})
			if err == nil {
				// Errors the options cannot show (an unknown metric in a threshold)
				// come when the run starts.
				ts, base := targettest.Start(t, target.Config{})
				out := modulestest.RunTest(t, corpus+"broken/"+c.script, map[string]string{"BASE_URL": base})
				err = out.Err
				require.Zero(t, ts.Stats().Requests, "no request")
			}
			require.Error(t, err)
			require.Equal(t, c.exit, exitcode.Of(err), "%v", err)
			for _, s := range c.says {
				require.Contains(t, err.Error(), s)
			}
		})
	}
}
