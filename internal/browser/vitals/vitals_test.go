package vitals

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"
)

func TestRate(t *testing.T) {
	for _, tc := range []struct {
		metric string
		value  float64
		want   string
	}{
		{MetricLCP, 0, RatingGood},
		{MetricLCP, 2500, RatingGood},
		{MetricLCP, 2500.1, RatingNeedsImprovement},
		{MetricLCP, 4000, RatingNeedsImprovement},
		{MetricLCP, 4000.1, RatingPoor},
		{MetricFCP, 1800, RatingGood},
		{MetricFCP, 1801, RatingNeedsImprovement},
		{MetricFCP, 3001, RatingPoor},
		{MetricCLS, 0.1, RatingGood},
		{MetricCLS, 0.140625, RatingNeedsImprovement},
		{MetricCLS, 0.26, RatingPoor},
		{MetricINP, 200, RatingGood},
		{MetricINP, 250, RatingNeedsImprovement},
		{MetricINP, 501, RatingPoor},
		{MetricTTFB, 800, RatingGood},
		{MetricTTFB, 1800, RatingNeedsImprovement},
		{MetricTTFB, 1801, RatingPoor},
		{MetricFID, 100, RatingGood},
		{MetricFID, 300, RatingNeedsImprovement},
		{MetricFID, 301, RatingPoor},
		{"browser_http_req_duration", 1, ""},
	} {
		require.Equal(t, tc.want, Rate(tc.metric, tc.value), "%s %v", tc.metric, tc.value)
	}
}

func TestHandle(t *testing.T) {
	var got []string
	w := &watcher{
		emit: func(m string, v float64, tags map[string]string, _ time.Time) {
			got = append(got, fmt.Sprintf("%s=%v %s %s", m, v, tags[TagRating], tags[TagURL]))
		},
		docs: map[string]*document{}, contexts: map[string]runtime.ExecutionContextID{}, changed: make(chan struct{}), seen: map[string]int{},
	}
	now := time.Now()
	for _, it := range []item{
		{payload: `not json`},
		{payload: `{"doc":"a","seq":1,"name":"bogus","value":1,"url":"http://x/a"}`, context: 1},
		{payload: `{"doc":"a","seq":2,"name":"lcp","value":1200,"url":"http://x/a"}`, context: 1},
		{payload: `{"doc":"a","seq":3,"name":"lcp","value":2600,"url":"http://x/a"}`, context: 1},
		{payload: `{"doc":"a","seq":4,"name":"ttfb","value":90,"url":"http://x/a","final":true}`, context: 1},
		{payload: `{"doc":"a","seq":5,"name":"ttfb","value":95,"url":"http://x/a","final":true}`, context: 1},
		{payload: `{"doc":"a","seq":6,"name":"cls","value":0.3,"url":"http://x/a"}`, context: 1},
		// A new document ends the first: its latest values are final.
		{payload: `{"doc":"b","seq":1,"name":"cls","value":0,"url":"http://x/b"}`, context: 2},
		{payload: `{"doc":"b","seq":2,"name":"inp","value":40,"url":"http://x/b"}`, context: 2},
		{payload: `{"doc":"b","seq":3,"name":"inp","value":48,"url":"http://x/b","final":true}`, context: 2},
		{created: true, context: 2, unique: "u2"},
		{ended: true, unique: "u2"},
	} {
		w.handle(it, now)
	}
	require.Equal(t, []string{
		"browser_web_vital_ttfb=90 good http://x/a",
		"browser_web_vital_cls=0.3 poor http://x/a",
		"browser_web_vital_lcp=2600 needs_improvement http://x/a",
		"browser_web_vital_inp=48 good http://x/b",
		"browser_web_vital_cls=0 good http://x/b",
	}, got)
	require.Equal(t, 6, w.seen["a"], "a report of an unknown vital still counts toward the flush")
	require.Empty(t, w.docs)
}
