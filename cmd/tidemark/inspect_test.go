package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestInspect: a script and its YAML twin resolve to the same options (scenarios with
// their defaults, thresholds), and the shortcut flags replace the scenarios as they do
// for tidemark run; a bad file is exit 104.
func TestInspect(t *testing.T) {
	inspect := func(args ...string) map[string]any {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"inspect"}, args...), &stdout, &stderr)
		require.Equal(t, exitcode.OK, code, stderr.String())
		var out map[string]any
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
		return out
	}
	js, yaml := inspect("../../examples/spike.js"), inspect("../../examples/spike.yaml")
	scenarios := func(o map[string]any) map[string]any {
		s := o["scenarios"].(map[string]any)
		for _, sc := range s {
			delete(sc.(map[string]any), "exec") // a script's scenarios name their function
		}
		return s
	}
	require.Equal(t, scenarios(yaml), scenarios(js))
	require.Equal(t, yaml["thresholds"], js["thresholds"])
	require.Contains(t, js["scenarios"], "spike")

	flags := inspect("-u", "3", "-d", "5s", "../../examples/spike.yaml")
	require.Equal(t, map[string]any{"default": map[string]any{"executor": "constant-vus", "vus": 3.0, "duration": "5s",
		"gracefulStop": "30s", "startTime": "0s"}}, flags["scenarios"])

	var stdout, stderr bytes.Buffer
	require.Equal(t, exitcode.InvalidConfig, run([]string{"inspect", "-u", "-1", "-d", "1s", "../../examples/spike.yaml"}, &stdout, &stderr), stderr.String())
}

// TestInspectTidemarkOnly: a script whose threshold has Tidemark's window (which k6
// rejects) shows it under thresholds and names it under tidemarkOnly; a script
// without one has no tidemarkOnly.
func TestInspectTidemarkOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "windowed.js")
	require.NoError(t, os.WriteFile(script, []byte(`export const options = {
  vus: 1, duration: '1s',
  thresholds: { http_req_duration: ['p(95)<800', { threshold: 'p(95)<500', window: '30s', abortOnFail: true }] },
};
export default function () {}
`), 0o600))
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitcode.OK, run([]string{"inspect", script}, &stdout, &stderr), stderr.String())
	var out map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
	require.Equal(t, []any{"thresholds.http_req_duration[1].window"}, out["tidemarkOnly"])
	require.Equal(t, []any{"p(95)<800", map[string]any{"threshold": "p(95)<500", "abortOnFail": true, "window": "30s"}},
		out["thresholds"].(map[string]any)["http_req_duration"])

	stdout.Reset()
	require.Equal(t, exitcode.OK, run([]string{"inspect", "../../examples/spike.yaml"}, &stdout, &stderr), stderr.String())
	require.NotContains(t, stdout.String(), "tidemarkOnly")
}
