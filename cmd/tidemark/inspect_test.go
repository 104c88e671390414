package main

import (
	"bytes"
	"encoding/json"
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
