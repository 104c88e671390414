// Package exporter exposes a run's k6-compatible series for Prometheus to scrape, as
// the pull alternative to remote write. It maps the same snapshots through the same
// series contract (internal/series), so scraped and pushed series are identical.
package exporter

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/tidemark/tidemark/internal/series"
)

// Collector is a prometheus.Collector over a run's snapshots. It is unchecked: the
// series of a run are not known in advance.
type Collector struct {
	src     series.Snapshotter
	mapper  *series.Mapper
	created time.Time
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a collector of src's series named and labelled by cfg. Native
// histograms carry start as their created timestamp.
func NewCollector(src series.Snapshotter, cfg series.Config, start time.Time) (*Collector, error) {
	m, err := series.NewMapper(cfg)
	if err != nil {
		return nil, err
	}
	return &Collector{src: src, mapper: m, created: start}, nil
}

// Describe sends nothing, which makes the collector unchecked.
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect sends the current value of every series.
//
// A plain-number trend's native histogram is named k6_<trend>, so its exposition has
// k6_<trend>_count and _sum lines; the count and sum stat gauges of that trend would
// clash with them and are left out (the histogram carries the same values).
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ss := c.mapper.Map(nil, c.src.Snapshot())
	hists := map[string]bool{}
	for _, s := range ss {
		if s.Type == series.Histogram {
			hists[s.Name] = true
		}
	}
	for _, s := range ss {
		if s.Type == series.Gauge && len(hists) > 0 {
			if base, ok := strings.CutSuffix(s.Name, "_count"); ok && hists[base] {
				continue
			}
			if base, ok := strings.CutSuffix(s.Name, "_sum"); ok && hists[base] {
				continue
			}
		}
		names := make([]string, len(s.Labels))
		values := make([]string, len(s.Labels))
		for i, l := range s.Labels {
			names[i], values[i] = l.Name, l.Value
		}
		desc := prometheus.NewDesc(s.Name, s.Help, names, nil)
		var (
			m   prometheus.Metric
			err error
		)
		switch s.Type {
		case series.Counter:
			m, err = prometheus.NewConstMetric(desc, prometheus.CounterValue, s.Value, values...)
		case series.Histogram:
			h := s.Histogram
			pos, neg := map[int]int64{}, map[int]int64{}
			for it := h.PositiveBucketIterator(); it.Next(); {
				b := it.At()
				pos[int(b.Index)] += int64(b.Count)
			}
			for it := h.NegativeBucketIterator(); it.Next(); {
				b := it.At()
				neg[int(b.Index)] += int64(b.Count)
			}
			m, err = prometheus.NewConstNativeHistogram(desc, h.Count, h.Sum, pos, neg, h.ZeroCount, h.Schema, h.ZeroThreshold, c.created, values...)
		default:
			m, err = prometheus.NewConstMetric(desc, prometheus.GaugeValue, s.Value, values...)
		}
		if err != nil {
			m = prometheus.NewInvalidMetric(desc, fmt.Errorf("collect %s: %w", s.Name, err))
		}
		ch <- m
	}
}

// ServerConfig configures the /metrics endpoint.
type ServerConfig struct {
	// ListenAddress is host:port (":9464").
	ListenAddress string
	// WebConfigFile is an exporter-toolkit web configuration (TLS, basic auth);
	// empty for plain HTTP.
	WebConfigFile string
}

// Server serves a gatherer on /metrics through exporter-toolkit.
type Server struct {
	cfg    ServerConfig
	srv    *http.Server
	logger *slog.Logger

	mu       sync.Mutex
	ln       net.Listener
	done     chan struct{}
	serveErr error
	stopOnce sync.Once
}

// NewServer returns a server of g. It listens only once started.
func NewServer(cfg ServerConfig, g prometheus.Gatherer, logger *slog.Logger) *Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelError)}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("<html><head><title>Tidemark</title></head><body><h1>Tidemark run exporter</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n"))
	})
	return &Server{
		cfg:    cfg,
		srv:    &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		logger: logger.With("component", "exporter"),
		done:   make(chan struct{}),
	}
}

// Start listens and serves in the background. It returns an error, and does not
// listen, when the web config file cannot be used or the address cannot be bound. It
// does not block.
func (s *Server) Start() error {
	// web.Serve would find a bad file only in the background, leaving the run without
	// its metrics endpoint and the error only in the log.
	if err := web.Validate(s.cfg.WebConfigFile); err != nil {
		return fmt.Errorf("web config %s: %w", s.cfg.WebConfigFile, err)
	}
	ln, err := net.Listen("tcp", s.cfg.ListenAddress)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.ListenAddress, err)
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	webConfig := s.cfg.WebConfigFile
	flags := &web.FlagConfig{WebConfigFile: &webConfig}
	s.logger.Info("Serving metrics", "address", ln.Addr().String())
	go func() {
		defer close(s.done)
		err := web.Serve(ln, s.srv, flags, s.logger)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("Metrics server failed", "err", err)
			s.mu.Lock()
			s.serveErr = err
			s.mu.Unlock()
		}
	}()
	return nil
}

// Addr returns the listen address once started, or "".
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Stop closes the server and waits for it. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		started := s.ln != nil
		s.mu.Unlock()
		if !started {
			return
		}
		_ = s.srv.Close()
		<-s.done
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serveErr
}
