package barrier

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/query"
)

// Prometheus reads the ready announcements from a Prometheus-compatible query API
// (Prometheus, VictoriaMetrics, Mimir, Thanos): the latest tidemark_instance_ready
// sample of every instance_id of the testid.
type Prometheus struct {
	q   query.Querier
	now func() time.Time
}

var _ Source = (*Prometheus)(nil)

// NewPrometheus returns a Source over q; now is the time the queries are evaluated at
// (nil: time.Now).
func NewPrometheus(q query.Querier, now func() time.Time) *Prometheus {
	if now == nil {
		now = time.Now
	}
	return &Prometheus{q: q, now: now}
}

// Expr is the query of the ready announcements of testID.
func Expr(testID string) string {
	return ReadyMetric + "{testid=" + strconv.Quote(testID) + "}"
}

// Ready returns each instance's ready time. A series without instance_id, or whose
// value is not a time, is an error: it is not one of ours.
func (p *Prometheus) Ready(ctx context.Context, testID string) (map[string]time.Time, error) {
	v, _, err := p.q.Query(ctx, Expr(testID), p.now())
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", Expr(testID), err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("query %s: expected a vector, got %s", Expr(testID), v.Type())
	}
	out := make(map[string]time.Time, len(vec))
	for _, s := range vec {
		id := string(s.Metric["instance_id"])
		f := float64(s.Value)
		if id == "" || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
			return nil, fmt.Errorf("query %s: series %s is not a ready announcement (instance_id and a time in seconds)", Expr(testID), s.Metric)
		}
		sec, frac := math.Modf(f)
		t := time.Unix(int64(sec), int64(math.Round(frac*1e3))*int64(time.Millisecond)).UTC()
		if prev, ok := out[id]; !ok || t.After(prev) {
			out[id] = t
		}
	}
	return out, nil
}
