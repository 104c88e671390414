package store

import (
	"context"
	"fmt"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
)

// limitAppendable guards the remote-write receiver against absurd series: too many labels
// or huge label values. Prometheus' receiver has no such limits (its scrape side does).
type limitAppendable struct {
	db          storage.AppendableV2
	maxLabels   int
	maxValueLen int
}

// AppenderV2 implements storage.AppendableV2.
func (l limitAppendable) AppenderV2(ctx context.Context) storage.AppenderV2 {
	app := l.db.AppenderV2(ctx)
	ea, ok := app.(storage.ExemplarAppenderV2)
	if !ok {
		// The TSDB head appender always implements it; the receiver reports the type if not.
		return app
	}
	return &limitAppender{ExemplarAppenderV2: ea, maxLabels: l.maxLabels, maxValueLen: l.maxValueLen}
}

type limitAppender struct {
	storage.ExemplarAppenderV2
	maxLabels   int
	maxValueLen int
}

// Append checks the series' labels the first time a request appends to it (the receiver
// passes ref 0 then) and otherwise appends unchanged.
func (a *limitAppender) Append(ref storage.SeriesRef, ls labels.Labels, st, t int64, v float64, h *histogram.Histogram, fh *histogram.FloatHistogram, opts storage.AOptions) (storage.SeriesRef, error) {
	if ref == 0 {
		if err := a.check(ls); err != nil {
			return 0, err
		}
	}
	return a.ExemplarAppenderV2.Append(ref, ls, st, t, v, h, fh, opts)
}

func (a *limitAppender) check(ls labels.Labels) error {
	if a.maxLabels > 0 {
		if n := ls.Len(); n > a.maxLabels {
			return &limitError{msg: fmt.Sprintf("series %s has %d labels, more than the limit of %d", ls.Get(model.MetricNameLabel), n, a.maxLabels)}
		}
	}
	if a.maxValueLen > 0 {
		var err error
		ls.Range(func(l labels.Label) {
			if err == nil && len(l.Value) > a.maxValueLen {
				err = &limitError{msg: fmt.Sprintf("series %s: value of label %q is %d bytes, more than the limit of %d", ls.Get(model.MetricNameLabel), l.Name, len(l.Value), a.maxValueLen)}
			}
		})
		return err
	}
	return nil
}

// limitError is a series rejected by limitAppender. It counts as storage.ErrOutOfBounds
// so that the remote-write receiver answers 400 Bad Request (not retried by senders)
// instead of 500, but its message is its own.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// Is makes errors.Is(err, storage.ErrOutOfBounds) true.
func (e *limitError) Is(target error) bool { return target == storage.ErrOutOfBounds }

var _ storage.AppendableV2 = limitAppendable{}
