package js

import (
	"context"
	"errors"
	"time"

	"github.com/tidemark/tidemark/internal/browser/vitals"
	"github.com/tidemark/tidemark/internal/webvital"
)

// webVitalsFlushTimeout bounds the flush of a page's pending vitals when it closes: it
// takes milliseconds on a page that loaded, while Chromium does not answer the flush's
// evaluation at all when a navigation is still pending (a goto that timed out), where
// page.close() would otherwise wait the browser's whole 5 s and fail.
const webVitalsFlushTimeout = 2 * time.Second

// watchWebVitals is the k6/browser module's Watch: vitals.Watch on each new page, its
// timed vitals converted from the milliseconds it reports (k6's sample values) to the
// seconds Tidemark's time metrics hold, as every other time sample (CLS is a score and
// passes as it is; the rating tag was already given on milliseconds). A flush that
// cannot finish in webVitalsFlushTimeout leaves the page's pending vitals (LCP, CLS,
// INP) unreported, as for a page closed before it painted, and does not fail the close.
func watchWebVitals(ctx context.Context, emit func(metric string, value float64, tags map[string]string, at time.Time)) (func(context.Context) error, error) {
	flush, err := vitals.Watch(ctx, func(metric string, value float64, tags map[string]string, at time.Time) {
		if v, ok := webvital.ByMetric(metric); ok && v.Timed {
			value /= 1000
		}
		emit(metric, value, tags, at)
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		fctx, cancel := context.WithTimeout(ctx, webVitalsFlushTimeout)
		defer cancel()
		err := flush(fctx)
		if errors.Is(err, context.DeadlineExceeded) || (errors.Is(err, context.Canceled) && ctx.Err() == nil) {
			return nil
		}
		return err
	}, nil
}
