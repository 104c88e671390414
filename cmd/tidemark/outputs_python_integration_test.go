//go:build integration

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// TestRunOutputsReadByPython: a run's --out json and --out csv files, plain and
// gzipped, read by Python's own json, csv and gzip modules (testdata/k6_outputs.py, as
// a user's jq or pandas step would): every counter's samples add up to the summary's
// count, and there is one http_req_duration sample per request the target served.
func TestRunOutputsReadByPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	require.NoError(t, err, "python3 (Debian's python3) is needed to read the outputs")
	ts, url := startTestTarget(t, target.Config{})
	script := filepath.Join(t.TempDir(), "out.js")
	require.NoError(t, os.WriteFile(script, []byte(`import http from 'k6/http';
import { check } from 'k6';
export const options = { scenarios: { s: { executor: 'shared-iterations', vus: 3, iterations: 40 } } };
export default function () {
  const r = http.get('`+url+`/');
  check(r, { 'is 200': (x) => x.status === 200, 'is 404': (x) => x.status === 404 });
}
`), 0o600))
	for _, ext := range []string{"", ".gz"} {
		t.Run(map[string]string{"": "plain", ".gz": "gzip"}[ext], func(t *testing.T) {
			dir := t.TempDir()
			jsonPath, csvPath := filepath.Join(dir, "out.json"+ext), filepath.Join(dir, "out.csv"+ext)
			before := ts.Stats().Requests
			code, stdout, stderr, ex := runScenario(t, script, "--out", "json="+jsonPath, "--out", "csv="+csvPath)
			require.Equal(t, exitcode.OK, code, "%s\n%s", stdout, stderr)
			served := ts.Stats().Requests - before
			require.EqualValues(t, 40, served)

			out, err := exec.Command(python, "testdata/k6_outputs.py", jsonPath, csvPath).Output()
			require.NoError(t, err, "%s", exitStderr(err))
			var got map[string]map[string][2]float64
			require.NoError(t, json.Unmarshal(out, &got), "%s", out)
			for _, format := range []string{"json", "csv"} {
				m := got[format]
				for _, counter := range []string{"http_reqs", "iterations"} {
					require.InDelta(t, count(ex, counter), m[counter][1], 0, "%s: %s's samples sum to the summary's count", format, counter)
				}
				require.InDelta(t, float64(served), m["http_reqs"][1], 0, format)
				require.InDelta(t, float64(served), m["http_req_duration"][0], 0, "%s: one duration per request", format)
				// checks: one sample per check per iteration, value 1 when it passed.
				require.InDelta(t, 2*float64(served), m["checks"][0], 0, format)
				require.InDelta(t, float64(served), m["checks"][1], 0, "%s: the passes", format)
			}
		})
	}
}

// exitStderr is the stderr of a failed command, for the failure message.
func exitStderr(err error) string {
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}
