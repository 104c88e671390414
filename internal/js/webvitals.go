package js

import (
	"context"
	"time"

	"github.com/tidemark/tidemark/internal/browser/vitals"
	"github.com/tidemark/tidemark/internal/webvital"
)

// watchWebVitals is the k6/browser module's Watch: vitals.Watch on each new page, its
// timed vitals converted from the milliseconds it reports (k6's sample values) to the
// seconds Tidemark's time metrics hold, as every other time sample (CLS is a score and
// passes as it is; the rating tag was already given on milliseconds).
func watchWebVitals(ctx context.Context, emit func(metric string, value float64, tags map[string]string, at time.Time)) (func(context.Context) error, error) {
	return vitals.Watch(ctx, func(metric string, value float64, tags map[string]string, at time.Time) {
		if v, ok := webvital.ByMetric(metric); ok && v.Timed {
			value /= 1000
		}
		emit(metric, value, tags, at)
	})
}
