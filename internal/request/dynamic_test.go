package request

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// vuTags are the tags a VU of scenario sc gives its requests.
func (f *fixture) vuTags(extra ...metrics.Tag) *metrics.TagSet {
	return f.pool.Intern(append([]metrics.Tag{{Key: "scenario", Value: "sc"}, {Key: "testid", Value: "t1"}}, extra...))
}

// serve starts a server of h and returns it with a fixture and a VU's client,
// all closed at the end of the test.
func serve(t *testing.T, h http.Handler) (*httptest.Server, *fixture, *Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	f := newFixture()
	c := NewClient(f.env, Options{})
	t.Cleanup(c.Close)
	return srv, f, c
}

// requestSamples returns the tag maps of the http_reqs samples, and checks that
// every request has its other samples with the same tags.
func requestSamples(t *testing.T, f *fixture) []map[string]string {
	t.Helper()
	m := f.env.Metrics
	reqs := f.col.of(m.HTTPReqs)
	var out []map[string]string
	for i, s := range reqs {
		for _, mm := range []*metrics.Metric{m.HTTPReqDuration, m.HTTPReqBlocked, m.HTTPReqConnecting, m.HTTPReqTLSHandshaking, m.HTTPReqSending, m.HTTPReqWaiting, m.HTTPReqReceiving} {
			ss := f.col.of(mm)
			require.Len(t, ss, len(reqs), mm.Name)
			require.Same(t, s.Tags, ss[i].Tags, mm.Name)
		}
		out = append(out, tagMap(s.Tags))
	}
	return out
}

func TestSendMeasuresAsDo(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(testHandler())
	t.Cleanup(srv.Close) // the parallel subtests run after the test returns
	tlsSrv := httptest.NewUnstartedServer(testHandler())
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	for _, tc := range []struct {
		name   string
		step   scenario.Step
		req    Request
		status int
	}{
		{
			name:   "https and HTTP/2 through net/http",
			step:   scenario.Step{URL: tmpl(t, tlsSrv.URL+"/redirect"), Redirects: 10},
			req:    Request{URL: tlsSrv.URL + "/redirect", Redirects: 10},
			status: 200,
		},
		{
			name:   "get",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/ok")},
			req:    Request{URL: srv.URL + "/ok", Redirects: 10},
			status: 200,
		},
		{
			name:   "post with tags and a name",
			step:   scenario.Step{Method: "POST", Name: "items", URL: tmpl(t, srv.URL+"/ok?id=${__VU}"), Body: tmpl(t, "x=1"), Tags: map[string]string{"team": "a"}},
			req:    Request{Method: "POST", URL: srv.URL + "/ok?id=3", Body: []byte("x=1"), Tags: []metrics.Tag{{Key: "team", Value: "a"}, {Key: "name", Value: "items"}}},
			status: 200,
		},
		{
			name:   "status error",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/fail")},
			req:    Request{URL: srv.URL + "/fail"},
			status: 503,
		},
		{
			name:   "redirect hops",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/redirect"), Redirects: 10},
			req:    Request{URL: srv.URL + "/redirect", Redirects: 10},
			status: 200,
		},
		{
			name:   "redirect limit",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/loop"), Redirects: 2},
			req:    Request{URL: srv.URL + "/loop", Redirects: 2},
			status: 302,
		},
		{
			name:   "timeout",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/slow"), Timeout: 10 * time.Millisecond},
			req:    Request{URL: srv.URL + "/slow", Timeout: 10 * time.Millisecond},
			status: 0,
		},
		{
			name:   "expected statuses",
			step:   scenario.Step{URL: tmpl(t, srv.URL+"/fail"), Expected: []scenario.StatusRange{{Min: 503, Max: 503}}},
			req:    Request{URL: srv.URL + "/fail", Expected: []scenario.StatusRange{{Min: 503, Max: 503}}},
			status: 503,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fy, fd := newFixture(), newFixture()
			opts := Options{TLS: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // test server
			cy, cd := NewClient(fy.env, opts), NewClient(fd.env, opts)
			t.Cleanup(cy.Close)
			t.Cleanup(cd.Close)
			outY := cy.Do(context.Background(), fy.compile(t, &tc.step), &scenario.Vars{VU: 3})
			req := tc.req
			req.VUTags = fd.vuTags()
			res := cd.Send(context.Background(), &req)

			require.Equal(t, tc.status, outY.Status)
			require.Equal(t, tc.status, res.Status)
			require.Equal(t, requestSamples(t, fy), requestSamples(t, fd), "the same samples with the same tags")
			fails := func(f *fixture) (v []float64) {
				for _, s := range f.col.of(f.env.Metrics.HTTPReqFailed) {
					v = append(v, s.Value)
				}
				return v
			}
			require.Equal(t, fails(fy), fails(fd))
			require.Equal(t, 1, fd.col.pushes, "one Push per request")
			if outY.Err != nil {
				require.Error(t, res.Err)
				code, msg := Classify(outY.Err)
				require.Equal(t, code, res.ErrorCode)
				require.Equal(t, msg, res.Error)
			}
		})
	}
}

func TestSendResponse(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		user, pass, _ := r.BasicAuth()
		w.Header().Set("content-type", "text/plain")
		w.Header().Add("x-multi", "a")
		w.Header().Add("x-multi", "b")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "%s %s ua=%s auth=%s:%s body=%s", r.Method, r.URL.RequestURI(), r.UserAgent(), user, pass, b)
	})
	mux.HandleFunc("/to-echo", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo?from=redirect", http.StatusSeeOther)
	})
	srv, f, c := serve(t, mux)
	u := strings.Replace(srv.URL, "http://", "http://ann:secret@", 1)

	res := c.Send(context.Background(), &Request{Method: "PUT", URL: u + "/echo?q=1", Body: []byte("hello"), VUTags: f.vuTags()})
	require.NoError(t, res.Err)
	require.Equal(t, 201, res.Status)
	require.Equal(t, "PUT /echo?q=1 ua=tidemark-test auth=ann:secret body=hello", string(res.Body))
	require.Equal(t, "text/plain", res.Header.Get("Content-Type"))
	require.Equal(t, []string{"a", "b"}, res.Header["X-Multi"], "canonical names")
	require.Equal(t, "HTTP/1.1", res.Proto)
	require.Zero(t, res.ErrorCode)
	require.Equal(t, u+"/echo?q=1", res.URL)
	host, port, err := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	require.Equal(t, host, res.RemoteIP)
	require.Equal(t, port, strconv.Itoa(res.RemotePort))
	require.Equal(t, "PUT", res.Request.Method)
	require.Equal(t, []byte("hello"), res.Request.Body)
	require.Equal(t, "tidemark-test", res.Request.Header.Get("User-Agent"))
	require.Positive(t, res.Timings.Duration())
	require.Equal(t, srv.URL+"/echo?q=1", tag(f.col.of(f.env.Metrics.HTTPReqs)[0], "url"), "no credentials in tags")

	// A 303 turns the POST into a GET without its body; the response is the last hop's.
	res = c.Send(context.Background(), &Request{Method: "POST", URL: srv.URL + "/to-echo", Body: []byte("form"), Redirects: 10, Header: http.Header{"User-Agent": {"mine"}}})
	require.NoError(t, res.Err)
	require.Equal(t, "GET /echo?from=redirect ua=mine auth=: body=", string(res.Body))
	require.Equal(t, srv.URL+"/echo?from=redirect", res.URL)
	require.Equal(t, "GET", res.Request.Method)
	require.Nil(t, res.Request.Body)
	reqs := f.col.of(f.env.Metrics.HTTPReqs)
	require.Len(t, reqs, 3)
	require.Equal(t, "POST", tag(reqs[1], "method"))
	require.Equal(t, "303", tag(reqs[1], "status"))
	require.Equal(t, "GET", tag(reqs[2], "method"))

	// A bad method fails before anything is sent, as one failed request.
	res = c.Send(context.Background(), &Request{Method: "GET /x", URL: srv.URL + "/echo"})
	require.Error(t, res.Err)
	require.Equal(t, CodeGeneric, res.ErrorCode)
	require.Len(t, f.col.of(f.env.Metrics.HTTPReqs), 4)
}

func TestSendResponseTypeNone(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 100<<10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) }))
	cl := &countingListener{Listener: srv.Listener}
	srv.Listener = cl
	srv.Start()
	f := newFixture()
	c := NewClient(f.env, Options{})
	res := c.Send(context.Background(), &Request{URL: srv.URL + "/", ResponseType: ResponseNone})
	require.NoError(t, res.Err)
	require.Nil(t, res.Body)
	res = c.Send(context.Background(), &Request{URL: srv.URL + "/", ResponseType: ResponseBinary})
	require.Len(t, res.Body, len(body))
	sent, recv := c.TakeBytes()
	c.Close()
	srv.Close()
	require.Equal(t, cl.in.Load(), sent)
	require.Equal(t, cl.out.Load(), recv, "a dropped body still counts")
	require.Greater(t, recv, int64(2*len(body)))
}

func TestSendUnjudged(t *testing.T) {
	t.Parallel()
	srv, f, c := serve(t, testHandler())
	res := c.Send(context.Background(), &Request{URL: srv.URL + "/fail", Unjudged: true})
	require.Equal(t, 503, res.Status)
	require.Equal(t, 1503, res.ErrorCode)
	require.Empty(t, f.col.of(f.env.Metrics.HTTPReqFailed), "no http_req_failed without a response callback")
	got := requestSamples(t, f)
	require.Len(t, got, 1)
	require.NotContains(t, got[0], "expected_response")
	require.Equal(t, "1503", got[0]["error_code"])

	// The same request judged again has its own tag set.
	c.Send(context.Background(), &Request{URL: srv.URL + "/fail"})
	got = requestSamples(t, f)
	require.Equal(t, "false", got[1]["expected_response"])
	require.Len(t, f.col.of(f.env.Metrics.HTTPReqFailed), 1)
}

func TestSendTagsDoNotLeak(t *testing.T) {
	t.Parallel()
	srv, f, c := serve(t, testHandler())
	g := f.vuTags(metrics.Tag{Key: "group", Value: "::g"})
	for _, tc := range []struct {
		req  Request
		want map[string]string
	}{
		{Request{URL: srv.URL + "/ok", VUTags: g, Tags: []metrics.Tag{{Key: "name", Value: "n1"}}}, map[string]string{"url": "n1", "name": "n1", "group": "::g"}},
		{Request{URL: srv.URL + "/ok", VUTags: g}, map[string]string{"url": srv.URL + "/ok", "name": srv.URL + "/ok", "group": "::g"}},
		{Request{URL: srv.URL + "/ok", VUTags: f.vuTags()}, map[string]string{"url": srv.URL + "/ok", "name": srv.URL + "/ok"}},
		{Request{URL: srv.URL + "/ok", VUTags: f.vuTags(), Tags: []metrics.Tag{{Key: "kind", Value: "k"}}}, map[string]string{"url": srv.URL + "/ok", "name": srv.URL + "/ok", "kind": "k"}},
		{Request{URL: srv.URL + "/ok", VUTags: g, Tags: []metrics.Tag{{Key: "name", Value: "n2"}}}, map[string]string{"url": "n2", "name": "n2", "group": "::g"}},
	} {
		c.Send(context.Background(), &tc.req)
		got := requestSamples(t, f)
		last := got[len(got)-1]
		for _, k := range []string{"scenario", "testid", "method", "status", "proto", "expected_response"} {
			delete(last, k)
		}
		require.Equal(t, tc.want, last)
	}
}

func TestSendHTTPS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(testHandler())
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	f := newFixture()
	c := NewClient(f.env, Options{TLS: &tls.Config{InsecureSkipVerify: true}}) //nolint:gosec // test server
	defer c.Close()
	res := c.Send(context.Background(), &Request{URL: srv.URL + "/redirect", Redirects: 1})
	require.NoError(t, res.Err)
	require.Equal(t, 200, res.Status)
	require.Equal(t, "HTTP/2.0", res.Proto)
	require.Equal(t, "tls1.3", res.TLSVersion)
	require.NotEmpty(t, res.TLSCipherSuite)
	require.Equal(t, "127.0.0.1", res.RemoteIP)
	require.Contains(t, string(res.Body), `"ok":true`)
	require.Len(t, f.col.of(f.env.Metrics.HTTPReqs), 2)
}

func TestParseResponseType(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"text", "binary", "none"} {
		rt, err := ParseResponseType(s)
		require.NoError(t, err)
		require.Equal(t, s, rt.String())
	}
	_, err := ParseResponseType("json")
	require.EqualError(t, err, `parse response type "json": want text, binary or none`)
}

// BenchmarkSend is BenchmarkDo's request described at run time, with the tags
// and cookie jar k6/http gives every request.
func BenchmarkSend(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	defer srv.Close()
	pool := metrics.NewTagPool()
	env := &Env{Pusher: metrics.PusherFunc(func([]metrics.Sample) {}), Metrics: metrics.RegisterBuiltin(metrics.NewRegistry()), Pool: pool}
	c := NewClient(env, Options{})
	defer c.Close()
	req := &Request{URL: srv.URL + "/", VUTags: pool.Intern([]metrics.Tag{{Key: "scenario", Value: "b"}}), Redirects: 10, Jar: NewCookieJar()}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := c.Send(ctx, req); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

func TestTagCacheIsBounded(t *testing.T) {
	t.Parallel()
	srv, f, c := serve(t, testHandler())
	for i := range maxCachedTagSets + 10 {
		res := c.Send(context.Background(), &Request{URL: srv.URL + "/ok?i=" + strconv.Itoa(i), VUTags: f.vuTags()})
		require.NoError(t, res.Err)
	}
	require.LessOrEqual(t, len(c.tags), maxCachedTagSets)
	reqs := f.col.of(f.env.Metrics.HTTPReqs)
	require.Equal(t, srv.URL+"/ok?i=5", tag(reqs[5], "url"))
	require.Equal(t, srv.URL+"/ok?i="+strconv.Itoa(maxCachedTagSets+9), tag(reqs[len(reqs)-1], "url"))
}

func TestSendDecodesBodies(t *testing.T) {
	t.Parallel()
	compress := func(coding string, b []byte) []byte {
		var buf bytes.Buffer
		var w io.WriteCloser
		switch coding {
		case "gzip":
			w = gzip.NewWriter(&buf)
		case "deflate":
			w = zlib.NewWriter(&buf)
		case "raw-deflate":
			w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
		}
		_, _ = w.Write(b)
		_ = w.Close()
		return buf.Bytes()
	}
	plain := []byte(strings.Repeat("tidemark ", 100))
	srv, f, c := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := plain
		enc := r.URL.Query().Get("enc")
		switch enc {
		case "gzip", "deflate":
			body = compress(enc, body)
		case "raw":
			body, enc = compress("raw-deflate", body), "deflate"
		case "stacked":
			body, enc = compress("gzip", compress("deflate", body)), "deflate, gzip"
		case "broken":
			body, enc = []byte("not gzip"), "gzip"
		}
		w.Header().Set("Content-Encoding", enc)
		_, _ = w.Write(body)
	}))
	for _, tc := range []struct {
		enc  string
		code int
	}{{"gzip", 0}, {"deflate", 0}, {"raw", 0}, {"stacked", 0}, {"identity", 0}, {"broken", CodeDecompression}, {"br", CodeDecompression}} {
		res := c.Send(context.Background(), &Request{URL: srv.URL + "/?enc=" + tc.enc, VUTags: f.vuTags()})
		require.Equal(t, 200, res.Status, tc.enc)
		require.Equal(t, tc.code, res.ErrorCode, tc.enc)
		if tc.code == 0 {
			require.NoError(t, res.Err, tc.enc)
			require.Equal(t, plain, res.Body, tc.enc)
		} else {
			require.Error(t, res.Err, tc.enc)
			require.Equal(t, "decompression error", res.Error)
		}
	}
	got := requestSamples(t, f)
	require.NotContains(t, got[len(got)-1], "error_code", "the samples were taken before the body was decoded")
}
