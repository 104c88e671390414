package query

import (
	"context"
	"errors"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// ErrUnavailable wraps errors that are not about one expression: the server cannot be
// reached, timed out or failed. Querier implementations wrap such errors with it; the
// correlator stops on them and turns any other query error into a note.
var ErrUnavailable = errors.New("prometheus unavailable")

// Querier runs PromQL against a Prometheus-compatible HTTP API (a real Prometheus,
// Thanos, Mimir, VictoriaMetrics or Tidemark's embedded store).
type Querier interface {
	// Query evaluates expr at ts.
	Query(ctx context.Context, expr string, ts time.Time) (model.Value, v1.Warnings, error)
	// QueryRange evaluates expr over r.
	QueryRange(ctx context.Context, expr string, r v1.Range) (model.Value, v1.Warnings, error)
}
