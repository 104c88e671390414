package js

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

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

// TestAbortOnFailInterruptsIterations: when an abortOnFail threshold fails, k6
// interrupts the running iterations (their sleeps and their requests in
// flight) rather than giving them gracefulStop, exits 99 and still prints the
// summary (issue 25: Tidemark stopped 1.7 s after k6). Thresholds are
// evaluated every 2 s; delayAbortEval postpones the abort to the first
// evaluation after it.
func TestAbortOnFailInterruptsIterations(t *testing.T) {
	t.Parallel()
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	defer hang.Close()
	for _, tc := range []struct {
		name, body, delay string
		min, max          time.Duration
	}{
		{name: "sleeping", body: `sleep(10);`, min: 1900 * time.Millisecond, max: 3500 * time.Millisecond},
		{name: "waiting for a response", body: `http.get(__ENV.HANG);`, min: 1900 * time.Millisecond, max: 3500 * time.Millisecond},
		{name: "delayAbortEval", body: `sleep(10);`, delay: `, delayAbortEval: '3s'`, min: 3900 * time.Millisecond, max: 5500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := `import http from 'k6/http';
import { sleep } from 'k6';
import { Counter } from 'k6/metrics';
const started = new Counter('started');
export const options = {
	vus: 2, duration: '30s',
	thresholds: { started: [{ threshold: 'count<1', abortOnFail: true` + tc.delay + ` }] },
};
export default function () { started.add(1); ` + tc.body + ` }`
			dir := writeFiles(t, map[string]string{"script.js": script})
			r, err := New(Config{Script: filepath.Join(dir, "script.js"), Env: map[string]string{"HANG": hang.URL}, Logger: promslog.NewNopLogger()})
			require.NoError(t, err)
			start := time.Now()
			res, err := loadtest.Run(r.Context(bg()), loadtest.Config{Test: r.Test(), Source: "script.js", TestID: "t", VUs: r, Registry: r.Registry()})
			took := time.Since(start)
			require.NotNil(t, res, "%v", err)
			require.Equal(t, exitcode.ThresholdsFailed, exitcode.Of(err), "%v", err)
			require.ErrorContains(t, err, "at least one has abortOnFail enabled")
			require.NotNil(t, res.Summary.Snapshot, "the summary is still made")
			require.GreaterOrEqual(t, took, tc.min, "the abort waits for the threshold evaluation")
			require.Less(t, took, tc.max, "the running iterations were interrupted, not given gracefulStop")
		})
	}
}
