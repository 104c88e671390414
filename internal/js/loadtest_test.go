package js

import (
	"path/filepath"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadtest"
)

// TestRunThroughLoadtest runs scripts as `tidemark run` does (loadtest.Run with the
// Runner as VUs and registry): the executor's iterations, setup and teardown once,
// and thresholds judged after teardown, whose samples count as in k6.
func TestRunThroughLoadtest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		script   string
		wantCode int
		iters    float64
	}{
		{
			name: "passes",
			script: `import { check } from 'k6';
export const options = { vus: 2, iterations: 6, thresholds: { checks: ['rate==1'], iterations: ['count==6'] } };
export function setup() { return { ok: true }; }
export default function (data) { check(data, { ok: (d) => d.ok }); }
export function teardown(data) { check(data, { 'teardown ok': (d) => d.ok }); }`,
			iters: 6,
		},
		{
			name: "a failing check in teardown crosses the threshold",
			script: `import { check } from 'k6';
export const options = { vus: 1, iterations: 2, thresholds: { checks: ['rate==1'] } };
export default function () { check(1, { one: (v) => v === 1 }); }
export function teardown() { check(0, { 'teardown sees a failure': (v) => v === 1 }); }`,
			wantCode: exitcode.ThresholdsFailed,
			iters:    2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"script.js": tc.script})
			r, err := New(Config{Script: filepath.Join(dir, "script.js"), Logger: promslog.NewNopLogger()})
			require.NoError(t, err)
			res, err := loadtest.Run(r.Context(bg()), loadtest.Config{Test: r.Test(), Source: "script.js", TestID: "t", VUs: r, Registry: r.Registry()})
			require.NotNil(t, res, "%v", err)
			require.Equal(t, tc.wantCode, exitcode.Of(err), "%v", err)
			var iters float64
			for _, s := range res.Summary.Snapshot.Series {
				if s.Metric.Name == "iterations" {
					iters += s.Count
				}
			}
			require.Equal(t, tc.iters, iters)
		})
	}
}
