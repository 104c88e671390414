package request

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/scenario"
)

// debugEntry is one JSON log entry of the debug hook.
type debugEntry struct {
	Msg       string `json:"msg"`
	Level     string `json:"level"`
	Group     string `json:"group"`
	Scenario  string `json:"scenario"`
	RequestID string `json:"request_id"`
	Source    string `json:"source"`
	VU        *int64 `json:"vu"`
	Iter      *int64 `json:"iter"`
}

// syncBuffer is a bytes.Buffer safe for a batch's concurrent entries.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) entries(t *testing.T) []debugEntry {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []debugEntry
	for line := range strings.SplitSeq(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var e debugEntry
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		out = append(out, e)
	}
	return out
}

func debugServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/final", http.StatusFound)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cr3t"})
		w.Header().Set("Date", "Tue, 01 Dec 2026 17:32:53 GMT")
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("hello\n"))
	}))
}

func debugClient(f *fixture, full bool, opts Options) (*Client, *syncBuffer) {
	buf := &syncBuffer{}
	opts.Debug = &Debug{Logger: slog.New(slog.NewJSONHandler(buf, nil)), Full: full}
	return NewClient(f.env, opts), buf
}

// TestDebugDumpsAsK6 checks the layout of k6's --http-debug (k6 v1.8.1: a
// "Request:" and a "Response:" entry at info level per request, the head as sent,
// the body only with full) and that credentials are redacted, on the plain-HTTP
// path and through a step.
func TestDebugDumpsAsK6(t *testing.T) {
	t.Parallel()
	srv := debugServer()
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		name         string
		full         bool
		wantRequest  string
		wantResponse string
	}{
		{
			name:         "headers",
			wantRequest:  "Request:\nPOST /a?x=1 HTTP/1.1\nHost: " + host + "\nUser-Agent: tidemark-test\nContent-Length: 7\nAuthorization: [REDACTED]\nContent-Type: application/json\nCookie: [REDACTED]\n\n\n",
			wantResponse: "Response:\nHTTP/1.1 200 OK\nContent-Length: 6\nContent-Type: text/plain\nDate: Tue, 01 Dec 2026 17:32:53 GMT\nSet-Cookie: [REDACTED]\n\n\n",
		},
		{
			name:         "full",
			full:         true,
			wantRequest:  "Request:\nPOST /a?x=1 HTTP/1.1\nHost: " + host + "\nUser-Agent: tidemark-test\nContent-Length: 7\nAuthorization: [REDACTED]\nContent-Type: application/json\nCookie: [REDACTED]\n\n{\"x\":1}\n",
			wantResponse: "Response:\nHTTP/1.1 200 OK\nContent-Length: 6\nContent-Type: text/plain\nDate: Tue, 01 Dec 2026 17:32:53 GMT\nSet-Cookie: [REDACTED]\n\nhello\n\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			c, buf := debugClient(f, tc.full, Options{})
			defer c.Close()
			body, err := scenario.ParseTemplate(`{"x":1}`)
			require.NoError(t, err)
			st := f.compile(t, &scenario.Step{Method: http.MethodPost, URL: tmpl(t, srv.URL+"/a?x=1"), Body: body, Headers: map[string]*scenario.Template{
				"Authorization": tmpl(t, "Bearer very-secret"), "Cookie": tmpl(t, "a=secret-cookie"), "Content-Type": tmpl(t, "application/json"),
			}})
			out := c.Do(context.Background(), st, &scenario.Vars{VU: 3, Iter: 7})
			require.NoError(t, out.Err)
			es := buf.entries(t)
			require.Len(t, es, 2, "one Request and one Response entry")
			require.Equal(t, tc.wantRequest, es[0].Msg)
			require.Equal(t, tc.wantResponse, es[1].Msg)
			for _, e := range es {
				require.Equal(t, "INFO", e.Level)
				require.Equal(t, "sc", e.Scenario)
				require.Equal(t, "http-debug", e.Source)
				require.Equal(t, int64(3), *e.VU)
				require.Equal(t, int64(7), *e.Iter)
				require.NotContains(t, e.Msg, "secret")
			}
			require.Equal(t, es[0].RequestID, es[1].RequestID, "a request and its response share the id")
			require.Len(t, es[0].RequestID, 36)
		})
	}
}

// TestDebugEveryHopOnce checks that each redirect hop and each batch request is
// logged once, over HTTPS (net/http) too, that a failed request has a Request entry
// and no Response, and that the URL's credentials are redacted.
func TestDebugEveryHopOnce(t *testing.T) {
	t.Parallel()
	srv := debugServer()
	defer srv.Close()
	tlsSrv := httptest.NewUnstartedServer(srv.Config.Handler)
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	f := newFixture()
	c, buf := debugClient(f, true, Options{TLS: &tls.Config{InsecureSkipVerify: true}}) //nolint:gosec // test server
	defer c.Close()

	res := c.Send(context.Background(), &Request{URL: strings.Replace(tlsSrv.URL, "https://", "https://user:pa55@", 1) + "/redirect", Redirects: 5})
	require.NoError(t, res.Err)
	es := buf.entries(t)
	require.Len(t, es, 4, "two hops, each a Request and a Response")
	require.True(t, strings.HasPrefix(es[0].Msg, "Request:\nGET /redirect HTTP/1.1\n"), es[0].Msg)
	require.Contains(t, es[0].Msg, "\nAuthorization: Basic [REDACTED]\n")
	require.NotContains(t, es[0].Msg, "pa55")
	require.True(t, strings.HasPrefix(es[1].Msg, "Response:\nHTTP/2.0 302 Found\n"), es[1].Msg)
	require.True(t, strings.HasPrefix(es[2].Msg, "Request:\nGET /final HTTP/1.1\n"), es[2].Msg)
	require.True(t, strings.HasSuffix(es[3].Msg, "\n\nhello\n\n"), es[3].Msg)
	require.Nil(t, es[0].VU, "a dynamic request has no step variables")

	buf.b.Reset()
	reqs := []*Request{{URL: srv.URL + "/1"}, {URL: srv.URL + "/2"}, {URL: srv.URL + "/3"}}
	for _, r := range c.Batch(context.Background(), reqs, BatchLimits{}) {
		require.NoError(t, r.Err)
	}
	es = buf.entries(t)
	require.Len(t, es, 6)
	ids := map[string]int{}
	for _, e := range es {
		ids[e.RequestID]++
	}
	require.Len(t, ids, 3)

	buf.b.Reset()
	res = c.Send(context.Background(), &Request{URL: "http://127.0.0.1:1/refused"})
	require.Error(t, res.Err)
	es = buf.entries(t)
	require.Len(t, es, 1)
	require.Equal(t, "Request:\nGET /refused HTTP/1.1\nHost: 127.0.0.1:1\nUser-Agent: tidemark-test\n\n\n", es[0].Msg)
}

// TestDebugOffLogsNothing checks that a Debug without a logger is off.
func TestDebugOffLogsNothing(t *testing.T) {
	t.Parallel()
	c := NewClient(newFixture().env, Options{Debug: &Debug{Full: true}})
	defer c.Close()
	require.Nil(t, c.opts.Debug)
	require.False(t, c.dbgBody)
}
