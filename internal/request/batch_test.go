package request

import (
	"context"
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
)

// concurrencyServer records the most requests it had in flight at once. A request waits
// until want of them are in flight (or every one of the host's total has arrived), so
// that a loaded machine, slow to start the client's requests, cannot make the most
// look smaller than the client allows; then it holds a moment more, so that a client
// allowing more than want is seen doing so.
type concurrencyServer struct {
	want, total int

	mu                     sync.Mutex
	inFlight, max, arrived int
}

func (s *concurrencyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inFlight++
	s.arrived++
	s.max = max(s.max, s.inFlight)
	s.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		ready := s.inFlight >= s.want || s.arrived == s.total
		s.mu.Unlock()
		if ready {
			break
		}
	}
	time.Sleep(30 * time.Millisecond)
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	fmt.Fprint(w, r.URL.Path)
}

func (s *concurrencyServer) most() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max
}

func TestBatchLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		lim     BatchLimits
		hosts   int
		perHost int // requests per host
		most    int // per host, at the server
	}{
		{name: "all at once", lim: BatchLimits{}, hosts: 1, perHost: 8, most: 8},
		{name: "batch", lim: BatchLimits{Max: 3}, hosts: 1, perHost: 8, most: 3},
		{name: "batchPerHost", lim: BatchLimits{Max: 20, PerHost: 2}, hosts: 2, perHost: 6, most: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var srvs []*concurrencyServer
			var reqs []*Request
			for range tc.hosts {
				cs := &concurrencyServer{want: tc.most, total: tc.perHost}
				srv := httptest.NewServer(cs)
				defer srv.Close()
				srvs = append(srvs, cs)
				for i := range tc.perHost {
					reqs = append(reqs, &Request{URL: fmt.Sprintf("%s/%d", srv.URL, i)})
				}
			}
			f := newFixture()
			c := NewClient(f.env, Options{})
			defer c.Close()
			res := c.Batch(context.Background(), reqs, tc.lim)
			require.Len(t, res, len(reqs))
			for i, r := range res {
				require.NoError(t, r.Err)
				require.Equal(t, reqs[i].URL, r.URL, "responses in the order of the requests")
				require.Equal(t, "/"+r.URL[strings.LastIndexByte(r.URL, '/')+1:], string(r.Body))
			}
			for _, cs := range srvs {
				require.Equal(t, tc.most, cs.most())
			}
			require.Len(t, f.col.of(f.env.Metrics.HTTPReqs), len(reqs))
			sent, recv := c.TakeBytes()
			require.Positive(t, sent, "workers count into their client's bytes")
			require.Positive(t, recv)
		})
	}
}

func TestBatchSharesTheJarAndReusesWorkers(t *testing.T) {
	t.Parallel()
	srv, _, c := serve(t, cookieHandler())
	jar := NewCookieJar()
	c.Batch(context.Background(), []*Request{{URL: srv.URL + "/set?a=1", Jar: jar}, {URL: srv.URL + "/set?b=2", Jar: jar}}, BatchLimits{Max: DefaultBatch, PerHost: DefaultBatchPerHost})
	res := c.Send(context.Background(), &Request{URL: srv.URL + "/echo", Jar: jar})
	require.Equal(t, "a=1,b=2", string(res.Body))
	require.Len(t, c.workers.all, 2)
	c.Batch(context.Background(), []*Request{{URL: srv.URL + "/echo"}}, BatchLimits{})
	require.Len(t, c.workers.all, 2, "workers stay for the next batch")
	require.Empty(t, c.Batch(context.Background(), nil, BatchLimits{}))
}

func TestBatchHostAtItsLimitDoesNotHoldOthers(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var started []string // hosts, in the order their requests arrived
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		started = append(started, r.Host)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	})
	var reqs []*Request
	var hosts []string
	for range 2 {
		srv := httptest.NewServer(h)
		defer srv.Close()
		hosts = append(hosts, strings.TrimPrefix(srv.URL, "http://"))
		for i := range 3 {
			reqs = append(reqs, &Request{URL: fmt.Sprintf("%s/%d", srv.URL, i)})
		}
	}
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	for _, r := range c.Batch(context.Background(), reqs, BatchLimits{Max: 20, PerHost: 1}) {
		require.NoError(t, r.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, started, 6)
	require.ElementsMatch(t, hosts, started[:2], "the second host's first request did not wait for the first host's three")
}

// acceptCounter counts the connections a server accepts.
type acceptCounter struct {
	net.Listener
	n atomic.Int64
}

func (l *acceptCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// TestBatchReusesTheVUConnections: a batch after a GET reuses the GET's idle
// connection to the same host, and the connections a batch opened serve the
// VU's next requests, as k6's batch shares the VU's transport (issue 25: the
// first batch after a GET opened new connections only).
func TestBatchReusesTheVUConnections(t *testing.T) {
	t.Parallel()
	// Each request waits a little, so that a batch's three overlap and
	// need three connections.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, "ok")
	}))
	ln := &acceptCounter{Listener: srv.Listener}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	f := newFixture()
	c := NewClient(f.env, Options{})
	defer c.Close()
	ctx := context.Background()
	get := func() {
		t.Helper()
		require.NoError(t, c.Send(ctx, &Request{URL: srv.URL + "/one"}).Err)
	}
	batch := func() {
		t.Helper()
		reqs := []*Request{{URL: srv.URL + "/a"}, {URL: srv.URL + "/b"}, {URL: srv.URL + "/c"}}
		for _, r := range c.Batch(ctx, reqs, BatchLimits{Max: DefaultBatch, PerHost: DefaultBatchPerHost}) {
			require.NoError(t, r.Err)
		}
	}
	get()
	require.Equal(t, int64(1), ln.n.Load())
	batch()
	require.Equal(t, int64(3), ln.n.Load(), "the batch reuses the GET's connection and opens two")
	batch()
	require.Equal(t, int64(3), ln.n.Load(), "the next batch reuses all three")
	get()
	require.Equal(t, int64(3), ln.n.Load(), "a GET after a batch reuses one of its connections")
}
