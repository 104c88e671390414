package vitals

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"
)

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
		"browser_web_vital_ttfb=0.09 good http://x/a",
		"browser_web_vital_cls=0.3 poor http://x/a",
		"browser_web_vital_lcp=2.6 needs_improvement http://x/a",
		"browser_web_vital_inp=0.048 good http://x/b",
		"browser_web_vital_cls=0 good http://x/b",
	}, got)
	require.Equal(t, 6, w.seen["a"], "a report of an unknown vital still counts toward the flush")
	require.Empty(t, w.docs)
}

func TestWatchRefusesNilEmit(t *testing.T) {
	_, err := Watch(context.Background(), nil)
	require.EqualError(t, err, "watch web vitals: emit is nil")
}
