package remotewrite

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/verdict"
)

// Sinks returns one Sink per endpoint of cfgs; their self-metrics go into reg,
// labelled with the endpoint's redacted URL.
func Sinks(cfgs []Config, src series.Snapshotter, logger *slog.Logger, reg prometheus.Registerer) ([]*Sink, error) {
	var sinks []*Sink
	for _, cfg := range cfgs {
		creg := prometheus.WrapRegistererWith(prometheus.Labels{"url": cfg.URL.Redacted()}, reg)
		client, err := NewClient(cfg, src, logger, creg)
		if err != nil {
			return nil, err
		}
		s := &Sink{c: client}
		if len(cfgs) > 1 {
			s.name = cfg.URL.Redacted()
		}
		sinks = append(sinks, s)
	}
	return sinks, nil
}

// Sink is a Client as one of a run's outputs: started and stopped with the run, with
// its line in the summary. name tells endpoints apart when there are several.
type Sink struct {
	c    *Client
	name string
}

// Start starts the client's pushes.
func (s *Sink) Start() { s.c.Start() }

// Stop flushes; a run whose samples did not all reach the receiver, unreachable or
// refusing them, ends as not delivered (exit code 111 unless the run failed otherwise).
func (s *Sink) Stop() error {
	err := s.c.Stop()
	if st := s.c.Stats(); err != nil || st.Dropped > 0 || st.RefusedSeries > 0 {
		return verdict.As(verdict.ErrNotDelivered, fmt.Errorf("remote write: %d samples not delivered: %w", st.Dropped, cmp.Or(err, errRefused)))
	}
	return nil
}

// errRefused is a delivery the receiver refused in part.
var errRefused = errors.New("the receiver refused them (see the log)")

// Lost tells whether samples did not reach the receiver.
func (s *Sink) Lost() bool {
	st := s.c.Stats()
	return st.Dropped > 0 || st.RefusedSeries > 0
}

// SummaryLines is the client's line for the end of the summary.
func (s *Sink) SummaryLines() []string {
	line := s.c.Stats().String()
	if s.name != "" {
		line += " (" + s.name + ")"
	}
	return []string{line}
}
