package restapi

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// TestWiredExternallyControlled drives a real externally-controlled run (vus 2,
// maxVUs 5, as k6's recorded session) through the REST API: VU changes refused and
// accepted before the start, then k6's answers while it runs, pauses, resumes and
// scales, with the target's request count following; the stop ends it.
func TestWiredExternallyControlled(t *testing.T) {
	t.Parallel()
	ts, url := targettest.Start(t, target.Config{})
	w := startWired(t, `
scenarios:
  ext:
    executor: externally-controlled
    vus: 2
    maxVUs: 5
    duration: 60s
    flow:
      - url: ${__ENV.URL}/x
        sleep: 10ms
`, url)
	h := NewHandler(w.run, promslog.NewNopLogger())
	patch := func(attrs string) (int, string) {
		t.Helper()
		code, body := call(t, http.MethodPatch, w.url("/v1/status"), "application/json", `{"data":{"type":"status","id":"default","attributes":`+attrs+`}}`)
		return code, string(body)
	}
	// Before the start, as k6: invalid changes refused, valid ones kept for the start.
	for _, golden := range []string{"ext_patch_vus_over", "ext_patch_vusmax_lower", "ext_patch_vus_neg"} {
		exchange(t, h, golden)
	}
	code, body := patch(`{"vus":3}`)
	require.Equal(t, http.StatusOK, code, body)
	code, body = patch(`{"vus-max":6}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Zero(t, ts.Stats().Requests, "held by --paused")

	code, body = patch(`{"paused":false,"stopped":false}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Eventually(t, func() bool { st := status(t, w); return st.Running && st.VUs == 3 }, 5*time.Second, 5*time.Millisecond)
	exchange(t, h, "ext_running") // vus 3, vus-max 6
	exchange(t, h, "ext_patch_vus_4")
	requestsGrow := func() {
		t.Helper()
		n := ts.Stats().Requests
		require.Eventually(t, func() bool { return ts.Stats().Requests > n+4 }, 5*time.Second, 5*time.Millisecond)
	}
	requestsGrow()

	exchange(t, h, "ext_pause")
	exchange(t, h, "ext_paused")
	exchange(t, h, "ext_pause_again")
	// The running iterations finish (their 10 ms sleep), then no request is sent.
	var n int64
	require.Eventually(t, func() bool {
		m := ts.Stats().Requests
		settled := m == n
		n = m
		return settled
	}, 5*time.Second, 50*time.Millisecond)
	require.Never(t, func() bool { return ts.Stats().Requests != n }, 300*time.Millisecond, 10*time.Millisecond, "no request while paused")

	exchange(t, h, "ext_resume2") // vus 4 again
	exchange(t, h, "ext_resume_notpaused")
	requestsGrow()
	exchange(t, h, "ext_vus_and_max") // vus 7, vus-max 8
	// Issue 24: vus-max 100,000,000 was accepted and the host's memory ran out; the VUs
	// it would add are checked against the memory left, as options are.
	code, body = patch(`{"vus-max":100000000}`)
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Contains(t, body, `"title":"Config update error"`)
	require.Contains(t, body, "vus-max 100000000: 99999992 VUs need about")
	require.Equal(t, int64(8), status(t, w).VUsMax, "nothing allocated")
	// A body larger than a status document can be is refused unread.
	code, raw := call(t, http.MethodPatch, w.url("/v1/status"), "application/json", `{"data":{"attributes":{"vus":1}},"pad":"`+strings.Repeat("x", 1<<20)+`"}`)
	require.Equal(t, http.StatusBadRequest, code, string(raw))
	require.Contains(t, string(raw), "request body too large")
	code, body = patch(`{"vus-max":4}`)
	require.Equal(t, http.StatusBadRequest, code)
	require.JSONEq(t, `{"errors":[{"status":"400","title":"Config update error","detail":"invalid configuration supplied: the number of active VUs (7) must be less than or equal to the number of maxVUs (4)"}]}`, body)
	code, body = patch(`{"vus":1,"vus-max":4}`)
	require.Equal(t, http.StatusBadRequest, code)
	require.JSONEq(t, `{"errors":[{"status":"400","title":"Config update error","detail":"the new number of max VUs cannot be lower than the starting number of max VUs (5)"}]}`, body)
	exchange(t, h, "ext_vus_zero")
	require.Eventually(t, func() bool {
		m := ts.Stats().Requests
		settled := m == n
		n = m
		return settled
	}, 5*time.Second, 50*time.Millisecond, "0 VUs send nothing")

	code, body = patch(`{"paused":false,"stopped":true}`)
	require.Equal(t, http.StatusOK, code, body)
	w.wait(t)
	require.ErrorIs(t, w.err, loadtest.ErrInterrupted)
	st := status(t, w)
	require.True(t, st.Stopped)
	require.Zero(t, st.VUs)
	require.Equal(t, int64(8), st.VUsMax)
}

// TestWiredExternallyControlledEndsAtDuration: a run of 0 VUs at the start, scaled up
// over the API, ends by itself at its duration.
func TestWiredExternallyControlledEndsAtDuration(t *testing.T) {
	t.Parallel()
	ts, url := targettest.Start(t, target.Config{})
	w := startWired(t, `
scenarios:
  ext:
    executor: externally-controlled
    maxVUs: 2
    duration: 1s
    flow:
      - url: ${__ENV.URL}/x
        sleep: 10ms
`, url)
	code, body := call(t, http.MethodPatch, w.url("/v1/status"), "application/json", operatorStartBody)
	require.Equal(t, http.StatusOK, code, string(body))
	require.Eventually(t, func() bool { return status(t, w).Running }, 5*time.Second, 5*time.Millisecond)
	require.Zero(t, ts.Stats().Requests, "vus defaults to 0")
	code, body = call(t, http.MethodPatch, w.url("/v1/status"), "application/json", `{"data":{"type":"status","id":"default","attributes":{"vus":2}}}`)
	require.Equal(t, http.StatusOK, code, string(body))
	w.wait(t)
	require.NoError(t, w.err)
	require.False(t, w.res.Run.Interrupted)
	require.Len(t, w.res.Run.Scenarios, 1)
	require.Positive(t, w.res.Run.Scenarios[0].Iterations)
	require.Positive(t, ts.Stats().Requests)
}
