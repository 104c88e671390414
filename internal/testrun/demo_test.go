package testrun_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/internal/testrun"
	"github.com/tidemark/tidemark/internal/verdict"
)

// TestDemo: the demo's load test as a k6 script and as a scenario file, each aimed by
// TARGET_URL at a target, with its test id, its outputs and the summary file; crossed
// thresholds are the verdict's kind, an invalid scenario file is named.
//
// Not parallel: t.Setenv gives the process environment that __ENV holds.
func TestDemo(t *testing.T) {
	const script = `import http from 'k6/http';
export const options = { iterations: 3, thresholds: { http_reqs: ['count>=' + __ENV.WANT] } };
export default function () { http.get(__ENV.TARGET_URL + '/orders/1'); }
`
	const file = "iterations: 3\nvus: 1\nflow:\n  - url: ${__ENV.TARGET_URL}/orders/1\n"
	js := filepath.Join(t.TempDir(), "load.js")
	require.NoError(t, os.WriteFile(js, []byte(script), 0o600))
	for _, tc := range []struct {
		name    string
		demo    testrun.Demo
		want    string // the verdict's kind, "" for none
		wantOut string
	}{
		{name: "script", demo: testrun.Demo{File: js}, wantOut: "Running " + js + " against "},
		{name: "script crossing its thresholds", demo: testrun.Demo{File: js}, want: "thresholds"},
		{name: "scenario file", demo: testrun.Demo{File: "load.yaml", Raw: []byte(file), Name: "load.yaml"}, wantOut: "Running load.yaml against "},
		{name: "invalid scenario file", demo: testrun.Demo{File: "bad.yaml", Raw: []byte("flow: 3\n"), Name: "bad.yaml"}, want: "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, base := targettest.Start(t, target.Config{})
			var stdout, stderr bytes.Buffer
			var testID atomic.Value
			d := tc.demo
			d.TestID, d.Target, d.Logger = "demo-1", base, promslog.NewNopLogger()
			d.IO = testrun.IO{Stdout: &stdout, Stderr: &stderr}
			d.Show = testrun.Show{Quiet: true, SummaryFile: filepath.Join(t.TempDir(), "summary.json")}
			d.Outputs = []loadtest.Actor{loadtest.Outputs(func(_ *aggregate.Store, tags map[string]string) ([]loadtest.Sink, error) {
				testID.Store(tags["testid"])
				return nil, nil
			})}
			// __ENV holds the process environment, as `tidemark run` gives it: WANT
			// is the threshold's count.
			t.Setenv("WANT", map[bool]string{true: "4", false: "3"}[tc.want == "thresholds"])
			err := d.Run(t.Context())
			switch tc.want {
			case "invalid":
				require.ErrorIs(t, err, verdict.ErrInvalid)
				require.ErrorContains(t, err, "bad.yaml")
				return
			case "thresholds":
				require.ErrorIs(t, err, verdict.ErrThresholds)
			default:
				require.NoError(t, err, stderr.String())
			}
			require.Contains(t, stdout.String(), tc.wantOut+base+" (testid demo-1)")
			require.Contains(t, stdout.String(), "http_reqs")
			require.Equal(t, "demo-1", testID.Load())
			require.Equal(t, int64(3), ts.Stats().Requests, "TARGET_URL aimed the requests")
			require.FileExists(t, d.Show.SummaryFile)
		})
	}
}
