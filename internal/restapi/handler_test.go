package restapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

// recording is one exchange with k6 v1.8.1, from testdata/k6/NAME.txt: the request
// line, the request body, the status code with the content type, and the body.
type recording struct {
	method, path, reqBody string
	code                  int
	contentType, body     string
}

func readRecording(t *testing.T, name string) recording {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "k6", name+".txt"))
	require.NoError(t, err)
	parts := strings.SplitN(string(b), "\n", 4)
	require.Len(t, parts, 4, name)
	var r recording
	r.method, r.path, _ = strings.Cut(parts[0], " ")
	r.reqBody = parts[1]
	code, ct, _ := strings.Cut(parts[2], " ")
	r.code, err = strconv.Atoi(code)
	require.NoError(t, err)
	r.contentType = ct
	r.body = strings.TrimSuffix(parts[3], "\n")
	return r
}

// step is one exchange of a session, or (with do) a change of the run between two.
type step struct {
	golden string
	do     func(t *testing.T, f *fakeRun)
	after  func(t *testing.T, f *fakeRun)
}

// replay sends each recorded request to a handler over f and requires k6's response:
// the same status code, content type and body, byte for byte.
func replay(t *testing.T, f *fakeRun, steps []step) {
	t.Helper()
	h := NewHandler(f, promslog.NewNopLogger())
	for _, s := range steps {
		if s.do != nil {
			s.do(t, f)
		}
		if s.golden == "" {
			continue
		}
		exchange(t, h, s.golden)
		if s.after != nil {
			s.after(t, f)
		}
	}
}

// exchange sends the request of the recording golden to h and requires k6's
// response: the same status code, content type and body, byte for byte.
func exchange(t *testing.T, h http.Handler, golden string) {
	t.Helper()
	rec := readRecording(t, golden)
	req := httptest.NewRequest(rec.method, rec.path, strings.NewReader(rec.reqBody))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	body := strings.TrimSuffix(w.Body.String(), "\n")
	require.Equal(t, rec.code, w.Code, golden)
	require.Equal(t, rec.contentType, w.Header().Get("Content-Type"), golden)
	require.Equal(t, rec.body, body, golden)
}

// metricsOf reads the metrics of a recorded /v1/metrics or /v1/metrics/{id} response.
func metricsOf(t *testing.T, name string) []Metric {
	t.Helper()
	type doc struct {
		ID         string `json:"id"`
		Attributes struct {
			Type, Contains string
			Tainted        *bool
			Sample         map[string]float64
		} `json:"attributes"`
	}
	var one struct{ Data doc }
	var many struct{ Data []doc }
	body := []byte(readRecording(t, name).body)
	if err := json.Unmarshal(body, &many); err != nil {
		require.NoError(t, json.Unmarshal(body, &one))
		many.Data = []doc{one.Data}
	}
	out := make([]Metric, 0, len(many.Data))
	for _, d := range many.Data {
		a := d.Attributes
		out = append(out, Metric{Name: d.ID, Type: a.Type, Contains: a.Contains, Tainted: a.Tainted, Sample: a.Sample})
	}
	return out
}

func setMetrics(name string) func(*testing.T, *fakeRun) {
	return func(t *testing.T, f *fakeRun) {
		t.Helper()
		m := metricsOf(t, name)
		f.mu.Lock()
		f.metrics = m
		f.mu.Unlock()
	}
}

func start(_ *testing.T, f *fakeRun) { f.start() }

func requireResumed(t *testing.T, f *fakeRun) {
	t.Helper()
	require.False(t, f.gate.Paused())
	select {
	case <-f.gate.Done():
	default:
		t.Fatal("the --paused gate is still closed")
	}
}

func requirePaused(t *testing.T, f *fakeRun) {
	t.Helper()
	require.True(t, f.gate.Paused())
}

// TestK6SessionConstantVUs replays the session recorded from
// `k6 run --paused --address 127.0.0.1:6565` of a constant-vus script with setup,
// groups, checks and teardown: before the start, resumed by k6-operator's start body,
// running, refused pauses, and stopped with k6-operator's stop body.
func TestK6SessionConstantVUs(t *testing.T) {
	t.Parallel()
	f := newFakeRun("constant-vus", 2, 2, true)
	f.setup = func() (json.RawMessage, error) { return json.RawMessage(`{"n":1,"token":"abc"}`), nil }
	replay(t, f, []step{
		{golden: "paused_status", after: requirePaused},
		{do: setMetrics("paused_metrics"), golden: "paused_metrics"},
		{golden: "metric_vus"},
		{golden: "metric_unknown"},
		{golden: "groups"},
		{golden: "group_root"},
		{golden: "group_unknown"},
		{golden: "patch_vus_nonext"},
		{golden: "patch_vusmax_nonext"},
		{golden: "patch_badjson"},
		{golden: "patch_empty"},
		{golden: "patch_noattrs", after: requirePaused},
		{golden: "setup_get_before"},
		{golden: "status_post"},
		{golden: "status_put"},
		{golden: "unknown_path"},
		{golden: "root"},
		{golden: "metrics_post"},
		{golden: "setup_post"},
		{golden: "setup_get_after"},
		{golden: "setup_put"},
		{golden: "setup_get_afterput"},
		{golden: "setup_put_envelope"},
		{golden: "setup_put_bad"},
		{golden: "setup_put_empty"},
		{golden: "setup_put_restore", after: func(t *testing.T, f *fakeRun) {
			require.JSONEq(t, `{"token":"abc","n":1}`, string(f.SetupData()))
			requirePaused(t, f)
		}},
		{golden: "patch_stopped_false_paused_false", after: requireResumed},
		{do: start, golden: "running_status"},
		{do: setMetrics("running_metrics"), golden: "running_metrics"},
		{do: setMetrics("running_metric_http_reqs"), golden: "running_metric_http_reqs"},
		{do: setMetrics("running_metric_dur"), golden: "running_metric_dur"},
		{do: setMetrics("running_metric_checks"), golden: "running_metric_checks"},
		{do: func(_ *testing.T, f *fakeRun) { f.groups = recordedGroups() }, golden: "running_groups"},
		{golden: "patch_pause"},
		{golden: "paused_again_status"},
		{golden: "patch_resume2"},
		{golden: "patch_stopped_only_false"},
		{golden: "teardown_post", after: func(t *testing.T, f *fakeRun) { require.Equal(t, 1, f.teardowns) }},
		{golden: "teardown_get"},
		{golden: "patch_wrongtype"},
		{golden: "patch_stop", after: func(t *testing.T, f *fakeRun) { require.True(t, f.Status().Stopped) }},
	})
}

// recordedGroups is the group tree of the recorded constant-vus session.
func recordedGroups() *Group {
	return &Group{Groups: []*Group{{
		Path: "::visit homepage", Name: "visit homepage",
		Checks: []Check{{Path: "::visit homepage::is 200", Name: "is 200", Passes: 27534}},
		Groups: []*Group{{
			Path: "::visit homepage::nested", Name: "nested",
			Checks: []Check{{Path: "::visit homepage::nested::one", Name: "one", Passes: 27534}},
		}},
	}}}
}

// TestK6SessionExternallyControlled replays the session recorded from an
// externally-controlled scenario (vus 2, maxVUs 5): VU changes refused and accepted
// before and after the start, pausing and resuming a started run, and stopping it.
func TestK6SessionExternallyControlled(t *testing.T) {
	t.Parallel()
	f := newFakeRun("externally-controlled", 2, 5, true)
	replay(t, f, []step{
		{golden: "ext_status"},
		{golden: "ext_patch_vus_over"},
		{golden: "ext_patch_vusmax_lower"},
		{golden: "ext_patch_vus_neg"},
		{golden: "ext_patch_vus_ok_paused"},
		{golden: "ext_patch_vusmax_up", after: requirePaused},
		{golden: "ext_resume", after: requireResumed},
		{do: start, golden: "ext_running"},
		{golden: "ext_patch_vus_4"},
		{golden: "ext_pause"},
		{golden: "ext_paused"},
		{golden: "ext_pause_again"},
		{golden: "ext_resume2"},
		{golden: "ext_vus_and_max"},
		{golden: "ext_vus_zero"},
		{golden: "ext_stop"},
	})
}

// TestK6SessionSetupFails replays a paused run whose setup() throws: k6-operator
// aborts on the "Error executing" in the title.
func TestK6SessionSetupFails(t *testing.T) {
	t.Parallel()
	f := newFakeRun("externally-controlled", 1, 2, true)
	f.setup = func() (json.RawMessage, error) {
		return nil, errors.New("Error: boom\n\tat setup (file:///tmp/rec/bad.js:2:33(3))\n") //nolint:revive // The script's error text, as k6 shows it.
	}
	replay(t, f, []step{
		{golden: "setup_error"},
		{golden: "paused_pause_again"},
		{golden: "teardown_paused"},
		{golden: "ext_resume_notpaused_pre", after: requireResumed},
	})
}

// TestK6SessionNoSetup replays a paused run of a script without setup or teardown,
// stopped before its start.
func TestK6SessionNoSetup(t *testing.T) {
	t.Parallel()
	f := newFakeRun("per-vu-iterations", 1, 1, true)
	replay(t, f, []step{
		{golden: "nosetup_post"},
		{golden: "nosetup_teardown"},
		{golden: "nosetup_stop"},
	})
}

// TestK6SessionExternallyControlledOrder replays two sessions of the externally
// controlled script that show k6's order within one PATCH: a pause is applied before
// the VU change is validated (and stays applied when it is refused), k6-operator's
// start body resumes a paused started run, a resume of a running run is refused, and
// stopped:true is applied alone.
func TestK6SessionExternallyControlledOrder(t *testing.T) {
	t.Parallel()
	t.Run("second", func(t *testing.T) {
		t.Parallel()
		replay(t, newFakeRun("externally-controlled", 2, 5, true), []step{
			{golden: "ext2_resume", after: requireResumed},
			{do: start, golden: "ext_resume_notpaused"},
			{golden: "ext_pause_and_vus"},
			{golden: "ext_operator_start"},
			{golden: "ext_stop2"},
		})
	})
	t.Run("third", func(t *testing.T) {
		t.Parallel()
		replay(t, newFakeRun("externally-controlled", 2, 5, true), []step{
			{golden: "ext3_status"},
			{do: func(t *testing.T, f *fakeRun) {
				t.Helper()
				require.NoError(t, f.SetStatus(t.Context(), StatusUpdate{Paused: new(false)}))
				f.start()
			}, golden: "ext3_pause_and_vus"},
			{golden: "ext3_after_pause_and_vus"},
			{golden: "ext3_resume_and_badvus"},
			{golden: "ext3_after_resume_and_badvus"},
			{golden: "ext3_stop_and_vus"},
		})
	})
}

// TestK6SessionOperatorStopWhilePaused replays k6-operator's stop body reaching a run
// still held by --paused: stopped, still paused (k6 then exits 103).
func TestK6SessionOperatorStopWhilePaused(t *testing.T) {
	t.Parallel()
	f := newFakeRun("per-vu-iterations", 1, 1, true)
	replay(t, f, []step{{golden: "operator_stop_paused", after: requirePaused}})
}
