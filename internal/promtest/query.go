package promtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// pollInterval is how often WaitForQuery re-runs its query.
const pollInterval = 100 * time.Millisecond

// Query runs an instant query at time ts (now when zero) against the Prometheus HTTP API at
// baseURL and returns the result.
func Query(ctx context.Context, baseURL, expr string, ts time.Time) (model.Value, error) {
	c, err := api.NewClient(api.Config{Address: baseURL})
	if err != nil {
		return nil, fmt.Errorf("create client for %s: %w", baseURL, err)
	}
	if ts.IsZero() {
		ts = time.Now()
	}
	v, _, _, err := v1.NewAPI(c).Query(ctx, expr, ts)
	if err != nil {
		return nil, fmt.Errorf("query %q at %s: %w", expr, baseURL, err)
	}
	return v, nil
}

// QueryRange runs a range query from start to end at step against the Prometheus HTTP
// API at baseURL, as a Grafana panel does, and returns the result (a model.Matrix).
func QueryRange(ctx context.Context, baseURL, expr string, start, end time.Time, step time.Duration) (model.Value, error) {
	c, err := api.NewClient(api.Config{Address: baseURL})
	if err != nil {
		return nil, fmt.Errorf("create client for %s: %w", baseURL, err)
	}
	v, _, _, err := v1.NewAPI(c).QueryRange(ctx, expr, v1.Range{Start: start, End: end, Step: step})
	if err != nil {
		return nil, fmt.Errorf("query %q from %s to %s at %s: %w", expr, start, end, step, err)
	}
	return v, nil
}

// WaitForQuery runs the instant query expr (at the current time) against baseURL until
// done accepts the result, and returns that result. It fails the test after timeout with
// the last result or error.
func WaitForQuery(t testing.TB, baseURL, expr string, timeout time.Duration, done func(model.Value) bool) model.Value {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var (
		last    model.Value
		lastErr error
	)
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := Query(qctx, baseURL, expr, time.Time{})
		qcancel()
		if err == nil && done(v) {
			return v
		}
		last, lastErr = v, err
		select {
		case <-ctx.Done():
			t.Fatalf("promtest: query %q at %s not satisfied after %s: last value %v, last error %v", expr, baseURL, timeout, last, lastErr)
			return nil
		case <-ticker.C:
		}
	}
}

// NonEmpty accepts a vector or matrix with at least one series, or any scalar or string.
func NonEmpty(v model.Value) bool {
	switch v := v.(type) {
	case model.Vector:
		return len(v) > 0
	case model.Matrix:
		return len(v) > 0
	case nil:
		return false
	default:
		return true
	}
}

// SeriesCount returns a check for WaitForQuery that accepts a vector or matrix with exactly
// n series.
func SeriesCount(n int) func(model.Value) bool {
	return func(v model.Value) bool {
		switch v := v.(type) {
		case model.Vector:
			return len(v) == n
		case model.Matrix:
			return len(v) == n
		default:
			return false
		}
	}
}
