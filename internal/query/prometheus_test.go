package query

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/timeline"
)

func TestPrometheusAdapter(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		w.Header().Set("Content-Type", "application/json")
		switch q := r.Form.Get("query"); {
		case q == "bad(":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status":"error","errorType":"bad_data","error":"parse error"}`))
		case r.URL.Path == "/api/v1/query_range":
			_, _ = w.Write([]byte(`{"status":"success","warnings":["w1"],"infos":["i1"],"data":{"resultType":"matrix","result":[{"metric":{"pod":"a"},"values":[[1700000000,"1"],[1700000015,"2"]]}]}}`))
		default:
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"b"},"value":[1700000000,"3"]}]}}`))
		}
	}))
	defer srv.Close()
	q, err := NewPrometheus(srv.URL, nil)
	require.NoError(t, err)
	cat, err := Default()
	require.NoError(t, err)
	r := NewRunner(q, cat, promslog.NewNopLogger())
	ctx := context.Background()

	res, err := r.Range(ctx, "vus", Vars{TestID: "x"}, timeline.Window{From: time.Unix(1700000000, 0), To: time.Unix(1700000015, 0)}, 15*time.Second)
	require.NoError(t, err)
	require.Equal(t, []string{"w1", "info: i1"}, res.Warnings)
	require.Len(t, res.Set, 1)
	require.Equal(t, "a", res.Set[0].Label("pod"))
	require.Equal(t, []timeline.Point{{T: time.Unix(1700000000, 0).UTC(), V: 1}, {T: time.Unix(1700000015, 0).UTC(), V: 2}}, res.Set[0].Points)

	inst, err := r.InstantExpr(ctx, "x", "up", time.Unix(1700000000, 0))
	require.NoError(t, err)
	require.InDelta(t, 3, inst.Set[0].Points[0].V, 0)

	_, err = r.InstantExpr(ctx, "broken", "bad(", time.Unix(1700000000, 0))
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrUnavailable, "a bad expression is not an outage")
	var qe *Error
	require.ErrorAs(t, err, &qe)
	require.Equal(t, "bad(", qe.Expr)
	var apiErr *v1.Error
	require.ErrorAs(t, err, &apiErr)

	srv.Close()
	_, err = r.InstantExpr(ctx, "x", "up", time.Unix(1700000000, 0))
	require.ErrorIs(t, err, ErrUnavailable)
	require.NotErrorIs(t, err, context.Canceled)
}

func TestMeasureInterval(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		require.Equal(t, `{__name__=~"kube_horizontalpodautoscaler_status_current_replicas|kube_hpa_status_current_replicas", job="kube-state-metrics", namespace=~".+" }[10m]`, r.Form.Get("query"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1000,"1"],[1030,"1"],[1060,"1"],[1120,"1"]]}]}}`))
	}))
	defer srv.Close()
	q, err := NewPrometheus(srv.URL, nil)
	require.NoError(t, err)
	cat, err := Default()
	require.NoError(t, err)
	r := NewRunner(q, cat, promslog.NewNopLogger())
	d, err := r.MeasureInterval(context.Background(), "ksm", Vars{}, time.Unix(1120, 0), 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, 30*time.Second, d)
	c, err := r.MeasureCadence(context.Background(), "ksm", Vars{}, time.Unix(1120, 0), 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, Cadence{Interval: 30 * time.Second, Last: time.Unix(1120, 0).UTC()}, c)
}

// TestMeasureIntervalWithoutHPA: kube-state-metrics of a cluster without an HPA has no
// probe series; its interval is measured on the source's other metrics (its Deployments),
// not assumed.
func TestMeasureIntervalWithoutHPA(t *testing.T) {
	t.Parallel()
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		asked = append(asked, r.Form.Get("query"))
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.Form.Get("query"), "kube_deployment_spec_replicas") {
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1000,"1"],[1005,"1"],[1010,"1"],[1015,"1"]]}]}}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	}))
	defer srv.Close()
	q, err := NewPrometheus(srv.URL, nil)
	require.NoError(t, err)
	cat, err := Default()
	require.NoError(t, err)
	c, err := NewRunner(q, cat, promslog.NewNopLogger()).MeasureCadence(context.Background(), "ksm", Vars{}, time.Unix(1015, 0), 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, Cadence{Interval: 5 * time.Second, Last: time.Unix(1015, 0).UTC()}, c)
	require.Len(t, asked, 2)
	require.Equal(t, `{__name__=~"kube_horizontalpodautoscaler_status_current_replicas|kube_hpa_status_current_replicas|kube_deployment_spec_replicas|kube_pod_owner", job="kube-state-metrics", namespace=~".+"}[10m]`, asked[1])
}

// A server that never answers fails the query after the timeout, as an outage.
func TestPrometheusTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	q, err := NewPrometheus(srv.URL, nil, WithTimeout(100*time.Millisecond))
	require.NoError(t, err)
	start := time.Now()
	_, _, err = q.Query(context.Background(), "up", time.Unix(1700000000, 0))
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 5*time.Second)
}
