package restapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

// The bodies k6-operator sends (e2c9571ac480): json.Marshal of its
// types.StatusAPIRequest, whose attributes are two plain bools, built in
// pkg/resources/containers/curl_start.go (Paused: false) and curl_stop.go
// (Stopped: true). Field order is its struct's: attributes, id, type.
const (
	operatorStartBody = `{"data":{"attributes":{"paused":false,"stopped":false},"id":"default","type":"status"}}`
	operatorStopBody  = `{"data":{"attributes":{"paused":false,"stopped":true},"id":"default","type":"status"}}`
)

// runner is one k6-operator runner: a paused fake run behind a real listener, and
// the goroutine that waits on the --paused gate and then starts it.
type runner struct {
	run     *fakeRun
	srv     *Server
	started chan struct{}
}

func startRunner(t *testing.T) *runner {
	t.Helper()
	f := newFakeRun("constant-vus", 2, 2, true)
	f.setup = func() (json.RawMessage, error) { return json.RawMessage(`{"token":"abc"}`), nil }
	srv, err := Listen("127.0.0.1:0", NewHandler(f, promslog.NewNopLogger()), promslog.NewNopLogger())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Stop(context.Background())) })
	r := &runner{run: f, srv: srv, started: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		if f.gate.Wait(ctx) == nil {
			f.start()
			close(r.started)
		}
	}()
	return r
}

func (r *runner) url(path string) string { return "http://" + r.srv.Addr().String() + path }

func call(t *testing.T, method, url, contentType, body string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewBufferString(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// TestK6OperatorSequence replays, against three paused runners, the calls k6-operator
// makes for a TestRun (grafana/k6-operator e2c9571ac480):
//  1. the runner pods' probes and isServiceReady (internal/controller/k6_start.go):
//     GET /v1/status must answer < 400;
//  2. for a PLZ run, runSetup (internal/controller/common.go, pkg/testrun/k6client.go):
//     POST /v1/setup on the first runner, then PUT /v1/setup with the raw
//     data.attributes.data to every runner;
//  3. the starter Job (pkg/resources/containers/curl_start.go): PATCH /v1/status with
//     Content-Type application/json and the start body, one runner after another;
//  4. for a PLZ run, isJobRunning (internal/controller/k6_stopped_jobs.go) reads
//     data.attributes.running from GET /v1/status, and RunTeardown POSTs /v1/teardown
//     to the first runner;
//  5. the stopper Job (curl_stop.go) PATCHes the stop body.
func TestK6OperatorSequence(t *testing.T) {
	t.Parallel()
	runners := []*runner{startRunner(t), startRunner(t), startRunner(t)}

	for _, r := range runners {
		code, _ := call(t, http.MethodGet, r.url("/v1/status"), "", "")
		require.Less(t, code, 400)
	}

	code, body := call(t, http.MethodPost, runners[0].url("/v1/setup"), "", "")
	require.Equal(t, http.StatusOK, code)
	var setup struct {
		Data struct {
			Type, ID   string
			Attributes struct {
				Data json.RawMessage `json:"data"`
			} `json:"attributes"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &setup))
	require.JSONEq(t, `{"token":"abc"}`, string(setup.Data.Attributes.Data))
	for _, r := range runners {
		code, _ := call(t, http.MethodPut, r.url("/v1/setup"), "", string(setup.Data.Attributes.Data))
		require.Equal(t, http.StatusOK, code)
		require.JSONEq(t, `{"token":"abc"}`, string(r.run.SetupData()))
	}

	for _, r := range runners {
		require.True(t, r.run.gate.Paused(), "a runner started before the starter")
		code, body := call(t, http.MethodPatch, r.url("/v1/status"), "application/json", operatorStartBody)
		require.Equal(t, http.StatusOK, code, string(body))
	}
	for i, r := range runners {
		select {
		case <-r.started:
		case <-time.After(5 * time.Second):
			t.Fatalf("runner %d was not resumed", i+1)
		}
	}

	running := func(r *runner) bool {
		code, body := call(t, http.MethodGet, r.url("/v1/status"), "", "")
		require.Less(t, code, 400)
		var st struct {
			Data struct {
				Attributes struct {
					Running bool `json:"running"`
				} `json:"attributes"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(body, &st))
		return st.Data.Attributes.Running
	}
	for _, r := range runners {
		require.True(t, running(r))
		r.run.mu.Lock()
		r.run.st.Running, r.run.st.Stage = false, StatusEnded // The scenarios ended; the runner lingers.
		r.run.mu.Unlock()
		require.False(t, running(r))
	}
	code, _ = call(t, http.MethodPost, runners[0].url("/v1/teardown"), "", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, 1, runners[0].run.teardowns)

	for _, r := range runners {
		code, body := call(t, http.MethodPatch, r.url("/v1/status"), "application/json", operatorStopBody)
		require.Equal(t, http.StatusOK, code, string(body))
		require.True(t, r.run.Status().Stopped)
	}
}

// TestK6OperatorStopWhilePaused is the stopper reaching a runner still held by
// --paused: k6 answers 200 with stopped:true and the run stays paused (k6 then exits 103).
func TestK6OperatorStopWhilePaused(t *testing.T) {
	t.Parallel()
	r := startRunner(t)
	code, body := call(t, http.MethodPatch, r.url("/v1/status"), "application/json", operatorStopBody)
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"data":{"type":"status","id":"default","attributes":{"status":4,"paused":true,"vus":0,"vus-max":2,"stopped":true,"running":false,"tainted":false}}}`, string(body))
	require.True(t, r.run.gate.Paused())
}
