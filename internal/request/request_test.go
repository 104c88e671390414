package request

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

type collector struct {
	mu      sync.Mutex
	samples []metrics.Sample
	pushes  int
}

func (c *collector) Push(ss []metrics.Sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples = append(c.samples, ss...)
	c.pushes++
}

func (c *collector) of(m *metrics.Metric) []metrics.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []metrics.Sample
	for _, s := range c.samples {
		if s.Metric == m {
			out = append(out, s)
		}
	}
	return out
}

func tag(s metrics.Sample, k string) string {
	v, _ := s.Tags.Get(k)
	return v
}

func tmpl(t *testing.T, s string) *scenario.Template {
	t.Helper()
	tp, err := scenario.ParseTemplate(s)
	require.NoError(t, err)
	return tp
}

type fixture struct {
	env  *Env
	col  *collector
	pool *metrics.TagPool
}

func newFixture() *fixture {
	col := &collector{}
	pool := metrics.NewTagPool()
	return &fixture{col: col, pool: pool, env: &Env{Pusher: col, Metrics: metrics.RegisterBuiltin(metrics.NewRegistry()), Pool: pool, UserAgent: "tidemark-test"}}
}

func (f *fixture) compile(t *testing.T, st *scenario.Step) *Step {
	t.Helper()
	c, err := Compile(st, []metrics.Tag{{Key: "scenario", Value: "sc"}, {Key: "testid", Value: "t1"}}, f.pool, f.env.UserAgent)
	require.NoError(t, err)
	return c
}

// countingListener counts the bytes the server reads and writes.
type countingListener struct {
	net.Listener
	in, out atomic.Int64
}

type serverConn struct {
	net.Conn
	l *countingListener
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &serverConn{Conn: c, l: l}, nil
}

func (c *serverConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.in.Add(int64(n))
	return n, err
}

func (c *serverConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.l.out.Add(int64(n))
	return n, err
}

func testHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Kind", "ok")
		fmt.Fprint(w, `{"data":{"items":[{"id":42,"name":"a"}],"ok":true}}`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(60 * time.Millisecond):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "slow")
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "boom", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	return mux
}

func TestDoSamplesTagsAndTimings(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(testHandler())
	defer srv.Close()
	f := newFixture()
	st := f.compile(t, &scenario.Step{URL: tmpl(t, srv.URL+"/slow"), Tags: map[string]string{"team": "x"}})
	c := NewClient(f.env, Options{})
	defer c.Close()

	out := c.Do(context.Background(), st, &scenario.Vars{})
	require.NoError(t, out.Err)
	require.Equal(t, 200, out.Status)
	require.Equal(t, 1, f.col.pushes, "one Push per request step")

	m := f.env.Metrics
	reqs := f.col.of(m.HTTPReqs)
	require.Len(t, reqs, 1)
	s := reqs[0]
	require.Equal(t, map[string]string{
		"scenario": "sc", "testid": "t1", "method": "GET", "url": srv.URL + "/slow", "name": srv.URL + "/slow",
		"status": "200", "proto": "HTTP/1.1", "expected_response": "true", "team": "x",
	}, tagMap(s.Tags))
	for _, mm := range []*metrics.Metric{m.HTTPReqFailed, m.HTTPReqDuration, m.HTTPReqBlocked, m.HTTPReqConnecting, m.HTTPReqTLSHandshaking, m.HTTPReqSending, m.HTTPReqWaiting, m.HTTPReqReceiving} {
		ss := f.col.of(mm)
		require.Len(t, ss, 1, mm.Name)
		require.Same(t, s.Tags, ss[0].Tags, "all samples of a request share one interned tag set")
	}
	require.Zero(t, f.col.of(m.HTTPReqFailed)[0].Value)
	waiting := f.col.of(m.HTTPReqWaiting)[0].Value
	require.GreaterOrEqual(t, waiting, 0.060)
	sum := f.col.of(m.HTTPReqSending)[0].Value + waiting + f.col.of(m.HTTPReqReceiving)[0].Value
	require.InDelta(t, sum, f.col.of(m.HTTPReqDuration)[0].Value, 1e-9, "duration = sending + waiting + receiving")
	require.Positive(t, f.col.of(m.HTTPReqConnecting)[0].Value, "a new connection")
	require.GreaterOrEqual(t, f.col.of(m.HTTPReqBlocked)[0].Value, f.col.of(m.HTTPReqConnecting)[0].Value, "blocked covers dialing")

	// The second request reuses the VU's keep-alive connection.
	c.Do(context.Background(), st, &scenario.Vars{})
	require.Zero(t, f.col.of(m.HTTPReqConnecting)[1].Value)
	require.Len(t, f.col.of(m.HTTPReqs), 2)
	require.Same(t, reqs[0].Tags, f.col.of(m.HTTPReqs)[1].Tags)
}

func tagMap(ts *metrics.TagSet) map[string]string {
	out := map[string]string{}
	for _, t := range ts.Tags() {
		out[t.Key] = t.Value
	}
	return out
}

func TestDoBytesOnTheWire(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(testHandler())
	cl := &countingListener{Listener: srv.Listener}
	srv.Listener = cl
	srv.Start()
	f := newFixture()
	st := f.compile(t, &scenario.Step{Method: "POST", URL: tmpl(t, srv.URL+"/ok"), Body: tmpl(t, strings.Repeat("x", 1000))})
	c := NewClient(f.env, Options{})
	for range 5 {
		require.NoError(t, c.Do(context.Background(), st, &scenario.Vars{}).Err)
	}
	sent, recv := c.TakeBytes()
	c.Close()
	srv.Close() // waits for the server side of the connection to finish
	require.Greater(t, sent, int64(5000))
	require.Equal(t, cl.in.Load(), sent, "bytes the server read")
	require.Equal(t, cl.out.Load(), recv, "bytes the server wrote")
	s2, r2 := c.TakeBytes()
	require.Zero(t, s2)
	require.Zero(t, r2)
}

func TestDoErrorsAndStatuses(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(testHandler())
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := ln.Addr().String()
	ln.Close()

	for _, tc := range []struct {
		name     string
		step     scenario.Step
		status   int
		tags     map[string]string
		failed   float64
		requests int
	}{
		{
			name:   "5xx is unexpected with error_code 1000+status",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/fail")},
			status: 503, failed: 1, requests: 1,
			tags: map[string]string{"status": "503", "error_code": "1503", "expected_response": "false", "proto": "HTTP/1.1"},
		},
		{
			name:   "expected statuses are configurable",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/fail"), Expected: []scenario.StatusRange{{Min: 503, Max: 503}}},
			status: 503, failed: 0, requests: 1,
			tags: map[string]string{"status": "503", "error_code": "1503", "expected_response": "true", "proto": "HTTP/1.1"},
		},
		{
			name:   "connection refused is status 0 with 1212",
			step:   scenario.Step{URL: tmpl(t, "http://"+closedAddr+"/")},
			status: 0, failed: 1, requests: 1,
			tags: map[string]string{"status": "0", "error_code": "1212", "error": "dial: connection refused", "expected_response": "false"},
		},
		{
			name:   "timeout is 1050",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/slow"), Timeout: 10 * time.Millisecond},
			status: 0, failed: 1, requests: 1,
			tags: map[string]string{"status": "0", "error_code": "1050", "error": "request timeout", "expected_response": "false"},
		},
		{
			name:   "name replaces the url tag",
			step:   scenario.Step{Name: "items", URL: tmpl(t, srv.URL+"/ok?id=${__VU}")},
			status: 200, requests: 1,
			tags: map[string]string{"status": "200", "url": "items", "name": "items", "expected_response": "true", "proto": "HTTP/1.1"},
		},
		{
			name:   "each redirect hop is a request",
			step:   scenario.Step{Name: "r", URL: tmpl(t, srv.URL+"/redirect"), Redirects: scenario.DefaultMaxRedirects},
			status: 200, requests: 2,
			tags: map[string]string{"status": "200", "url": "r", "name": "r", "expected_response": "true", "proto": "HTTP/1.1"},
		},
		{
			name:   "redirects 0 follows none (k6 maxRedirects: 0)",
			step:   scenario.Step{Name: "r0", URL: tmpl(t, srv.URL+"/redirect")},
			status: 302, requests: 1,
			tags: map[string]string{"status": "302", "url": "r0", "name": "r0", "expected_response": "true", "proto": "HTTP/1.1"},
		},
		{
			name:   "redirects stop at the limit",
			step:   scenario.Step{Name: "loop", URL: tmpl(t, srv.URL+"/loop"), Redirects: 3},
			status: 302, requests: 4,
			tags: map[string]string{"status": "302", "url": "loop", "name": "loop", "expected_response": "true", "proto": "HTTP/1.1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			st := f.compile(t, &tc.step)
			c := NewClient(f.env, Options{})
			defer c.Close()
			out := c.Do(context.Background(), st, &scenario.Vars{VU: 3})
			require.Equal(t, tc.status, out.Status)
			reqs := f.col.of(f.env.Metrics.HTTPReqs)
			require.Len(t, reqs, tc.requests)
			last := reqs[len(reqs)-1]
			got := tagMap(last.Tags)
			delete(got, "scenario")
			delete(got, "testid")
			delete(got, "method")
			if tc.step.Name == "" {
				delete(got, "url")
				delete(got, "name")
			}
			require.Equal(t, tc.tags, got)
			fails := f.col.of(f.env.Metrics.HTTPReqFailed)
			require.InDelta(t, tc.failed, fails[len(fails)-1].Value, 0)
		})
	}
}

// parseStep returns the step of a one-step flow at url with checks (a YAML list),
// through the scenario parser, as a run gets it.
func parseStep(t *testing.T, url, checks string) *scenario.Step {
	t.Helper()
	tst, err := scenario.Parse("t.yaml", []byte("flow:\n  - url: "+url+"\n    group: api\n    checks: "+checks+"\n"))
	require.NoError(t, err)
	return &tst.Scenarios[0].Flow.Steps[0]
}

func TestChecks(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Kind", "ok")
		fmt.Fprint(w, `{"id": 42, "code": "42", "data": {"items": [{"id": 1}, {"id": 42, "name": "a"}], "ok": true}}`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "id: 42") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close) // the parallel subtests run after TestChecks returns
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close()
	for _, tc := range []struct {
		name   string
		url    string
		checks string
		want   map[string]float64
	}{
		{
			name: "json", url: srv.URL + "/json",
			checks: `[{status: 200}, {status: 201}, {bodyContains: '"items"'}, {bodyContains: nope},
				{bodyRegex: '"id":\s*\d+'}, {header: x-kind, equals: ok}, {header: X-Kind}, {header: X-Nope}]`,
			want: map[string]float64{
				"status is 200": 1, "status is 201": 0, `body contains "items"`: 1, "body contains nope": 0,
				`body matches /"id":\s*\d+/`: 1, "header x-kind is ok": 1, "header X-Kind is present": 1, "header X-Nope is present": 0,
			},
		},
		{
			// Issue 11: a present field passed no check without equals, and 42 equalled "42".
			name: "json present field without equals", url: srv.URL + "/json",
			checks: `[{jsonPath: id}, {jsonPath: code}, {jsonPath: data.items}, {jsonPath: nope}, {jsonPath: data.nope.id}]`,
			want: map[string]float64{
				"id is present": 1, "code is present": 1, "data.items is present": 1, "nope is present": 0, "data.nope.id is present": 0,
			},
		},
		{
			name: "json number and string", url: srv.URL + "/json",
			checks: `[{jsonPath: id, equals: 42}, {jsonPath: code, equals: 42}, {jsonPath: id, equals: "42"}, {jsonPath: code, equals: "42"}]`,
			want:   map[string]float64{"id is 42": 1, "code is 42": 0, `id is "42"`: 0, `code is "42"`: 1},
		},
		{
			name: "json nested path and array index", url: srv.URL + "/json",
			checks: `[{jsonPath: data.ok, equals: true}, {jsonPath: 'data.items[1].name', equals: a}, {jsonPath: 'data.items[0].id', equals: 42},
				{jsonPath: 'data.items[2].id'}, {jsonPath: 'data.items[1]', equals: {name: a, id: 42}}]`,
			want: map[string]float64{
				"data.ok is true": 1, `data.items[1].name is "a"`: 1, "data.items[0].id is 42": 0,
				"data.items[2].id is present": 0, `data.items[1] is {"name":"a","id":42}`: 1,
			},
		},
		{
			name: "not json", url: srv.URL + "/text",
			checks: `[{jsonPath: id}, {jsonPath: id, equals: 42}, {bodyContains: 'id: 42'}]`,
			want:   map[string]float64{"id is present": 0, "id is 42": 0, "body contains id: 42": 1},
		},
		{
			name: "transport error", url: refused.URL + "/json",
			checks: `[{status: 200}, {name: empty, bodyContains: ''}, {jsonPath: id}, {name: any, bodyRegex: ''}]`,
			want:   map[string]float64{"status is 200": 0, "empty": 0, "id is present": 0, "any": 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			st := f.compile(t, parseStep(t, tc.url, tc.checks))
			c := NewClient(f.env, Options{})
			defer c.Close()
			out := c.Do(context.Background(), st, &scenario.Vars{})
			got := map[string]float64{}
			for _, s := range f.col.of(f.env.Metrics.Checks) {
				got[tag(s, "check")] = s.Value
				require.Equal(t, "::api", tag(s, "group"))
				require.Equal(t, "sc", tag(s, "scenario"))
				require.Empty(t, tag(s, "status"), "checks carry no request tags")
			}
			require.Equal(t, tc.want, got)
			failed := 0
			for _, v := range tc.want {
				if v == 0 {
					failed++
				}
			}
			require.Equal(t, failed, out.ChecksFailed)
			require.Equal(t, "::api", tag(f.col.of(f.env.Metrics.HTTPReqs)[0], "group"))
		})
	}
}

func TestTLSAndHTTP2(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(testHandler())
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()

	f := newFixture()
	st := f.compile(t, &scenario.Step{URL: tmpl(t, srv.URL+"/ok")})
	c := NewClient(f.env, Options{TLS: &tls.Config{InsecureSkipVerify: true}}) //nolint:gosec // test server
	defer c.Close()
	out := c.Do(context.Background(), st, &scenario.Vars{})
	require.NoError(t, out.Err)
	s := f.col.of(f.env.Metrics.HTTPReqs)[0]
	require.Equal(t, "HTTP/2.0", tag(s, "proto"))
	require.Equal(t, "tls1.3", tag(s, "tls_version"))
	require.Positive(t, f.col.of(f.env.Metrics.HTTPReqTLSHandshaking)[0].Value)

	// Without trusting the test CA: status 0, 1310.
	f2 := newFixture()
	st2 := f2.compile(t, &scenario.Step{URL: tmpl(t, srv.URL+"/ok")})
	c2 := NewClient(f2.env, Options{})
	defer c2.Close()
	out = c2.Do(context.Background(), st2, &scenario.Vars{})
	require.Error(t, out.Err)
	s = f2.col.of(f2.env.Metrics.HTTPReqs)[0]
	require.Equal(t, "1310", tag(s, "error_code"))
	require.Equal(t, "0", tag(s, "status"))
}

func TestCompileRejectsBadURL(t *testing.T) {
	t.Parallel()
	f := newFixture()
	_, err := Compile(&scenario.Step{Name: "x", URL: tmpl(t, "ftp://h/")}, nil, f.pool, "")
	require.EqualError(t, err, `compile step "x": invalid url "ftp://h/": expected http(s)://host/path`)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		code int
	}{
		{err: context.DeadlineExceeded, code: CodeTimeout},
		{err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, code: CodeDNSNoIP},
		{err: &net.DNSError{Err: "server misbehaving", Name: "x"}, code: CodeDNS},
		{err: fmt.Errorf("x: %w", &net.OpError{Op: "read", Err: fmt.Errorf("boom")}), code: CodeTCP},
		{err: fmt.Errorf("unsupported protocol scheme \"\""), code: CodeInvalidURL},
		{err: fmt.Errorf("weird"), code: CodeGeneric},
	} {
		code, msg := Classify(tc.err)
		require.Equal(t, tc.code, code, tc.err.Error())
		require.NotEmpty(t, msg)
	}
	require.Equal(t, 1404, StatusCode(404))
	require.Zero(t, StatusCode(302))
}

func TestNamedDynamicURLsShareOneTagSet(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(testHandler())
	defer srv.Close()
	f := newFixture()
	st := f.compile(t, &scenario.Step{Name: "ok", URL: tmpl(t, srv.URL+"/ok?i=${__ITER}")})
	c := NewClient(f.env, Options{})
	defer c.Close()
	for i := range int64(20) {
		c.Do(context.Background(), st, &scenario.Vars{Iter: i})
	}
	require.Len(t, c.tags, 1, "the tag cache does not grow with distinct URLs")
	reqs := f.col.of(f.env.Metrics.HTTPReqs)
	require.Len(t, reqs, 20)
	require.Same(t, reqs[0].Tags, reqs[19].Tags)
}
