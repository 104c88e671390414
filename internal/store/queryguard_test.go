package store

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestQueryLimits sends the attacks of issue 24 to a store: a subquery of 3·10¹⁰ steps
// (stock Prometheus and the store before this guard died of "runtime: out of memory"), a
// 400 KB query (88 s and 5.8 GB to parse), a nested subquery whose span is over the
// limit, and a range query whose span widens a subquery's. Each is answered with
// Prometheus' error JSON and the store goes on answering; queries under the limits are
// answered as before.
func TestQueryLimits(t *testing.T) {
	t.Parallel()
	st := openTestStore(t, Config{MaxConcurrentQueries: 2})
	get := func(path string, q url.Values) (int, string) {
		return getBody(t, st.URL+path+"?"+q.Encode())
	}
	for _, tc := range []struct {
		name, path string
		q          url.Values
		code       int
		want       string
	}{
		{
			name: "subquery bomb", path: "/api/v1/query",
			q:    url.Values{"query": {"max_over_time(vector(1)[1y:1ms])"}},
			code: http.StatusUnprocessableEntity, want: "more than --query.max-subquery-steps=1000000",
		},
		{
			// The inner subquery spans the outer's hour plus its own: 7,200,001 steps of 1 ms.
			name: "a nested subquery spans its enclosing one", path: "/api/v1/query",
			q:    url.Values{"query": {"max_over_time(max_over_time(vector(1)[1h:1ms])[1h:1s])"}},
			code: http.StatusUnprocessableEntity, want: "would evaluate 7200001 steps",
		},
		{
			name: "a range query widens its subquery's span", path: "/api/v1/query_range",
			q:    url.Values{"query": {"max_over_time(vector(1)[1d:100ms])"}, "start": {"0"}, "end": {"200000"}, "step": {"100"}},
			code: http.StatusUnprocessableEntity, want: "would evaluate 2864001 steps",
		},
		{
			// Evaluated once over the range, not once per step: 43,261 steps, not 2.6 million.
			name: "a 30-day dashboard of a subquery", path: "/api/v1/query_range",
			q:    url.Values{"query": {"max_over_time(vector(1)[1h:1m])"}, "start": {"0"}, "end": {"2592000"}, "step": {"3600"}},
			code: http.StatusOK, want: `"status":"success"`,
		},
		{
			name: "a step-less subquery takes the evaluation interval", path: "/api/v1/query",
			q:    url.Values{"query": {"max_over_time(vector(1)[1y:])"}},
			code: http.StatusOK, want: `"status":"success"`,
		},
		{
			name: "a 400 KB query", path: "/api/v1/query",
			q:    url.Values{"query": {strings.Repeat("1+", 200_000) + "1"}},
			code: http.StatusBadRequest, want: "more than --query.max-length=65536",
		},
		{
			name: "parse_query is guarded too", path: "/api/v1/parse_query",
			q:    url.Values{"query": {strings.Repeat("1+", 200_000) + "1"}},
			code: http.StatusBadRequest, want: "more than --query.max-length",
		},
		{
			name: "a subquery under the limit", path: "/api/v1/query",
			q:    url.Values{"query": {"max_over_time(vector(1)[1d:1s])"}, "time": {"1000000"}},
			code: http.StatusOK, want: `"status":"success"`,
		},
		{
			name: "a query that does not parse gets Prometheus' error", path: "/api/v1/query",
			q:    url.Values{"query": {"sum("}},
			code: http.StatusBadRequest, want: `"errorType":"bad_data"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(tc.path, tc.q)
			require.Equal(t, tc.code, code, body)
			require.Contains(t, body, tc.want)
		})
	}
	// A POSTed query is read from the body and checked the same way.
	resp, err := http.PostForm(st.URL+"/api/v1/query", url.Values{"query": {"max_over_time(vector(1)[1y:1ms])"}})
	require.NoError(t, err)
	body := readAll(t, resp)
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, body)
	// The store is still up and answers.
	code, body := get("/api/v1/query", url.Values{"query": {"1+1"}, "time": {"1"}})
	require.Equal(t, http.StatusOK, code, body)
}

// TestQueryConcurrency: with --query.max-concurrency=1 and a timeout of 1 s, a query
// that arrives while another holds the slot waits, and is answered 503 when the slot
// stays taken past the timeout.
func TestQueryConcurrency(t *testing.T) {
	t.Parallel()
	st := openTestStore(t, Config{MaxConcurrentQueries: 1, QueryTimeout: time.Second})
	held := make(chan struct{})
	release := make(chan struct{})
	g := newQueryGuard(st.cfg, nil, st.evaluationInterval, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(held)
		<-release
		w.WriteHeader(http.StatusOK)
	}))
	var wg sync.WaitGroup
	first := httptest.NewRecorder()
	wg.Go(func() { g.ServeHTTP(first, httptest.NewRequest(http.MethodGet, "/api/v1/query", nil)) })
	<-held
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/query", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "--query.max-concurrency=1")
	close(release)
	wg.Wait()
	require.Equal(t, http.StatusOK, first.Code, "the query holding the slot is answered")
}
