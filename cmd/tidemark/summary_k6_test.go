package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunCountsAndSummaryAsK6 runs a script through `tidemark run` and reads what k6
// shows for it: iterations an exception ended are counted, setup and teardown are not
// iterations, setup() data is in --summary-export and --summary-file as setup_data,
// checks keep the script's order, and dropped_iterations is absent when nothing was
// dropped (here under an arrival-rate scenario, which starts its series at 0).
func TestRunCountsAndSummaryAsK6(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "script.js")
	require.NoError(t, os.WriteFile(script, []byte(`
import { check, sleep } from 'k6';
export const options = {
  scenarios: {
    main: { executor: 'shared-iterations', vus: 1, iterations: 4 },
    tick: { executor: 'constant-arrival-rate', rate: 10, timeUnit: '1s', duration: '300ms', preAllocatedVUs: 3, exec: 'tick' },
  },
  thresholds: {
    'iterations{scenario:main}': ['count==4'],
  },
};
export function setup() { return { token: 'abc', n: 2 }; }
export default function (data) {
  check(data, { 'zz has the token': (d) => d.token === 'abc', 'aa has n': (d) => d.n === 2 });
  sleep(0.05);
  if (__ITER % 2 === 1) throw new Error('odd iteration');
}
export function tick() { sleep(0.05); }
export function teardown() {}
`), 0o600))
	export, file := filepath.Join(dir, "export.json"), filepath.Join(dir, "data.json")
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--quiet", "--no-embedded-store", "--summary-export", export, "--summary-file", file, "--testid", "it", script}, &out, &errOut)
	stdout, stderr := out.String(), errOut.String()
	require.Equal(t, 0, code, "stderr:\n%s\nstdout:\n%s", stderr, stdout)
	var ex struct {
		exported
		SetupData map[string]any `json:"setup_data"`
	}
	b, err := os.ReadFile(export)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &ex))
	require.InDelta(t, 4.0, count(ex.exported, "iterations{scenario:main}"), 0, "two iterations threw; k6 counts them")
	require.GreaterOrEqual(t, ex.Metrics["iteration_duration"]["min"], 50.0, "no setup or teardown in iteration_duration")
	require.NotContains(t, ex.Metrics, "dropped_iterations")
	require.NotContains(t, stdout, "dropped_iterations")
	require.Contains(t, stderr, "odd iteration", "the exception is logged")
	zz, aa := strings.Index(stdout, "✓ zz has the token"), strings.Index(stdout, "✓ aa has n")
	require.True(t, zz >= 0 && aa > zz, "checks in the script's order:\n%s", stdout)
	want := map[string]any{"token": "abc", "n": 2.0}
	require.Equal(t, want, ex.SetupData, "--summary-export has setup_data")
	b, err = os.ReadFile(file)
	require.NoError(t, err)
	var data struct {
		SetupData map[string]any `json:"setup_data"`
	}
	require.NoError(t, json.Unmarshal(b, &data))
	require.Equal(t, want, data.SetupData, "--summary-file (handleSummary's data) has setup_data")
}

// TestRunSummaryModeFull: `--summary-mode full` prints k6's full summary (a section per
// group and per scenario), not the compact one.
func TestRunSummaryModeFull(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "script.js")
	require.NoError(t, os.WriteFile(script, []byte(`
import { check, group } from 'k6';
export const options = { iterations: 2 };
export default function () {
  check(1, { 'root check': () => true });
  group('login', () => { check(1, { 'logged in': () => true }); });
}
`), 0o600))
	for _, mode := range []string{"compact", "full"} {
		var out, errOut bytes.Buffer
		code := run([]string{"run", "--quiet", "--no-embedded-store", "--summary-mode", mode, "--testid", "it", script}, &out, &errOut)
		require.Equal(t, 0, code, errOut.String())
		stdout := out.String()
		if mode == "compact" {
			require.NotContains(t, stdout, "█ GROUP:")
			continue
		}
		require.Contains(t, stdout, "  █ GROUP: login \n")
		require.Contains(t, stdout, "  █ SCENARIO: default \n")
		require.Contains(t, stdout, "group_duration")
		require.NotContains(t, errOut.String(), "not supported")
	}
}
