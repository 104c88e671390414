package restapi

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// TestWiredVUsMaxWhilePaused holds real runs at --paused and reads GET /v1/status
// against k6 v1.8.1's answers for the same options (`k6 run --paused`): vus 0, and
// vus-max the VUs k6 initializes before the start, the most planned VUs of scenarios
// that run at the same time.
func TestWiredVUsMaxWhilePaused(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	const flow = "flow:\n  - url: ${__ENV.URL}/x\n"
	for _, tc := range []struct {
		name, yaml string
		vusMax     int64
	}{
		{
			// 3 + 7 + 2 + 4 + 2 + 5: preAllocatedVUs, not maxVUs, for arrival rates.
			name: "every executor at once", vusMax: 23, yaml: `
scenarios:
  a: {executor: constant-vus, vus: 3, duration: 5s}
  b: {executor: ramping-vus, startVUs: 1, stages: [{duration: 2s, target: 7}, {duration: 2s, target: 2}]}
  c: {executor: constant-arrival-rate, rate: 5, timeUnit: 1s, duration: 5s, preAllocatedVUs: 2, maxVUs: 11}
  d: {executor: ramping-arrival-rate, startRate: 1, timeUnit: 1s, preAllocatedVUs: 4, maxVUs: 13, stages: [{duration: 3s, target: 5}]}
  e: {executor: per-vu-iterations, vus: 2, iterations: 3}
  f: {executor: shared-iterations, vus: 5, iterations: 10}
`,
		},
		{
			// a (3) ends at 3 s, before b (5) starts; at 10 s b, c and d overlap: 5 + 4 + 9.
			name: "scenarios one after another", vusMax: 18, yaml: `
scenarios:
  a: {executor: constant-vus, vus: 3, duration: 2s, gracefulStop: 1s}
  b: {executor: constant-vus, vus: 5, duration: 2s, startTime: 3s}
  c: {executor: constant-vus, vus: 4, duration: 2s, startTime: 2500ms}
  d: {executor: ramping-vus, startVUs: 9, stages: [{duration: 1s, target: 2}], startTime: 10s}
`,
		},
		{
			name: "externally-controlled", vusMax: 8, yaml: `
scenarios:
  x: {executor: externally-controlled, vus: 2, maxVUs: 8, duration: 10s}
`,
		},
		{name: "top-level vus and duration", vusMax: 6, yaml: "vus: 6\nduration: 5s\n"},
		{name: "top-level stages", vusMax: 9, yaml: "stages: [{duration: 2s, target: 4}, {duration: 2s, target: 9}]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := startWired(t, flow+tc.yaml, url)
			require.Eventually(t, func() bool { return status(t, w).VUsMax == tc.vusMax }, 5*time.Second, 5*time.Millisecond,
				"vus-max while paused: k6 v1.8.1 reports %d", tc.vusMax)
			st := status(t, w)
			require.True(t, st.Paused)
			require.Equal(t, StatusPausedBeforeRun, st.Status)
			require.Zero(t, st.VUs, "no VU is active while paused")
			code, body := call(t, http.MethodGet, w.url("/v1/metrics/vus_max"), "", "")
			require.Equal(t, http.StatusOK, code, string(body))
			require.Contains(t, string(body), `"value":`+strconv.FormatInt(tc.vusMax, 10), "the vus_max metric says the same")
		})
	}
}
