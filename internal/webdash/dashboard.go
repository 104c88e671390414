package webdash

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/report"
	"github.com/tidemark/tidemark/internal/scenario"
)

//go:embed page.html.tmpl
var pageTemplate string

// Snapshotter is what the dashboard reads of the aggregates; *aggregate.Store
// implements it.
type Snapshotter interface {
	Snapshot() *aggregate.Snapshot
}

// StatusSource is what the dashboard reads of the engine; *engine.Engine implements it.
type StatusSource interface {
	Status() []engine.ScenarioStatus
}

var (
	_ Snapshotter  = (*aggregate.Store)(nil)
	_ StatusSource = (*engine.Engine)(nil)
)

// Phases of the run, as the page shows them.
const (
	PhaseWaiting  = "waiting for the start"
	PhaseRunning  = "running"
	PhaseFinished = "finished"
)

// Event names of the /events stream: a snapshot every period, and one stop with the
// final state, after which the stream ends.
const (
	EventSnapshot = "snapshot"
	EventStop     = "stop"
)

// subscriberBuffer is how many events a slow page may fall behind before it misses
// some; the next event carries the whole state again, so a missed one costs nothing.
const subscriberBuffer = 4

// State is what the page shows, sent as the data of every event (JSON).
type State struct {
	TestID  string   `json:"testid"`
	Phase   string   `json:"phase"`
	Elapsed string   `json:"elapsed"`
	Stages  []string `json:"stages"`
	Cards   []Card   `json:"cards"`
	// Figure is the charts, an SVG document drawn by internal/report.
	Figure string `json:"figure"`
}

// Card is one headline value.
type Card struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Value  string `json:"value"`
	Detail string `json:"detail"`
	// Raw is the value as a number, for machines: a count, a rate (0..1) or milliseconds.
	Raw float64 `json:"raw"`
}

// Option configures a Dashboard.
type Option func(*options)

type options struct {
	now func() time.Time
}

// WithClock sets the clock of the run's elapsed time; the default is time.Now.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// Dashboard is the web dashboard of one run. Its lifecycle: Listen (before the run, so
// that a busy port is a configuration error), Attach the store, Start, Started when the
// engine starts, Stop at the end of the run (final state, export), Close when the
// process is done with it (after --linger). It is safe for concurrent use.
type Dashboard struct {
	cfg    Config
	logger *slog.Logger
	o      options
	tmpl   *template.Template

	mu       sync.Mutex
	store    Snapshotter
	status   StatusSource
	testID   string
	scens    []*scenario.Scenario
	started  time.Time
	prev     *aggregate.Snapshot // the last point's snapshot
	before   *aggregate.Snapshot // the snapshot of the point before it
	pts      []point
	seq      uint64
	cached   *State
	cacheSeq uint64
	finished bool
	running  bool // Start ran
	subs     map[chan []byte]struct{}

	srv      *http.Server
	addr     net.Addr
	stop     chan struct{}
	loopDone chan struct{}
	closed   chan struct{}
	stopOnce sync.Once
	closeMu  sync.Once
}

// New returns the dashboard of cfg; it serves nothing before Listen.
func New(cfg Config, logger *slog.Logger, opts ...Option) (*Dashboard, error) {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if cfg.Period <= 0 {
		return nil, fmt.Errorf("web dashboard period %s: expected a positive duration", cfg.Period)
	}
	tmpl, err := template.New("page").Funcs(template.FuncMap{
		"raw": func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
	}).Parse(pageTemplate)
	if err != nil {
		return nil, fmt.Errorf("parse the web dashboard template: %w", err)
	}
	return &Dashboard{
		cfg: cfg, logger: logger, o: o, tmpl: tmpl,
		subs: map[chan []byte]struct{}{}, stop: make(chan struct{}), loopDone: make(chan struct{}), closed: make(chan struct{}),
	}, nil
}

// Listen starts serving the page on Config.Addr, unless Port is NoServer.
func (d *Dashboard) Listen() error {
	if d.cfg.Port == NoServer {
		return nil
	}
	ln, err := net.Listen("tcp", d.cfg.Addr())
	if err != nil {
		return fmt.Errorf("start the web dashboard on %s: %w", d.cfg.Addr(), err)
	}
	d.addr = ln.Addr()
	d.srv = &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.logger.Error("Web dashboard server failed", "err", err)
		}
	}()
	return nil
}

// URL is the page's address once Listen has served it; empty otherwise.
func (d *Dashboard) URL() string {
	if d.addr == nil {
		return ""
	}
	return "http://" + d.addr.String() + "/"
}

// Attach gives the dashboard the run: its aggregates, test id and scenarios (for the
// stages).
func (d *Dashboard) Attach(store Snapshotter, testID string, scens []*scenario.Scenario) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.store, d.testID, d.scens = store, testID, scens
}

// Start starts reading the aggregates every period. It does not block.
func (d *Dashboard) Start() {
	d.mu.Lock()
	d.running = true
	d.mu.Unlock()
	go func() {
		defer close(d.loopDone)
		ticker := time.NewTicker(d.cfg.Period)
		defer ticker.Stop()
		for {
			select {
			case <-d.stop:
				return
			case <-ticker.C:
				d.tick()
			}
		}
	}()
}

// Started records that the engine started the iterations: the history begins here.
func (d *Dashboard) Started(status StatusSource) {
	d.mu.Lock()
	d.status, d.started = status, d.o.now()
	d.mu.Unlock()
	d.record()
}

// tick records a point and sends it to the open pages.
func (d *Dashboard) tick() {
	if !d.record() {
		return
	}
	d.mu.Lock()
	n := len(d.subs)
	d.mu.Unlock()
	if n == 0 {
		return // nobody is looking: no drawing
	}
	ev, err := d.event(EventSnapshot)
	if err != nil {
		d.logger.Warn("Failed to render the web dashboard", "err", err)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for ch := range d.subs {
		select {
		case ch <- ev:
		default: // a slow page misses this one; the next carries the whole state
		}
	}
}

// record reads the aggregates once the run has started; it reports whether it did.
func (d *Dashboard) record() bool { return d.recordPoint(false) }

// recordPoint is record; final merges a point taken less than half a period after the
// last one into it, so that the run's end adds no sliver of an interval whose rate
// would read as a drop.
func (d *Dashboard) recordPoint(final bool) bool {
	d.mu.Lock()
	store, started := d.store, !d.started.IsZero()
	d.mu.Unlock()
	if store == nil || !started {
		return false
	}
	snap := store.Snapshot()
	d.mu.Lock()
	defer d.mu.Unlock()
	merge := final && len(d.pts) > 1 && snap.Time.Sub(d.pts[len(d.pts)-1].t) < d.cfg.Period/2
	since := d.prev
	if merge {
		since = d.before
	}
	win, err := snap.Since(since)
	if err != nil {
		d.logger.Debug("Web dashboard window not computed", "err", err)
		win = snap
	}
	if merge {
		d.pts[len(d.pts)-1] = sample(snap, win)
	} else {
		d.before = d.prev
		d.pts = append(d.pts, sample(snap, win))
	}
	d.prev = snap
	if len(d.pts) > maxPoints {
		d.pts = thin(d.pts)
	}
	d.seq++
	return true
}

// State returns what the page shows now.
func (d *Dashboard) State() (*State, error) {
	d.mu.Lock()
	if d.cached != nil && d.cacheSeq == d.seq {
		s := d.cached
		d.mu.Unlock()
		return s, nil
	}
	seq := d.seq
	pts := append([]point(nil), d.pts...)
	s := &State{TestID: d.testID, Phase: PhaseWaiting}
	switch {
	case d.finished:
		s.Phase = PhaseFinished
	case !d.started.IsZero():
		s.Phase = PhaseRunning
	}
	status, scens, started := d.status, d.scens, d.started
	d.mu.Unlock()

	if status != nil {
		s.Stages = stageLines(status.Status(), scens)
	}
	if len(pts) > 0 {
		last := pts[len(pts)-1]
		s.Elapsed = last.t.Sub(started).Round(time.Second).String()
		s.Cards = cards(pts)
	}
	svg, err := report.SVG(charts(pts))
	if err != nil {
		return nil, fmt.Errorf("draw the web dashboard charts: %w", err)
	}
	s.Figure = string(svg)
	d.mu.Lock()
	if seq == d.seq {
		d.cached, d.cacheSeq = s, seq
	}
	d.mu.Unlock()
	return s, nil
}

// event is one server-sent event of kind with the state as its data.
func (d *Dashboard) event(kind string) ([]byte, error) {
	s, err := d.State()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode the web dashboard state: %w", err)
	}
	d.mu.Lock()
	seq := d.seq
	d.mu.Unlock()
	// JSON has no raw newline, so the data is one data: line.
	return fmt.Appendf(nil, "event: %s\nid: %d\ndata: %s\n\n", kind, seq, data), nil
}

// Handler serves the page on / and the event stream on /events.
func (d *Dashboard) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", d.page)
	mux.HandleFunc("GET /events", d.events)
	return mux
}

func (d *Dashboard) page(w http.ResponseWriter, _ *http.Request) {
	var buf bytes.Buffer
	if err := d.WritePage(&buf, true); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

func (d *Dashboard) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported", http.StatusInternalServerError)
		return
	}
	ch := make(chan []byte, subscriberBuffer)
	d.mu.Lock()
	finished := d.finished
	if !finished {
		d.subs[ch] = struct{}{}
	}
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.subs, ch)
		d.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func(kind string) bool {
		ev, err := d.event(kind)
		if err != nil {
			d.logger.Warn("Failed to render the web dashboard", "err", err)
			return false
		}
		_, err = w.Write(ev)
		fl.Flush()
		return err == nil
	}
	// A page that connects mid-run gets the current state at once.
	if finished {
		send(EventStop)
		return
	}
	if !send(EventSnapshot) {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.closed:
			return
		case ev, open := <-ch:
			if !open {
				send(EventStop) // the run is over: the final state ends the stream
				return
			}
			if _, err := w.Write(ev); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// pageData is the template's input.
type pageData struct {
	*State
	Live   bool
	Period time.Duration
	CSS    template.CSS
	Figure template.HTML
}

// WritePage writes the page with the state now. live adds the script that applies the
// server's events; without it the page is self-contained and static (the export).
func (d *Dashboard) WritePage(w io.Writer, live bool) error {
	s, err := d.State()
	if err != nil {
		return err
	}
	// The SVG comes from our own renderer (internal/report), which escapes label text.
	data := pageData{State: s, Live: live, Period: d.cfg.Period, CSS: report.Stylesheet(), Figure: template.HTML(s.Figure)}
	if err := d.tmpl.Execute(w, data); err != nil {
		return fmt.Errorf("write the web dashboard page: %w", err)
	}
	return nil
}

// Stop ends the run's dashboard: it records the final state, ends every event stream
// with it, and writes Config.Export. The page keeps serving the final state until
// Close.
func (d *Dashboard) Stop() error {
	var err error
	d.stopOnce.Do(func() {
		close(d.stop)
		d.mu.Lock()
		running := d.running
		d.mu.Unlock()
		if running {
			<-d.loopDone
		}
		d.recordPoint(true)
		d.mu.Lock()
		d.finished = true
		d.seq++ // the phase changed
		for ch := range d.subs {
			close(ch)
			delete(d.subs, ch)
		}
		d.mu.Unlock()
		if d.cfg.Export != "" {
			err = d.export(d.cfg.Export)
		}
	})
	return err
}

// export writes the static page to path, gzipped when it ends in .gz.
func (d *Dashboard) export(path string) error {
	var buf bytes.Buffer
	if err := d.WritePage(&buf, false); err != nil {
		return err
	}
	out := buf.Bytes()
	if strings.HasSuffix(path, ".gz") {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		if _, err := zw.Write(out); err != nil {
			return fmt.Errorf("compress the web dashboard export: %w", err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("compress the web dashboard export: %w", err)
		}
		out = gz.Bytes()
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return fmt.Errorf("write the web dashboard export: %w", err)
	}
	return nil
}

// Close stops serving the page and its streams. It waits up to ctx for requests in
// flight.
func (d *Dashboard) Close(ctx context.Context) error {
	var err error
	d.closeMu.Do(func() {
		close(d.closed)
		if d.srv != nil {
			err = d.srv.Shutdown(ctx)
		}
	})
	return err
}
