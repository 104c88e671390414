package restapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// apiSink keeps the REST API up for the run's lifetime; the test stops the server
// itself afterwards, as a lingering k6 runner keeps serving teardown.
type apiSink struct{}

func (apiSink) Start()      {}
func (apiSink) Stop() error { return nil }

type wiredRun struct {
	srv  *Server
	run  *Run
	done chan struct{}
	res  *loadtest.Result
	err  error
}

// startWired runs test through loadtest.Run with the REST API wired as the report
// describes: the store and the listener from an output actor, the engine and the
// --paused gate in a hook actor, a stop that cancels the run's context.
func startWired(t *testing.T, yaml, url string) *wiredRun {
	t.Helper()
	test, err := scenario.Parse("test.yaml", []byte(yaml), map[string]string{"URL": url})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	gate := NewPause(true)
	w := &wiredRun{run: NewRun(gate, cancel), done: make(chan struct{})}
	bound := make(chan *Server, 1)
	logger := promslog.NewNopLogger()
	cfg := loadtest.Config{
		Test: test, TestID: "restapi",
		Actors: []loadtest.Actor{loadtest.Outputs(func(agg *aggregate.Store, _ map[string]string) ([]loadtest.Sink, error) {
			w.run.SetStore(agg)
			srv, err := Listen("127.0.0.1:0", NewHandler(w.run, logger), logger)
			if err != nil {
				return nil, err
			}
			bound <- srv
			return []loadtest.Sink{apiSink{}}, nil
		}), loadtest.Hook{
			Started: func(_ context.Context, p *loadtest.Plan) error {
				w.run.SetEngine(p.Engine)
				if gate.Wait(ctx) == nil {
					w.run.Started(time.Now())
				}
				return nil
			},
			Ended: w.run.Ended,
		}},
	}
	go func() {
		defer close(w.done)
		w.res, w.err = loadtest.Run(ctx, cfg)
	}()
	select {
	case w.srv = <-bound:
	case <-w.done:
		t.Fatalf("the run ended before the REST API was up: %v", w.err)
	}
	t.Cleanup(func() {
		cancel()
		<-w.done
		require.NoError(t, w.srv.Stop(context.Background()))
	})
	return w
}

func (w *wiredRun) url(path string) string { return "http://" + w.srv.Addr().String() + path }

func (w *wiredRun) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
}

func status(t *testing.T, w *wiredRun) statusAttrs {
	t.Helper()
	code, body := call(t, http.MethodGet, w.url("/v1/status"), "", "")
	require.Equal(t, http.StatusOK, code)
	var doc struct {
		Data struct{ Attributes statusAttrs }
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	return doc.Data.Attributes
}

// TestWiredOperatorStart runs a real load test held by --paused and started by
// k6-operator's starter body, then reads its metrics as a lingering runner serves them.
func TestWiredOperatorStart(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	w := startWired(t, `
scenarios:
  s:
    executor: shared-iterations
    vus: 2
    iterations: 6
    flow:
      - url: ${__ENV.URL}/x
`, url)
	st := status(t, w)
	require.True(t, st.Paused)
	require.False(t, st.Running)
	require.Equal(t, StatusPausedBeforeRun, st.Status)
	time.Sleep(50 * time.Millisecond)
	select {
	case <-w.done:
		t.Fatal("the run did not wait for the resume")
	default:
	}

	code, body := call(t, http.MethodPatch, w.url("/v1/status"), "application/json", operatorStartBody)
	require.Equal(t, http.StatusOK, code, string(body))
	w.wait(t)
	require.NoError(t, w.err)

	st = status(t, w)
	require.False(t, st.Running, "k6-operator sees the runner done")
	require.False(t, st.Paused)
	code, body = call(t, http.MethodGet, w.url("/v1/metrics/http_reqs"), "", "")
	require.Equal(t, http.StatusOK, code)
	var doc struct {
		Data struct {
			Attributes struct {
				Sample map[string]float64 `json:"sample"`
			} `json:"attributes"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	require.InDelta(t, 6, doc.Data.Attributes.Sample["count"], 0)
}

// TestWiredStop stops a running load test with k6-operator's stopper body.
func TestWiredStop(t *testing.T) {
	t.Parallel()
	_, url := targettest.Start(t, target.Config{})
	w := startWired(t, `
scenarios:
  s:
    executor: constant-vus
    vus: 1
    duration: 30s
    flow:
      - url: ${__ENV.URL}/x
`, url)
	code, _ := call(t, http.MethodPatch, w.url("/v1/status"), "application/json", operatorStartBody)
	require.Equal(t, http.StatusOK, code)
	require.Eventually(t, func() bool { return status(t, w).Running }, 5*time.Second, 10*time.Millisecond)

	code, body := call(t, http.MethodPatch, w.url("/v1/status"), "application/json",
		`{"data":{"type":"status","id":"default","attributes":{"paused":true}}}`)
	require.Equal(t, http.StatusInternalServerError, code)
	require.JSONEq(t, `{"errors":[{"status":"500","title":"Pause error","detail":"constant-vus executor 's' doesn't support pause and resume operations after its start"}]}`, string(body))

	code, _ = call(t, http.MethodPatch, w.url("/v1/status"), "application/json", operatorStopBody)
	require.Equal(t, http.StatusOK, code)
	w.wait(t)
	require.ErrorIs(t, w.err, loadtest.ErrInterrupted, "the run stops (k6 exits 103; loadtest says interrupted, 105, today)")
	require.True(t, status(t, w).Stopped)
}
