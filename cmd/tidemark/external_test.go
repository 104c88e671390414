package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// extStatus is the attributes of GET /v1/status.
type extStatus struct {
	Paused  bool  `json:"paused"`
	VUs     int64 `json:"vus"`
	VUsMax  int64 `json:"vus-max"`
	Running bool  `json:"running"`
	Stopped bool  `json:"stopped"`
}

// extAPI is the REST API of one `tidemark run --address`.
type extAPI struct {
	t    *testing.T
	addr string
}

func (a extAPI) do(method, body string) (int, extStatus) {
	a.t.Helper()
	req, err := http.NewRequest(method, "http://"+a.addr+"/v1/status", strings.NewReader(body))
	require.NoError(a.t, err)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, extStatus{}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(a.t, err)
	var doc struct {
		Data struct {
			Attributes extStatus `json:"attributes"`
		} `json:"data"`
	}
	if resp.StatusCode == http.StatusOK {
		require.NoError(a.t, json.Unmarshal(b, &doc), string(b))
	}
	return resp.StatusCode, doc.Data.Attributes
}

func (a extAPI) status() extStatus {
	a.t.Helper()
	_, st := a.do(http.MethodGet, "")
	return st
}

func (a extAPI) patch(attrs string) extStatus {
	a.t.Helper()
	code, st := a.do(http.MethodPatch, `{"data":{"type":"status","id":"default","attributes":`+attrs+`}}`)
	require.Equal(a.t, http.StatusOK, code, attrs)
	return st
}

// settled waits until read returns the same value twice 100 ms apart (the running
// iterations have finished) and returns it.
func settled(t *testing.T, read func() int64) int64 {
	t.Helper()
	last := read()
	require.Eventually(t, func() bool {
		n := read()
		same := n == last
		last = n
		return same
	}, 10*time.Second, 100*time.Millisecond)
	return last
}

// TestRunExternallyControlled runs an externally-controlled scenario through `tidemark
// run --address` and controls it as k6's REST API does. Each VU asks the target for the
// status 200+__VU, so the target's count per status is a count per VU: a VU added over
// the API starts sending, a removed one stops, a pause stops them all until the resume.
// The run ends on PATCH stopped:true with k6's 103, or by itself at its duration, which
// leaves out the paused time.
func TestRunExternallyControlled(t *testing.T) {
	ts, url := startTestTarget(t, target.Config{})
	byVU := func(vu int) func() int64 {
		return func() int64 { return ts.Stats().ByStatus[strconv.Itoa(200+vu)] }
	}
	total := func() int64 { return ts.Stats().Requests }
	start := func(t *testing.T, scenario string) (extAPI, <-chan int, *syncBuffer) {
		t.Helper()
		file := writeScenario(t, "scenarios:\n  ext: "+scenario+"\nflow:\n  - url: "+url+"/?status=20${__VU}\n    sleep: 20ms\n")
		api := extAPI{t: t, addr: freeAddress(t)}
		var stdout, stderr syncBuffer
		done := make(chan int, 1)
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			done <- run([]string{"run", "-q", "--no-embedded-store", "--address", api.addr, file}, &stdout, &stderr)
		}()
		t.Cleanup(func() {
			select {
			case <-exited:
			default:
				api.do(http.MethodPatch, `{"data":{"attributes":{"stopped":true}}}`)
				<-exited
			}
		})
		require.Eventually(t, func() bool { st := api.status(); return st.Running && st.VUs > 0 }, 10*time.Second, 10*time.Millisecond, "%s", &stderr)
		return api, done, &stderr
	}
	grows := func(t *testing.T, read func() int64, what string) {
		t.Helper()
		n := read()
		require.Eventually(t, func() bool { return read() > n+2 }, 10*time.Second, 10*time.Millisecond, what)
	}
	still := func(t *testing.T, read func() int64, what string) {
		t.Helper()
		n := settled(t, read)
		require.Never(t, func() bool { return read() != n }, 300*time.Millisecond, 20*time.Millisecond, what)
	}

	t.Run("scaled, paused and stopped", func(t *testing.T) {
		api, done, stderr := start(t, "{executor: externally-controlled, vus: 1, maxVUs: 2, duration: 0}")
		require.Equal(t, extStatus{VUs: 1, VUsMax: 2, Running: true}, api.status())
		grows(t, byVU(1), "VU 1 runs")
		require.Zero(t, byVU(2)()+byVU(3)(), "only vus VUs run")

		require.Equal(t, extStatus{VUs: 3, VUsMax: 3, Running: true}, api.patch(`{"vus":3,"vus-max":3}`))
		grows(t, byVU(2), "VU 2 added")
		grows(t, byVU(3), "VU 3 added above the first maxVUs")
		require.Equal(t, int64(3), api.status().VUs)

		require.Equal(t, int64(1), api.patch(`{"vus":1}`).VUs)
		still(t, func() int64 { return byVU(2)() + byVU(3)() }, "VUs 2 and 3 removed")
		grows(t, byVU(1), "VU 1 goes on")

		st := api.patch(`{"paused":true}`)
		require.True(t, st.Paused)
		require.Zero(t, st.VUs)
		require.Equal(t, extStatus{Paused: true, VUsMax: 3, Running: true}, api.status())
		still(t, total, "no request while paused")

		require.Equal(t, extStatus{VUs: 1, VUsMax: 3, Running: true}, api.patch(`{"paused":false}`))
		grows(t, byVU(1), "resumed")

		require.True(t, api.patch(`{"stopped":true}`).Stopped)
		select {
		case code := <-done:
			require.Equal(t, exitcode.ScriptStoppedFromRESTAPI, code, "%s", stderr)
		case <-time.After(20 * time.Second):
			t.Fatalf("the run did not stop\n%s", stderr)
		}
	})

	t.Run("ends at its duration without the paused time", func(t *testing.T) {
		const dur, pause = time.Second, 1500 * time.Millisecond
		began := time.Now()
		api, done, stderr := start(t, "{executor: externally-controlled, vus: 2, duration: 1s}")
		require.True(t, api.patch(`{"paused":true}`).Paused)
		pausedAt := time.Now()
		require.Never(t, func() bool {
			select {
			case code := <-done:
				t.Errorf("the run ended while paused (%d)", code)
				return true
			default:
				return false
			}
		}, pause, 50*time.Millisecond)
		require.Equal(t, int64(2), api.patch(`{"paused":false}`).VUs)
		select {
		case code := <-done:
			require.Equal(t, exitcode.OK, code, "%s", stderr)
		case <-time.After(20 * time.Second):
			t.Fatalf("the run did not end at its duration\n%s", stderr)
		}
		require.GreaterOrEqual(t, time.Since(pausedAt), pause, "the pause")
		require.GreaterOrEqual(t, time.Since(began), dur+pause, "the duration did not count the pause")
		require.Positive(t, byVU(1)()+byVU(2)())
	})
}
