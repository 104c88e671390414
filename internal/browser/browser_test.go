package browser

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

type sample struct {
	metric string
	value  float64
	tags   map[string]string
}

// TestWatchAndNetworkMetrics: the Watch hook runs for a new page before it navigates,
// with the page's target context; what it emits and the network metrics reach Emit;
// its flush runs when the page closes; Close ends the process group.
func TestWatchAndNetworkMetrics(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	var mu sync.Mutex
	var got []sample
	emit := func(metric string, value float64, tags map[string]string, _ time.Time) {
		mu.Lock()
		got = append(got, sample{metric, value, tags})
		mu.Unlock()
	}
	var hrefAtWatch string
	flushed := 0
	watch := func(ctx context.Context, emit func(string, float64, map[string]string, time.Time)) (func(context.Context) error, error) {
		r, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "location.href", ReturnByValue: new(true)})
		if err != nil {
			return nil, err
		}
		hrefAtWatch = string(r.Result.Value)
		emit("browser_web_vital_ttfb", 0.5, map[string]string{"rating": "good"}, time.Now())
		return func(context.Context) error { flushed++; return nil }, nil
	}
	ctx := context.Background()
	b, err := Launch(ctx, DefaultConfig, Options{Emit: emit, Watch: watch})
	require.NoError(t, err)
	defer b.Close()
	require.Positive(t, b.PID())
	c, err := b.NewContext(ctx, ContextOptions{})
	require.NoError(t, err)
	p, err := c.NewPage(ctx)
	require.NoError(t, err)
	require.Equal(t, `"about:blank"`, hrefAtWatch)
	res, err := p.Goto(ctx, base+"/news.php", "load", 0)
	require.NoError(t, err)
	require.EqualValues(t, 200, res.Status)
	require.NoError(t, p.Close(ctx))
	require.Equal(t, 1, flushed)

	mu.Lock()
	byMetric := map[string][]sample{}
	for _, s := range got {
		byMetric[s.metric] = append(byMetric[s.metric], s)
	}
	mu.Unlock()
	require.Equal(t, []sample{{"browser_web_vital_ttfb", 0.5, map[string]string{"rating": "good"}}}, byMetric["browser_web_vital_ttfb"])
	var doc *sample
	for i, s := range byMetric["browser_http_req_duration"] {
		if s.tags["url"] == base+"/news.php" {
			doc = &byMetric["browser_http_req_duration"][i]
		}
	}
	require.NotNil(t, doc, "the document's request is measured")
	require.Equal(t, map[string]string{"url": base + "/news.php", "name": base + "/news.php", "method": "GET", "status": "200", "resource_type": "Document"}, doc.tags)
	require.Greater(t, doc.value, 0.0)
	require.Less(t, doc.value, 5.0)
	require.Len(t, byMetric["browser_http_req_failed"], len(byMetric["browser_http_req_duration"]))
	var received float64
	for _, s := range byMetric["browser_data_received"] {
		received += s.value
	}
	require.Greater(t, received, 500.0, "the news page's bytes")

	pid := b.PID()
	require.NoError(t, b.Close())
	require.False(t, b.Connected())
	require.Eventually(t, func() bool { return syscall.Kill(-pid, 0) != nil }, 5*time.Second, 20*time.Millisecond, "the process group is gone")
}
