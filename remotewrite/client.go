package remotewrite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
	clock  Clock
	m      *selfMetrics

	mu      sync.Mutex
	started bool
	stopped bool

	// Owned by the push goroutine (or by Stop once it has exited), or by Write.
	enc        encoder
	sent       map[uint64]series.Series
	lastTS     int64
	retry      retryState
	maxSamples int
	logged     map[string]bool
	all        []series.Series
	floats     []series.Series
	hists      []series.Series
	// refused holds the series the receiver rejected alone (found by splitting a
	// rejected request), with its message: they are not sent again.
	refused map[uint64]string
	// splits counts the requests of the current push spent on splitting rejected
	// batches; noSplit marks a kind whose split found nothing the receiver accepts.
	splits          int
	noSplit         map[string]bool
	acceptedBatches int
	refusing        []refusal // series rejected alone in the current split

	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
	stopErr  error
}

// refusal is a series the receiver rejected alone, with the status and message.
type refusal struct {
	s   series.Series
	msg string
}

// Option configures optional parts of a Client.
type Option func(*options)

type options struct {
	clock Clock
}

// WithClock sets the clock that stamps samples, ticks the push interval and times the
// backoff (default: the system clock).
func WithClock(c Clock) Option { return func(o *options) { o.clock = c } }

// NewClient validates cfg and returns a client that pushes src's series. It does not
// send anything until Start.
func NewClient(cfg Config, src series.Snapshotter, logger *slog.Logger, reg prometheus.Registerer, opts ...Option) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{clock: systemClock{}}
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
		ua:         "tidemark/" + version.Version,
		clock:      o.clock,
		m:          m,
		enc:        newEncoder(cfg.Protocol),
		sent:       map[uint64]series.Series{},
		maxSamples: cfg.Queue.MaxSamplesPerSend,
		logged:     map[string]bool{},
		refused:    map[uint64]string{},
		noSplit:    map[string]bool{},
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

// Stats returns the delivery counts so far, read off the client's metrics.
func (c *Client) Stats() Stats {
	st := c.m.stats()
	st.Long = c.mapper.LongLabels()
	st.RefusedSeries = uint64(value(c.m.refusedSeries))
	return st
}

func (c *Client) run(ctx context.Context) {
	defer close(c.done)
	t := c.clock.NewTicker(time.Duration(c.cfg.PushInterval))
	defer t.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-t.C():
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

// final sends the last snapshot and the stale markers, both within one
// final_flush_timeout: a pod's whole stop (this, then the summary) must fit in
// Kubernetes' 30 s grace period, and with the receiver unreachable the two took 15 s
// each. Stale markers are not tried after a flush that could not reach the receiver.
// Its error is Stop's (the caller logs it).
func (c *Client) final() error {
	timeout := time.Duration(c.cfg.Queue.FinalFlushTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := c.push(ctx, true)
	if err != nil {
		err = fmt.Errorf("final remote write flush (timeout %s): %w", timeout, err)
	}
	if c.cfg.StaleMarkers && (err == nil || isRejection(err)) {
		if serr := c.sendStale(ctx); serr != nil {
			err = errors.Join(err, fmt.Errorf("send stale markers (timeout %s): %w", timeout, serr))
		}
	}
	st := c.Stats()
	c.logger.Debug("Remote write stopped", "samples", st.Samples, "requests", st.Requests, "retries", st.Retries, "dropped", st.Dropped)
	return err
}

// timestamp returns now in ms, strictly after the previous push.
func (c *Client) timestamp(now time.Time) int64 {
	ts := now.UnixMilli()
	if ts <= c.lastTS {
		ts = c.lastTS + 1
	}
	c.lastTS = ts
	return ts
}

// push sends one snapshot. Unless final, it gives up (errSuperseded) once a newer
// snapshot is due.
func (c *Client) push(ctx context.Context, final bool) error {
	taken := c.clock.Now()
	ts := c.timestamp(taken)
	c.all = c.mapper.Map(c.all[:0], c.src.Snapshot())
	c.floats, c.hists = c.floats[:0], c.hists[:0]
	c.splits = 0
	for _, s := range c.all {
		if _, ok := c.refused[s.Ref]; ok {
			c.m.dropped.Inc()
			continue
		}
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

// sendStale ends every series ever sent with a stale marker. tidemark_run_info's
// follows the final push by 1 ms, so the run reads as ended at once (tidemark correlate,
// tidemark exporter). Every other series keeps its final value for one push interval:
// its marker is stamped that long after the final push (in the future, sent now, so the
// stop waits for nothing). A marker 1 ms after the final push hid the final values from
// every range query whose steps do not fall in that millisecond: a dashboard at a 1 s
// step showed the push before (50 requests of a run's 78). Any step up to the push
// interval now lands on the final value. No later, since a rerun with the same testid
// (and push interval) pushes its first samples one push interval after its start, which
// is after this run's markers, so its samples are never older than them (out of order).
func (c *Client) sendStale(ctx context.Context) error {
	final := c.lastTS
	var runInfo, rest []series.Series
	for _, s := range c.sent {
		switch _, refused := c.refused[s.Ref]; {
		case refused: // never stored: nothing to mark stale
		case s.Name == series.RunInfoMetric:
			runInfo = append(runInfo, s)
		default:
			rest = append(rest, s)
		}
	}
	ts := c.timestamp(c.clock.Now())
	if err := c.sendStaleOf(ctx, runInfo, ts); err != nil {
		c.m.dropped.Add(float64(len(rest)))
		return err
	}
	ended := final + min(time.Duration(c.cfg.PushInterval), maxStaleDelay).Milliseconds()
	return c.sendStaleOf(ctx, rest, c.timestamp(time.UnixMilli(max(ended, ts))))
}

// maxStaleDelay caps how long after the final push the stale markers are stamped: a
// series without samples leaves instant queries after Prometheus' lookback delta (5 m) in
// any case, and receivers refuse samples too far in the future (Mimir: 10 m).
const maxStaleDelay = 5 * time.Minute

// sendStaleOf sends stale markers for ss at ts.
func (c *Client) sendStaleOf(ctx context.Context, ss []series.Series, ts int64) error {
	c.floats, c.hists = c.floats[:0], c.hists[:0]
	c.splits = 0
	for _, s := range ss {
		if s.Type == series.Histogram {
			c.hists = append(c.hists, s)
		} else {
			c.floats = append(c.floats, s)
		}
	}
	return c.sendAll(ctx, ts, time.Time{}, true, true)
}

// sendAll sends c.floats, then c.hists, in batches of at most max_samples_per_send,
// each through sendWithBackoff. Floats and native histograms never share a request,
// so a receiver that rejects histograms still gets every float.
//
// When a regular push is superseded or interrupted by Stop, its unsent samples are
// counted as superseded: the next (or final) snapshot carries their values. When the
// final push or the stale markers fail, they are dropped. A rejected batch is dropped
// (by sendWithBackoff) and the others are still sent.
func (c *Client) sendAll(ctx context.Context, ts int64, due time.Time, stale, final bool) error {
	classes := [2]struct {
		ss   []series.Series
		kind string
	}{{c.floats, kindSamples}, {c.hists, kindHistograms}}
	for ci, cl := range classes {
		for start := 0; start < len(cl.ss); {
			end := min(start+c.maxSamples, len(cl.ss))
			err := c.sendWithBackoff(ctx, batch{series: cl.ss[start:end], ts: ts, stale: stale, kind: cl.kind}, due)
			if err != nil && !isRejection(err) {
				rest := len(cl.ss) - start
				if ci == 0 {
					rest += len(c.hists)
				}
				if !final && (errors.Is(err, errSuperseded) || ctx.Err() != nil) {
					c.m.superseded.Add(float64(rest))
				} else {
					c.m.dropped.Add(float64(rest))
				}
				return err
			}
			start = end
		}
	}
	return nil
}
