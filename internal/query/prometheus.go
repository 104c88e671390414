package query

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// This file is the only one that touches client_golang's v1.API, whose method set moves
// between releases (Infos was added after v1.24.1).

// promAPI adapts v1.API to Querier. Infos are passed on as warnings prefixed "info: ".
type promAPI struct {
	api     v1.API
	timeout time.Duration
}

var _ Querier = (*promAPI)(nil)

// Option configures NewPrometheus.
type Option func(*promAPI)

// WithTimeout bounds each query: a server that never answers fails the query with
// ErrUnavailable after d instead of hanging. 0 means no bound.
func WithTimeout(d time.Duration) Option { return func(p *promAPI) { p.timeout = d } }

// NewPrometheus returns a Querier for the Prometheus HTTP API at address. rt may be nil
// for http.DefaultTransport.
func NewPrometheus(address string, rt http.RoundTripper, opts ...Option) (Querier, error) {
	c, err := api.NewClient(api.Config{Address: address, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("create prometheus client for %q: %w", address, err)
	}
	p := &promAPI{api: v1.NewAPI(c)}
	for _, o := range opts {
		o(p)
	}
	return p, nil
}

// bound applies the query timeout to ctx.
func (p *promAPI) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, p.timeout)
}

func merge(w v1.Warnings, infos v1.Infos) v1.Warnings {
	for _, i := range infos {
		w = append(w, "info: "+i)
	}
	return w
}

// classify marks transport, server and client errors as ErrUnavailable; errors the
// query engine reports about one expression (bad_data, execution) pass unchanged.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var apiErr *v1.Error
	if errors.As(err, &apiErr) && (apiErr.Type == v1.ErrBadData || apiErr.Type == v1.ErrExec) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// Query implements Querier.
func (p *promAPI) Query(ctx context.Context, expr string, ts time.Time) (model.Value, v1.Warnings, error) {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	v, w, infos, err := p.api.Query(ctx, expr, ts)
	return v, merge(w, infos), classify(err)
}

// QueryRange implements Querier.
func (p *promAPI) QueryRange(ctx context.Context, expr string, r v1.Range) (model.Value, v1.Warnings, error) {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	v, w, infos, err := p.api.QueryRange(ctx, expr, r)
	return v, merge(w, infos), classify(err)
}
