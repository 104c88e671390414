package request

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTimingBoundaries: the phases of a request end where k6's metrics
// reference puts them (issue 25: sending was 4–10× k6's and receiving 1/5–1/10
// of it). sending runs until the request is written, waiting until the first
// byte of the response, receiving until the last byte of the body. A server
// that answers its head at once and its body 200 ms later gives a receiving of
// 200 ms and a small waiting; one that reads a large body slowly gives a large
// sending; one that thinks 200 ms before answering gives a large waiting.
func TestTimingBoundaries(t *testing.T) {
	t.Parallel()
	const pause = 200 * time.Millisecond
	mux := http.NewServeMux()
	mux.HandleFunc("/late-body", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "4")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		time.Sleep(pause)
		_, _ = io.WriteString(w, "body")
	})
	mux.HandleFunc("/slow-reader", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(pause) // the client's writes fill the socket buffers meanwhile
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("/think", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(pause)
		_, _ = io.WriteString(w, "ok")
	})
	// Large enough to overflow the loopback socket buffers, so that the write
	// waits for the server to read.
	big := []byte(strings.Repeat("x", 16<<20))
	for _, tc := range []struct {
		name string
		tls  bool
		h2   bool
	}{{name: "http"}, {name: "https", tls: true}, {name: "h2", tls: true, h2: true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewUnstartedServer(mux)
			srv.EnableHTTP2 = tc.h2
			opts := Options{}
			if tc.tls {
				srv.StartTLS()
				opts.TLS = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test server
			} else {
				srv.Start()
			}
			defer srv.Close()
			f := newFixture()
			c := NewClient(f.env, opts)
			defer c.Close()
			send := func(method, path string, body []byte) Timings {
				t.Helper()
				res := c.Send(context.Background(), &Request{Method: method, URL: srv.URL + path, Body: body})
				require.NoError(t, res.Err)
				require.Equal(t, http.StatusOK, res.Status)
				return res.Timings
			}
			send(http.MethodGet, "/think", nil) // connect first: the phases below are on a warm connection
			const slack = 100 * time.Millisecond

			tm := send(http.MethodGet, "/late-body", nil)
			require.GreaterOrEqual(t, tm.Receiving, pause-10*time.Millisecond, "receiving runs until the last byte of the body: %+v", tm)
			require.Less(t, tm.Waiting, slack, "waiting ends at the first byte of the head: %+v", tm)
			require.Less(t, tm.Sending, slack, "%+v", tm)

			tm = send(http.MethodPost, "/slow-reader", big)
			require.GreaterOrEqual(t, tm.Sending, pause-10*time.Millisecond, "sending runs until the body is written: %+v", tm)
			require.Less(t, tm.Receiving, slack, "%+v", tm)

			tm = send(http.MethodPost, "/think", []byte("small"))
			require.GreaterOrEqual(t, tm.Waiting, pause-10*time.Millisecond, "%+v", tm)
			require.Less(t, tm.Sending, slack, "%+v", tm)
			require.Less(t, tm.Receiving, slack, "%+v", tm)
		})
	}
}

// slowWriteConn takes delay to write, as a loaded kernel does.
type slowWriteConn struct {
	net.Conn
	delay time.Duration
}

func (c *slowWriteConn) Write(p []byte) (int, error) {
	time.Sleep(c.delay)
	return c.Conn.Write(p)
}

// TestSendingEndsWhenTheRequestIsBuffered: k6's sending ends at net/http's
// WroteRequest, once the request is in the connection's 4 KiB write buffer;
// the system call that puts a request that fits it on the wire comes after,
// in waiting (on loopback it is most of a small request's cost, and made
// Tidemark's sending 4–10× k6's). A larger request is sent as it is written.
func TestSendingEndsWhenTheRequestIsBuffered(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	const delay = 100 * time.Millisecond
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	c.h1.dial = func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return &slowWriteConn{Conn: conn, delay: delay}, nil
	}
	for _, tc := range []struct {
		name      string
		body      []byte
		sendingGE time.Duration // at least
		sendingLT time.Duration // less than
	}{
		{name: "a request without a body", sendingLT: delay / 2},
		{name: "a small POST", body: []byte(strings.Repeat("y", 1000)), sendingLT: delay / 2},
		{name: "a POST larger than the buffer", body: []byte(strings.Repeat("y", 8<<10)), sendingGE: delay},
	} {
		res := c.Send(context.Background(), &Request{Method: http.MethodPost, URL: srv.URL + "/", Body: tc.body})
		require.NoError(t, res.Err, tc.name)
		tm := res.Timings
		if tc.sendingLT > 0 {
			require.Less(t, tm.Sending, tc.sendingLT, "%s: %+v", tc.name, tm)
			require.GreaterOrEqual(t, tm.Waiting, delay, "%s: the write is waiting: %+v", tc.name, tm)
		} else {
			require.GreaterOrEqual(t, tm.Sending, tc.sendingGE, "%s: %+v", tc.name, tm)
		}
	}
}
