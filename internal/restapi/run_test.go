package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/scenario"
)

// fakeEngine is the engine's status: one scenario of 2 VUs, allocated at the start.
type fakeEngine struct{ started atomic.Bool }

func (e *fakeEngine) Status() []engine.ScenarioStatus {
	st := engine.ScenarioStatus{Name: "default", Executor: scenario.ConstantVUs}
	if e.started.Load() {
		st.Stats = executor.Stats{VUs: 2, VUsMax: 2}
	} else {
		st.Stats = executor.Stats{VUsMax: 2}
	}
	return []engine.ScenarioStatus{st}
}

// snapshotFunc adapts a function to Snapshotter.
type snapshotFunc func() *aggregate.Snapshot

func (f snapshotFunc) Snapshot() *aggregate.Snapshot { return f() }

func storeOf(t *testing.T) Snapshotter {
	t.Helper()
	s := snapshot(t)
	return snapshotFunc(func() *aggregate.Snapshot { return s })
}

// TestRunAgainstK6 drives Run, the Controller of a Tidemark run, through the
// constant-vus session recorded from k6: the same answers while paused, to the
// resume, while running, to refused pauses and to the stop.
func TestRunAgainstK6(t *testing.T) {
	t.Parallel()
	eng := &fakeEngine{}
	var stops atomic.Int32
	run := NewRun(NewPause(true), func() { stops.Add(1) })
	run.SetEngine(eng)
	run.SetStore(aggregate.New())
	h := NewHandler(run, promslog.NewNopLogger())
	for _, golden := range []string{
		"paused_status", "paused_metrics", "metric_vus", "metric_unknown", "groups", "group_root", "patch_vus_nonext", "patch_vusmax_nonext", "patch_badjson", "patch_empty",
		"patch_noattrs", "paused_pause_again", "setup_get_before", "nosetup_post", "nosetup_teardown",
		"status_post", "unknown_path", "root",
	} {
		exchange(t, h, golden)
	}
	require.True(t, run.gate.Paused())
	exchange(t, h, "patch_stopped_false_paused_false")
	require.NoError(t, run.gate.Wait(t.Context()), "k6-operator's start body resumes the run")

	eng.started.Store(true)
	run.Started(time.Now())
	for _, golden := range []string{"running_status", "patch_pause", "patch_resume2", "patch_stopped_only_false", "patch_vus_nonext"} {
		exchange(t, h, golden)
	}
	require.Zero(t, stops.Load())
	exchange(t, h, "patch_stop")
	exchange(t, h, "patch_stop")
	require.Equal(t, int32(1), stops.Load(), "stop is called once")

	run.Ended()
	st := run.Status()
	require.Equal(t, StatusEnded, st.Stage)
	require.False(t, st.Running, "k6-operator reads running:false once the iterations end")
}

type setupStub struct {
	data json.RawMessage
	err  error
	tore int
}

func (s *setupStub) Setup(context.Context) (json.RawMessage, error) { return s.data, s.err }
func (s *setupStub) SetupData() json.RawMessage                     { return s.data }
func (s *setupStub) SetSetupData(d json.RawMessage) error           { s.data = d; return nil }
func (s *setupStub) Teardown(context.Context) error                 { s.tore++; return s.err }

func TestRunParts(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0)
	now := t0.Add(2 * time.Second)
	stub := &setupStub{data: json.RawMessage(`{"n":1}`)}
	run := NewRun(NewPause(false), func() {},
		WithClock(func() time.Time { return now }),
		WithTainted(func() map[string]bool { return map[string]bool{"http_req_duration": true} }),
		WithSetup(stub), WithTeardown(stub))

	require.Nil(t, run.Metrics(), "no store yet")
	require.Equal(t, &Group{}, run.Groups())
	run.SetStore(storeOf(t))
	run.Started(t0)
	var reqs Metric
	for _, m := range run.Metrics() {
		if m.Name == "http_reqs" {
			reqs = m
		}
	}
	require.Equal(t, map[string]float64{"count": 3, "rate": 1.5}, reqs.Sample)
	run.Ended() // At t0+2s: the rate stays per second of the run.
	now = t0.Add(time.Hour)
	for _, m := range run.Metrics() {
		if m.Name == "http_reqs" {
			require.InDelta(t, 1.5, m.Sample["rate"], 1e-9)
		}
	}
	require.Len(t, run.Groups().Groups, 1)
	require.True(t, run.Status().Tainted)

	data, err := run.Setup(t.Context())
	require.NoError(t, err)
	require.JSONEq(t, `{"n":1}`, string(data))
	require.NoError(t, run.SetSetupData(json.RawMessage(`{"n":2}`)))
	require.JSONEq(t, `{"n":2}`, string(run.SetupData()))
	require.NoError(t, run.Teardown(t.Context()))
	require.Equal(t, 1, stub.tore)

	bare := NewRun(NewPause(false), func() {})
	data, err = bare.Setup(t.Context())
	require.NoError(t, err)
	require.Nil(t, data)
	require.NoError(t, bare.SetSetupData(json.RawMessage(`1`)))
	require.Nil(t, bare.SetupData())
	require.NoError(t, bare.Teardown(t.Context()))
	stub.err = errors.New("boom")
	require.Error(t, run.Teardown(t.Context()))
}

// TestRunVUChangeWaitsForEngine: a VU change that arrives while the run is still
// being prepared (the API is up before the engine) is answered once the engine is
// there, not refused as if the run were not externally controlled; a request that
// gives up first gets its context's error.
func TestRunVUChangeWaitsForEngine(t *testing.T) {
	t.Parallel()
	run := NewRun(NewPause(true), func() {})
	vus := int64(3)
	answered := make(chan error, 1)
	go func() { answered <- run.SetStatus(t.Context(), StatusUpdate{VUs: &vus}) }()
	select {
	case err := <-answered:
		t.Fatalf("answered before the engine was set: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	run.SetEngine(&fakeEngine{})
	select {
	case err := <-answered:
		// fakeEngine has no Controls: k6's answer for a constant-vus run.
		require.ErrorIs(t, err, ErrNotExternallyControlled)
	case <-time.After(5 * time.Second):
		t.Fatal("the VU change still waits after SetEngine")
	}

	early := NewRun(NewPause(true), func() {})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.ErrorIs(t, early.SetStatus(ctx, StatusUpdate{VUs: &vus}), context.Canceled)
	early.Ended()
	require.ErrorIs(t, early.SetStatus(t.Context(), StatusUpdate{VUs: &vus}), ErrNotExternallyControlled, "a run that ended unprepared answers at once")
}
