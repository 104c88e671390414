package restapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

// bareRun implements only Controller: no metrics, groups, setup or teardown.
type bareRun struct {
	err  error
	last StatusUpdate
	n    int
}

func (b *bareRun) Status() Status {
	return Status{Stage: StatusRunning, Running: true, VUs: 1, VUsMax: 1}
}

func (b *bareRun) SetStatus(_ context.Context, u StatusUpdate) error {
	b.last, b.n = u, b.n+1
	return b.err
}

func TestHandlerWithoutCapabilities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, path, body string
		err                      error
		wantCode                 int
		wantBody                 string
		wantUpdate               StatusUpdate
		wantCalls                int
	}{
		{
			name: "metrics are empty", method: http.MethodGet, path: "/v1/metrics",
			wantCode: http.StatusOK, wantBody: `{"data":[]}`,
		},
		{
			name: "groups are the root", method: http.MethodGet, path: "/v1/groups",
			wantCode: http.StatusOK, wantBody: `{"data":[{"type":"groups","id":"d41d8cd98f00b204e9800998ecf8427e","attributes":{"path":"","name":"","checks":null},"relationships":{"groups":{"data":[]},"parent":{"data":null}}}]}`,
		},
		{
			name: "setup is empty", method: http.MethodPost, path: "/v1/setup",
			wantCode: http.StatusOK, wantBody: `{"data":{"type":"setupData","id":"default","attributes":{}}}`,
		},
		{
			name: "teardown does nothing", method: http.MethodPost, path: "/v1/teardown",
			wantCode: http.StatusOK,
		},
		{
			name: "a plain error of a pause is a Pause error", method: http.MethodPatch, path: "/v1/status",
			body: `{"data":{"attributes":{"paused":true}}}`, err: errors.New("engine cannot pause"),
			wantCode: http.StatusInternalServerError, wantBody: `{"errors":[{"status":"500","title":"Pause error","detail":"engine cannot pause"}]}`,
			wantUpdate: StatusUpdate{Paused: new(true)}, wantCalls: 1,
		},
		{
			name: "a plain error of a VU change", method: http.MethodPatch, path: "/v1/status",
			body: `{"data":{"attributes":{"vus":3,"vus-max":4}}}`, err: errors.New("engine cannot scale"),
			wantCode: http.StatusInternalServerError, wantBody: `{"errors":[{"status":"500","title":"Status update error","detail":"engine cannot scale"}]}`,
			wantUpdate: StatusUpdate{VUs: new(int64(3)), VUsMax: new(int64(4))}, wantCalls: 1,
		},
		{
			name: "stopped true goes alone", method: http.MethodPatch, path: "/v1/status",
			body:     `{"data":{"attributes":{"paused":true,"vus":3,"stopped":true}}}`,
			wantCode: http.StatusOK, wantBody: `{"data":{"type":"status","id":"default","attributes":{"status":7,"paused":false,"vus":1,"vus-max":1,"stopped":false,"running":true,"tainted":false}}}`,
			wantUpdate: StatusUpdate{Stopped: new(true)}, wantCalls: 1,
		},
		{
			name: "stopped false and nulls change nothing", method: http.MethodPatch, path: "/v1/status",
			body:     `{"data":{"attributes":{"paused":null,"vus":null,"stopped":false}}}`,
			wantCode: http.StatusOK, wantBody: `{"data":{"type":"status","id":"default","attributes":{"status":7,"paused":false,"vus":1,"vus-max":1,"stopped":false,"running":true,"tainted":false}}}`,
		},
		{
			name: "a fractional vus", method: http.MethodPatch, path: "/v1/status",
			body:     `{"data":{"attributes":{"vus":1.5}}}`,
			wantCode: http.StatusBadRequest, wantBody: `{"errors":[{"status":"400","title":"Invalid data","detail":"json: cannot unmarshal number into Go value of type null.Int"}]}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := &bareRun{err: tc.err}
			w := httptest.NewRecorder()
			NewHandler(run, promslog.NewNopLogger()).ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body)))
			require.Equal(t, tc.wantCode, w.Code)
			require.Equal(t, tc.wantBody, w.Body.String())
			require.Equal(t, tc.wantCalls, run.n)
			require.Equal(t, tc.wantUpdate, run.last)
		})
	}
}
