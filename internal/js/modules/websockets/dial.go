package websockets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gws "github.com/gorilla/websocket"
	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/request"
)

// wsMetrics are k6's WebSocket metrics, registered in the run's registry.
type wsMetrics struct {
	connecting, sessionDuration, sessions, msgsSent, msgsReceived, ping *metrics.Metric
}

// registerMetrics registers the ws_* metrics in vu's registry (in the init context,
// so that thresholds may name them).
func registerMetrics(vu modules.VU) (*wsMetrics, error) {
	m := &wsMetrics{}
	if err := modules.RegisterMetrics(vu.Registry(),
		modules.MetricSpec{Dst: &m.connecting, Name: "ws_connecting", Type: metrics.Trend, Value: metrics.Time},
		modules.MetricSpec{Dst: &m.sessionDuration, Name: "ws_session_duration", Type: metrics.Trend, Value: metrics.Time},
		modules.MetricSpec{Dst: &m.sessions, Name: "ws_sessions", Type: metrics.Counter, Value: metrics.Default},
		modules.MetricSpec{Dst: &m.msgsSent, Name: "ws_msgs_sent", Type: metrics.Counter, Value: metrics.Default},
		modules.MetricSpec{Dst: &m.msgsReceived, Name: "ws_msgs_received", Type: metrics.Counter, Value: metrics.Default},
		modules.MetricSpec{Dst: &m.ping, Name: "ws_ping", Type: metrics.Trend, Value: metrics.Time},
	); err != nil {
		return nil, err
	}
	return m, nil
}

// params are a connection's Params: headers, tags, compression and jar.
type params struct {
	header      http.Header
	tags        []metrics.Tag
	compression bool
	jar         *sobek.Object // a k6/http CookieJar, read through its methods
	protocols   []string
}

// parseParams reads a Params object (null and undefined are none).
func parseParams(rt *sobek.Runtime, v sobek.Value) (*params, error) {
	p := &params{header: http.Header{}}
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return p, nil
	}
	o := v.ToObject(rt)
	if h := o.Get("headers"); h != nil && !sobek.IsUndefined(h) && !sobek.IsNull(h) {
		ho := h.ToObject(rt)
		for _, k := range ho.Keys() {
			p.header.Set(k, ho.Get(k).String())
		}
	}
	if t := o.Get("tags"); t != nil && !sobek.IsUndefined(t) && !sobek.IsNull(t) {
		to := t.ToObject(rt)
		for _, k := range to.Keys() {
			p.tags = append(p.tags, metrics.Tag{Key: k, Value: to.Get(k).String()})
		}
	}
	if c := o.Get("compression"); c != nil && !sobek.IsUndefined(c) && !sobek.IsNull(c) {
		switch s := strings.TrimSpace(c.String()); s {
		case "":
		case "deflate":
			p.compression = true
		default:
			return nil, fmt.Errorf("params.compression: unsupported compression algorithm %q; expected deflate", s)
		}
	}
	if j := o.Get("jar"); j != nil && !sobek.IsUndefined(j) && !sobek.IsNull(j) {
		jo, ok := j.(*sobek.Object)
		if !ok {
			return nil, errors.New("params.jar: expected a CookieJar of k6/http")
		}
		if _, ok := sobek.AssertFunction(jo.Get("cookiesForURL")); !ok {
			return nil, errors.New("params.jar: expected a CookieJar of k6/http")
		}
		p.jar = jo
	}
	return p, nil
}

// cookies adds the jar's cookies for u to the handshake's Cookie header.
func (p *params) cookies(rt *sobek.Runtime, u *url.URL) error {
	if p.jar == nil {
		return nil
	}
	hu := *u
	hu.Scheme = strings.Replace(strings.Replace(hu.Scheme, "wss", "https", 1), "ws", "http", 1)
	fn, _ := sobek.AssertFunction(p.jar.Get("cookiesForURL"))
	v, err := fn(p.jar, rt.ToValue(hu.String()))
	if err != nil {
		return fmt.Errorf("params.jar: %w", err)
	}
	o := v.ToObject(rt)
	var pairs []string
	for _, name := range o.Keys() {
		var vals []string
		if err := rt.ExportTo(o.Get(name), &vals); err != nil {
			continue
		}
		for _, val := range vals {
			pairs = append(pairs, name+"="+val)
		}
	}
	if len(pairs) > 0 {
		if old := p.header.Get("Cookie"); old != "" {
			pairs = append([]string{old}, pairs...)
		}
		p.header.Set("Cookie", strings.Join(pairs, "; "))
	}
	return nil
}

// countingConn counts the bytes a connection moves (data_sent, data_received).
type countingConn struct {
	net.Conn
	sent, received *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.received.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.sent.Add(int64(n))
	return n, err
}

// session is what both modules keep of one connection: its conn, tags and counters.
type session struct {
	conn           *gws.Conn
	res            *http.Response
	tags           *metrics.TagSet
	env            *engine.VUEnv
	m              *wsMetrics
	start          time.Time
	sent, received atomic.Int64
}

// dialResult is a dial's outcome: a session, or the error and the response of a
// refused handshake.
type dialResult struct {
	s   *session
	res *http.Response
	err error
}

// dial opens a WebSocket to u with p, measuring ws_connecting. It may run on any
// goroutine: base are the VU's tags when the connection was asked for.
func dial(ctx context.Context, env *engine.VUEnv, base *metrics.TagSet, m *wsMetrics, u *url.URL, p *params) dialResult {
	s := &session{env: env, m: m}
	opts := env.HTTP
	timeout := opts.DialTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	nd := &net.Dialer{Timeout: timeout}
	d := &gws.Dialer{
		Proxy:             opts.Proxy,
		TLSClientConfig:   opts.TLS,
		HandshakeTimeout:  timeout,
		EnableCompression: p.compression,
		Subprotocols:      p.protocols,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := nd.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: c, sent: &s.sent, received: &s.received}, nil
		},
	}
	s.start = time.Now()
	conn, res, err := d.DialContext(ctx, u.String(), p.header)
	if err != nil {
		if res != nil && res.Body != nil {
			_ = res.Body.Close()
		}
		return dialResult{res: res, err: err}
	}
	s.conn, s.res = conn, res
	s.tags = sessionTags(env.Pool, base, u, p.tags, strconv.Itoa(res.StatusCode), res.Header.Get("Sec-WebSocket-Protocol"))
	end := time.Now()
	env.Pusher.Push([]metrics.Sample{
		{Metric: m.sessions, Tags: s.tags, Time: end, Value: 1},
		{Metric: m.connecting, Tags: s.tags, Time: end, Value: end.Sub(s.start).Seconds()},
	})
	return dialResult{s: s, res: res}
}

// sessionTags are the VU's tags, the params' tags, url (the name tag when the
// params set one, as k6 does), status and subproto.
func sessionTags(pool *metrics.TagPool, base *metrics.TagSet, u *url.URL, user []metrics.Tag, status, subproto string) *metrics.TagSet {
	extra := make([]metrics.Tag, 0, len(user)+3)
	urlTag := u.Redacted()
	for _, t := range user {
		if t.Key == "name" {
			urlTag = t.Value
		}
	}
	extra = append(extra, user...)
	extra = append(extra, metrics.Tag{Key: "url", Value: urlTag}, metrics.Tag{Key: "status", Value: status})
	if subproto != "" {
		extra = append(extra, metrics.Tag{Key: "subproto", Value: subproto})
	}
	return pool.With(base, extra...)
}

// count pushes one sample of metric m now.
func (s *session) count(m *metrics.Metric, v float64) {
	s.env.Pusher.Push([]metrics.Sample{{Metric: m, Tags: s.tags, Time: time.Now(), Value: v}})
}

// end pushes ws_session_duration and the session's data_sent and data_received.
func (s *session) end() {
	now := time.Now()
	b := s.env.Metrics
	s.env.Pusher.Push([]metrics.Sample{
		{Metric: s.m.sessionDuration, Tags: s.tags, Time: now, Value: now.Sub(s.start).Seconds()},
		{Metric: b.DataSent, Tags: s.tags, Time: now, Value: float64(s.sent.Load())},
		{Metric: b.DataReceived, Tags: s.tags, Time: now, Value: float64(s.received.Load())},
	})
}

// parseURL parses a ws:// or wss:// URL.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid url %q: %w", raw, err)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, fmt.Errorf("invalid url %q: the scheme must be ws or wss", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("invalid url %q: no host", raw)
	}
	return u, nil
}

// errorCode is k6's error code of a failed connection: the transport error's, or
// 1000 plus the status of a refused handshake.
func errorCode(r dialResult) int {
	if errors.Is(r.err, gws.ErrBadHandshake) && r.res != nil {
		return request.StatusCode(r.res.StatusCode)
	}
	code, _ := request.Classify(r.err)
	return code
}
