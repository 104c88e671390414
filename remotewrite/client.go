package remotewrite

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/version"
	"github.com/prometheus/sigv4"

	"github.com/tidemark/tidemark/internal/series"
)

// Client pushes the series of one run to a remote-write receiver.
type Client struct {
	cfg    Config
	src    series.Snapshotter
	mapper *series.Mapper
	logger *slog.Logger
	http   *http.Client
	url    string
	ua     string
	now    func() time.Time
	m      *selfMetrics
	enc    encoder

	mu      sync.Mutex
	stats   Stats
	started bool
	stopped bool

	// Owned by the push goroutine (or by Stop once it has exited).
	sent       map[uint64]series.Series
	lastTS     int64
	backoff    time.Duration
	notBefore  time.Time
	maxSamples int
	failing    bool
	logged     map[string]bool
	all        []series.Series
	floats     []series.Series
	hists      []series.Series

	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
	stopErr  error
}

// Option configures optional parts of a Client.
type Option func(*options)

type options struct {
	now       func() time.Time
	userAgent string
}

// WithClock sets the clock that stamps samples (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithUserAgent sets the User-Agent header (default "tidemark/<version>").
func WithUserAgent(ua string) Option { return func(o *options) { o.userAgent = ua } }

// NewClient validates cfg and returns a client that pushes src's series. It does not
// send anything until Start.
func NewClient(cfg Config, src series.Snapshotter, logger *slog.Logger, reg prometheus.Registerer, opts ...Option) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{now: time.Now, userAgent: "tidemark/" + version.Version}
	for _, f := range opts {
		f(&o)
	}
	mapper, err := series.NewMapper(cfg.Series)
	if err != nil {
		return nil, err
	}
	rt, err := config.NewRoundTripperFromConfig(cfg.HTTPClientConfig, "remote_write")
	if err != nil {
		return nil, fmt.Errorf("create remote write http client: %w", err)
	}
	if cfg.SigV4 != nil {
		rt, err = sigv4.NewSigV4RoundTripper(cfg.SigV4, rt)
		if err != nil {
			return nil, fmt.Errorf("create remote write sigv4 signer: %w", err)
		}
	}
	m, err := newSelfMetrics(reg)
	if err != nil {
		return nil, err
	}
	return &Client{
		cfg:        cfg,
		src:        src,
		mapper:     mapper,
		logger:     logger.With("component", "remotewrite", "url", cfg.URL.Redacted()),
		http:       &http.Client{Transport: rt, Timeout: time.Duration(cfg.Timeout)},
		url:        cfg.URL.String(),
		ua:         o.userAgent,
		now:        o.now,
		m:          m,
		enc:        newEncoder(cfg.Protocol),
		sent:       map[uint64]series.Series{},
		maxSamples: cfg.Queue.MaxSamplesPerSend,
		logged:     map[string]bool{},
		done:       make(chan struct{}),
	}, nil
}

// Start begins pushing in the background, every push interval. It does not block.
func (c *Client) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started || c.stopped {
		return
	}
	c.started = true
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.run(ctx)
}

// Stop pushes a final snapshot, sends stale markers (if enabled) and waits, each
// bounded by the final flush timeout. It is safe to call more than once; it returns
// the error of the final flush, if any.
func (c *Client) Stop() error {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		started := c.started
		c.stopped = true
		c.mu.Unlock()
		if !started {
			return
		}
		c.cancel()
		<-c.done
	})
	return c.stopErr
}

// Stats returns the delivery counts so far.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *Client) run(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(time.Duration(c.cfg.PushInterval))
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-t.C:
		}
		// A snapshot that could not be sent within one interval is replaced by a new
		// one at once: its values are included in the newer, cumulative ones.
		for {
			if err := c.push(ctx, false); !errors.Is(err, errSuperseded) {
				break
			}
		}
	}
	c.stopErr = c.final()
}

// final sends the last snapshot and the stale markers. Its error is Stop's (the
// caller logs it).
func (c *Client) final() error {
	timeout := time.Duration(c.cfg.Queue.FinalFlushTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := c.push(ctx, true)
	cancel()
	if err != nil {
		err = fmt.Errorf("final remote write flush (timeout %s): %w", timeout, err)
	}
	if c.cfg.StaleMarkers {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if serr := c.sendStale(ctx); serr != nil {
			err = errors.Join(err, fmt.Errorf("send stale markers (timeout %s): %w", timeout, serr))
		}
	}
	st := c.Stats()
	c.logger.Debug("Remote write stopped", "samples", st.Samples, "requests", st.Requests, "retries", st.Retries, "dropped", st.Dropped)
	return err
}

var errSuperseded = errors.New("superseded by a newer snapshot")

// timestamp returns the push time in ms, strictly after the previous one.
func (c *Client) timestamp() int64 {
	ts := c.now().UnixMilli()
	if ts <= c.lastTS {
		ts = c.lastTS + 1
	}
	c.lastTS = ts
	return ts
}

// push sends one snapshot. Unless final, it gives up (errSuperseded) once a newer
// snapshot is due.
func (c *Client) push(ctx context.Context, final bool) error {
	taken := time.Now()
	ts := c.timestamp()
	c.all = c.mapper.Map(c.all[:0], c.src.Snapshot())
	c.floats, c.hists = c.floats[:0], c.hists[:0]
	for _, s := range c.all {
		if _, ok := c.sent[s.Ref]; !ok {
			c.sent[s.Ref] = series.Series{Name: s.Name, Labels: s.Labels, Ref: s.Ref, Type: s.Type, Unit: s.Unit, Help: s.Help}
		}
		if s.Histogram != nil {
			c.hists = append(c.hists, s)
		} else {
			c.floats = append(c.floats, s)
		}
	}
	var due time.Time
	if !final {
		due = taken.Add(time.Duration(c.cfg.PushInterval))
	}
	return c.sendAll(ctx, ts, due, false, final)
}

// sendStale sends a stale marker, one ms after the last push, for every series ever
// sent.
func (c *Client) sendStale(ctx context.Context) error {
	ts := c.timestamp()
	c.floats, c.hists = c.floats[:0], c.hists[:0]
	for _, s := range c.sent {
		if s.Type == series.Histogram {
			c.hists = append(c.hists, s)
		} else {
			c.floats = append(c.floats, s)
		}
	}
	return c.sendAll(ctx, ts, time.Time{}, true, true)
}

// sendAll sends c.floats, then c.hists, in batches. Floats and native histograms never
// share a request, so a receiver that rejects histograms still gets every float.
//
// When a regular push is superseded or interrupted by Stop, its unsent samples are
// counted as superseded: the next (or final) snapshot carries their values. When the
// final push or the stale markers fail, they are dropped.
func (c *Client) sendAll(ctx context.Context, ts int64, due time.Time, stale, final bool) error {
	classes := [2]struct {
		ss   []series.Series
		kind string
	}{{c.floats, "samples"}, {c.hists, "histograms"}}
	for ci, cl := range classes {
		for start := 0; start < len(cl.ss); {
			end := min(start+c.maxSamples, len(cl.ss))
			err := c.sendBatch(ctx, cl.ss[start:end], ts, due, stale, cl.kind)
			if err != nil {
				rest := len(cl.ss) - start
				if ci == 0 {
					rest += len(c.hists)
				}
				c.count(func(s *Stats) {
					if !final && (errors.Is(err, errSuperseded) || ctx.Err() != nil) {
						s.Superseded += uint64(rest)
						c.m.superseded.Add(float64(rest))
					} else {
						s.Dropped += uint64(rest)
						c.m.dropped.Add(float64(rest))
					}
				})
				return err
			}
			start = end
		}
	}
	return nil
}

func (c *Client) count(f func(*Stats)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.stats)
}

// sendBatch sends one batch until it is accepted, rejected, superseded (due passed)
// or ctx ends. A rejection is logged, counted as dropped and not returned.
func (c *Client) sendBatch(ctx context.Context, batch []series.Series, ts int64, due time.Time, stale bool, kind string) error {
	body, err := c.enc.encode(batch, ts, stale)
	if err != nil {
		return fmt.Errorf("encode remote write request: %w", err)
	}
	n := float64(len(batch))
	for attempt := 0; ; attempt++ {
		if wait := time.Until(c.notBefore); wait > 0 {
			superseded := false
			if !due.IsZero() && time.Now().Add(wait).After(due) {
				wait, superseded = max(time.Until(due), 0), true
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			if superseded {
				return errSuperseded
			}
		}
		// A request after a recoverable failure is a retry, even when it carries a
		// newer snapshot than the one that failed.
		if attempt > 0 || c.failing {
			c.count(func(s *Stats) { s.Retries++ })
			c.m.retried.Add(n)
		}
		begin := time.Now()
		hdr, err := c.store(ctx, body)
		c.m.duration.Observe(time.Since(begin).Seconds())
		var perr *permanentError
		if c.enc.version() == versionV2 && (err == nil && hdr.Get(headerSamplesWritten) == "" ||
			errors.As(err, &perr) && perr.status == http.StatusUnsupportedMediaType) {
			// A 1.x receiver either refuses 2.0 (415) or, worse, answers 2xx having
			// decoded nothing: 2.0 receivers always report what they wrote. Fall back
			// to 1.0 for the rest of the run and send this batch again.
			c.enc = newEncoder(Protocol1)
			c.logger.Warn("Receiver does not support remote write 2.0, falling back to 1.0",
				"status", statusOf(err), "missing_header", err == nil && hdr.Get(headerSamplesWritten) == "")
			if body, err = c.enc.encode(batch, ts, stale); err != nil {
				return fmt.Errorf("encode remote write request: %w", err)
			}
			attempt--
			continue
		}
		if err == nil {
			now := time.Now()
			c.count(func(s *Stats) {
				s.Samples += uint64(len(batch))
				if kind == "histograms" && !stale {
					s.Histograms += uint64(len(batch))
				}
				s.Requests++
				s.LastSuccess = now
			})
			c.m.samples.Add(n)
			if kind == "histograms" && !stale {
				c.m.histograms.Add(n)
			}
			c.m.requests.Inc()
			c.m.lastSuccess.Set(float64(now.UnixNano()) / 1e9)
			c.backoff = 0
			if c.failing {
				c.failing = false
				c.logger.Info("Remote write recovered")
			}
			return nil
		}
		c.count(func(s *Stats) { s.Failed += uint64(len(batch)) })
		c.m.failed.Add(n)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var rerr *recoverableError
		if errors.As(err, &rerr) {
			c.backoff = min(max(2*c.backoff, time.Duration(c.cfg.Queue.MinBackoff)), time.Duration(c.cfg.Queue.MaxBackoff))
			// Full jitter in [backoff/2, backoff) spreads the retries of many instances.
			wait := c.backoff/2 + time.Duration(rand.Int64N(int64(c.backoff/2)+1))
			wait = max(wait, rerr.retryAfter)
			c.notBefore = time.Now().Add(wait)
			if !c.failing {
				c.failing = true
				c.logger.Warn("Remote write failed, retrying", "err", err, "kind", kind, "backoff_seconds", wait.Seconds())
			} else {
				c.logger.Debug("Remote write failed again, retrying", "err", err, "attempt", attempt+1, "backoff_seconds", wait.Seconds())
			}
			continue
		}
		if !errors.As(err, &perr) {
			perr = &permanentError{msg: err.Error()}
		}
		c.count(func(s *Stats) { s.Dropped += uint64(len(batch)) })
		c.m.dropped.Add(n)
		key := strconv.Itoa(perr.status) + "/" + kind
		level := slog.LevelDebug
		if !c.logged[key] {
			c.logged[key] = true
			level = slog.LevelError
		}
		c.logger.Log(ctx, level, "Remote write rejected by the receiver; not retrying, samples dropped",
			"status", perr.status, "message", perr.msg, "kind", kind, "samples", len(batch), "hint", hint(perr.status, kind, perr.msg))
		if perr.status == http.StatusRequestEntityTooLarge && c.maxSamples > 1 {
			c.maxSamples = max(1, c.maxSamples/2)
			c.logger.Warn("Halving remote write batch size after 413", "max_samples_per_send", c.maxSamples)
		}
		return nil
	}
}

func hint(status int, kind, msg string) string {
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusRequestEntityTooLarge || strings.Contains(lower, "too big") || strings.Contains(lower, "too large"):
		return "request too large: lower queue_config.max_samples_per_send"
	case status == http.StatusNotFound:
		return "check the URL path (Prometheus: /api/v1/write, started with --web.enable-remote-write-receiver)"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "check the credentials (basic_auth, authorization, sigv4) and tenant headers"
	case kind == "histograms":
		return "the receiver may not accept native histograms (Prometheus: --enable-feature=native-histograms)"
	case status == http.StatusBadRequest:
		return "the receiver refused the samples; see its message (out of order, duplicate or invalid labels are common causes)"
	}
	return ""
}

// recoverableError is a failure worth retrying: a network error, a 5xx or a 429.
type recoverableError struct {
	err        error
	retryAfter time.Duration
}

func (e *recoverableError) Error() string { return e.err.Error() }
func (e *recoverableError) Unwrap() error { return e.err }

// permanentError is a rejection (4xx other than 429) with the receiver's message.
type permanentError struct {
	status int
	msg    string
}

func (e *permanentError) Error() string {
	return fmt.Sprintf("remote write receiver returned %d: %s", e.status, e.msg)
}

// headerSamplesWritten is set by every remote-write 2.0 receiver on success.
const headerSamplesWritten = "X-Prometheus-Remote-Write-Samples-Written"

// statusOf returns the HTTP status of a permanent error, 2xx for success, else 0.
func statusOf(err error) int {
	var perr *permanentError
	switch {
	case err == nil:
		return http.StatusNoContent
	case errors.As(err, &perr):
		return perr.status
	}
	return 0
}

// store POSTs one request body and returns the response headers on success.
func (c *Client) store(ctx context.Context, body []byte) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, &permanentError{msg: err.Error()}
	}
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", c.enc.contentType())
	req.Header.Set("X-Prometheus-Remote-Write-Version", c.enc.version())
	req.Header.Set("User-Agent", c.ua)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &recoverableError{err: fmt.Errorf("send remote write request: %w", err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return resp.Header, nil
	}
	msg := receiverMessage(resp.Body)
	if resp.StatusCode/100 == 5 || resp.StatusCode == http.StatusTooManyRequests {
		return nil, &recoverableError{
			err:        fmt.Errorf("remote write receiver returned %d: %s", resp.StatusCode, msg),
			retryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()),
		}
	}
	return nil, &permanentError{status: resp.StatusCode, msg: msg}
}

// receiverMessage returns the first line of a response body, at most 256 bytes.
func receiverMessage(r io.Reader) string {
	line, _ := bufio.NewReader(io.LimitReader(r, 256)).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "" {
		return "(empty response body)"
	}
	return line
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// Write sends batch once, every series with its one value at ts (milliseconds since the
// epoch), with the client's retries and backoff. It is for data that is not a live
// snapshot, such as the events and facts `tidemark correlate` writes back; bound it with
// ctx. Its error counts the samples the receiver rejected during this call. It must not
// run concurrently with the pushes of Start.
func (c *Client) Write(ctx context.Context, ts int64, batch []series.Series) error {
	dropped := c.Stats().Dropped
	for len(batch) > 0 {
		n := len(batch)
		if c.maxSamples > 0 {
			n = min(n, c.maxSamples)
		}
		if err := c.sendBatch(ctx, batch[:n], ts, time.Time{}, false, "write-back"); err != nil {
			return err
		}
		batch = batch[n:]
	}
	if n := c.Stats().Dropped - dropped; n > 0 {
		return fmt.Errorf("remote write receiver rejected %d samples (see the log)", n)
	}
	return nil
}
