package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRealRunChecks runs the flow of issue 11 through `tidemark run` and reads the
// checks from the --summary-file: a jsonPath check without equals passes on a present
// field, and equals: 42 fails on the string "42". Before, the engine evaluated checks
// with a copy of the rules that did the opposite (0/4 and 4/0).
func TestRealRunChecks(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id": 42, "code": "42"}`))
	}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	file := filepath.Join(dir, "checks.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`
scenarios:
  checks: { executor: shared-iterations, vus: 1, iterations: 4 }
flow:
  - name: item
    url: `+srv.URL+`/item
    checks:
      - name: id is present
        jsonPath: id
      - name: code is 42
        jsonPath: code
        equals: 42
`), 0o600))
	out := filepath.Join(dir, "summary.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--quiet", "--no-embedded-store", "--summary-file", out, file}, &stdout, &stderr)
	require.Zero(t, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())

	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var data struct {
		RootGroup struct {
			Checks []struct {
				Name   string `json:"name"`
				Passes uint64 `json:"passes"`
				Fails  uint64 `json:"fails"`
			} `json:"checks"`
		} `json:"root_group"`
	}
	require.NoError(t, json.Unmarshal(b, &data))
	got := map[string][2]uint64{}
	for _, c := range data.RootGroup.Checks {
		got[c.Name] = [2]uint64{c.Passes, c.Fails}
	}
	require.Equal(t, map[string][2]uint64{"id is present": {4, 0}, "code is 42": {0, 4}}, got, "passes and fails per check")
	require.Equal(t, int64(4), served.Load())
}
