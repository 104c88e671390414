//go:build integration

package vitals

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/webvital"
)

// sample is one emitted Web Vital.
type sample struct {
	metric string
	value  float64
	tags   map[string]string
	at     time.Time
}

// recorder collects what Watch emits, the timed vitals back in milliseconds (the
// page's unit, and web.dev's thresholds').
type recorder struct {
	mu      sync.Mutex
	samples []sample
}

func (r *recorder) emit(metric string, value float64, tags map[string]string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := webvital.ByMetric(metric); ok && v.Timed {
		value *= 1000
	}
	r.samples = append(r.samples, sample{metric, value, tags, at})
}

// byMetric returns the samples of one url by metric, failing on a second sample of a
// metric: one per vital per page load.
func (r *recorder) byMetric(t *testing.T, url string) map[string]sample {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]sample{}
	for _, s := range r.samples {
		if s.tags[TagURL] != url {
			continue
		}
		_, dup := out[s.metric]
		require.False(t, dup, "second %s sample for %s", s.metric, url)
		out[s.metric] = s
		v, ok := webvital.ByMetric(s.metric)
		require.True(t, ok, s.metric)
		require.Equal(t, v.Rate(s.value), s.tags[TagRating], "%s %v", s.metric, s.value)
	}
	return out
}

const (
	viewportW = 800
	viewportH = 600
	// The box moves down by shiftPx; the union of its old and new places covers
	// boxPx+shiftPx of the viewport's height: CLS = impact × distance fraction.
	boxPx   = 300
	shiftPx = 150
	// The click handler's busy time: INP is at least this.
	busyMs = 250
	// The slow page's delay before its response starts: TTFB is at least this.
	slowMs = 300
)

func pages() http.Handler {
	mux := http.NewServeMux()
	// seen sets window.seen.<entry type> once the page's own observers saw an entry (for
	// LCP, the block #big): the test waits for it, since observers are called in the
	// order they observe and the watched script observes first, it saw the entry too.
	const seen = `window.seen = {};
new PerformanceObserver((l) => { for (const e of l.getEntries()) { if (e.element && e.element.id === 'big') window.seen.big = true; window.seen.lcp = true; } })
  .observe({ type: 'largest-contentful-paint', buffered: true });
new PerformanceObserver((l) => { if (l.getEntries().some((e) => e.duration >= 100)) window.seen.event = true; })
  .observe({ type: 'event', buffered: true, durationThreshold: 16 });
new PerformanceObserver(() => { window.seen.firstInput = true; }).observe({ type: 'first-input', buffered: true });`
	mux.HandleFunc("/large", func(w http.ResponseWriter, _ *http.Request) {
		// A heading paints first; a large text block, shown 150 ms after that paint, is the LCP.
		fmt.Fprint(w, `<!DOCTYPE html><html><body style="margin:0">
<h1 style="font-size:12px">Shop</h1>
<p id="big" style="display:none;font-size:40px;width:760px">`)
		for range 40 {
			fmt.Fprint(w, "The largest block of text on this page is its largest contentful paint. ")
		}
		fmt.Fprint(w, `</p><script>`+seen+`
new PerformanceObserver((l) => {
  if (l.getEntries().some((e) => e.name === 'first-contentful-paint')) {
    setTimeout(() => { document.getElementById('big').style.display = 'block'; }, 150);
  }
}).observe({ type: 'paint', buffered: true });</script></body></html>`)
	})
	mux.HandleFunc("/shift", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><html><body style="margin:0">
<div id="spacer"></div><div id="box" style="height:%dpx;background:#36c"></div>
<script>
window.addEventListener('load', () => setTimeout(() => {
  document.getElementById('spacer').style.height = '%dpx';
  requestAnimationFrame(() => requestAnimationFrame(() => { window.shifted = true; }));
}, 100));
</script></body></html>`, boxPx, shiftPx)
	})
	mux.HandleFunc("/click", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><html><body style="margin:0">
<button id="b" style="position:absolute;left:0;top:0;width:200px;height:100px">Buy</button>
<p id="out">0</p>
<script>`+seen+`
document.getElementById('b').addEventListener('click', () => {
  const until = performance.now() + %d;
  while (performance.now() < until) {}
  document.getElementById('out').textContent = 'bought';
});
</script></body></html>`, busyMs)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(slowMs * time.Millisecond)
		fmt.Fprint(w, `<!DOCTYPE html><html><body><p>Late, but here.</p><script>`+seen+`</script></body></html>`)
	})
	return mux
}

// TestIntegrationWatch loads pages in one real Chromium and checks each vital against
// what the page was built to do.
func TestIntegrationWatch(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	require.NoError(t, err, "install Debian's chromium package")
	srv := httptest.NewServer(pages())
	t.Cleanup(srv.Close)

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Flag("headless", "new"))...)
	t.Cleanup(cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	require.NoError(t, chromedp.Do(browserCtx)) // starts the browser, once

	// open makes a tab with a fixed viewport, watched from before its first navigation.
	open := func(t *testing.T) (context.Context, *recorder, func(context.Context) error) {
		t.Helper()
		tab, cancel := chromedp.NewContext(browserCtx)
		t.Cleanup(cancel)
		require.NoError(t, chromedp.Do(tab))
		_, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: viewportW, Height: viewportH, DeviceScaleFactor: 1})
		require.NoError(t, err)
		rec := &recorder{}
		flush, err := Watch(tab, rec.emit)
		require.NoError(t, err)
		return tab, rec, flush
	}
	flushed := func(t *testing.T, tab context.Context, flush func(context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		require.NoError(t, flush(ctx))
	}

	t.Run("nothing loaded", func(t *testing.T) {
		tab, rec, flush := open(t)
		flushed(t, tab, flush) // about:blank: the script never ran there
		rec.mu.Lock()
		defer rec.mu.Unlock()
		require.Empty(t, rec.samples)
	})

	t.Run("large text block", func(t *testing.T) {
		tab, rec, flush := open(t)
		start := time.Now()
		u := srv.URL + "/large"
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(u)))
		_, err := chromedp.Run(tab, chromedp.Poll[bool](`window.seen.big === true`))
		require.NoError(t, err)
		flushed(t, tab, flush)
		got := rec.byMetric(t, u)
		t.Logf("%v", got)
		for _, m := range []string{"browser_web_vital_lcp", "browser_web_vital_fcp", "browser_web_vital_ttfb", "browser_web_vital_cls"} {
			require.Contains(t, got, m)
			require.False(t, got[m].at.Before(start), m)
		}
		require.NotContains(t, got, "browser_web_vital_inp", "no interaction")
		require.NotContains(t, got, "browser_web_vital_fid", "no input")
		require.Positive(t, got["browser_web_vital_fcp"].value)
		require.GreaterOrEqual(t, got["browser_web_vital_lcp"].value, got["browser_web_vital_fcp"].value+150, "the large block shows 150 ms after the heading's paint")
		require.LessOrEqual(t, got["browser_web_vital_ttfb"].value, got["browser_web_vital_fcp"].value)
		require.Equal(t, webvital.Good, got["browser_web_vital_lcp"].tags[TagRating])
		require.InDelta(t, 0, got["browser_web_vital_cls"].value, 1e-9, "the block appears below the heading, nothing moves")
	})

	t.Run("layout shift", func(t *testing.T) {
		tab, rec, flush := open(t)
		u := srv.URL + "/shift"
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(u)))
		_, err := chromedp.Run(tab, chromedp.Poll[bool](`window.shifted === true`))
		require.NoError(t, err)
		flushed(t, tab, flush)
		got := rec.byMetric(t, u)
		// Impact: the box's old and new places, (box+shift)/height of the viewport's
		// area (it spans the width); distance: shift ÷ the viewport's larger side.
		want := float64(boxPx+shiftPx) / viewportH * float64(shiftPx) / viewportW
		require.Contains(t, got, "browser_web_vital_cls")
		require.InDelta(t, want, got["browser_web_vital_cls"].value, 0.005)
		require.Equal(t, webvital.NeedsImprovement, got["browser_web_vital_cls"].tags[TagRating])
	})

	t.Run("click", func(t *testing.T) {
		tab, rec, flush := open(t)
		u := srv.URL + "/click"
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(u)))
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			_, err := chromedp.Call(tab, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: 50, Y: 50, Button: input.MouseButtonLeft, ClickCount: 1})
			require.NoError(t, err)
		}
		_, err := chromedp.Run(tab, chromedp.Poll[bool](`window.seen.event === true && window.seen.firstInput === true`))
		require.NoError(t, err)
		flushed(t, tab, flush)
		got := rec.byMetric(t, u)
		t.Logf("%v", got)
		require.Contains(t, got, "browser_web_vital_fid")
		require.Contains(t, got, "browser_web_vital_inp")
		require.GreaterOrEqual(t, got["browser_web_vital_fid"].value, 0.0)
		require.Less(t, got["browser_web_vital_fid"].value, float64(busyMs), "the handler starts at once; its run is not the delay")
		require.GreaterOrEqual(t, got["browser_web_vital_inp"].value, float64(busyMs))
		require.Equal(t, webvital.NeedsImprovement, got["browser_web_vital_inp"].tags[TagRating])
	})

	t.Run("slow server and navigation away", func(t *testing.T) {
		tab, rec, flush := open(t)
		u := srv.URL + "/slow"
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(u)))
		_, err := chromedp.Run(tab, chromedp.Poll[bool](`window.seen.lcp === true`))
		require.NoError(t, err)
		// Leaving the page reports its pending vitals without a flush.
		next := srv.URL + "/large"
		require.NoError(t, chromedp.Do(tab, chromedp.Navigate(next)))
		flushed(t, tab, flush)
		got := rec.byMetric(t, u)
		require.Contains(t, got, "browser_web_vital_ttfb")
		require.GreaterOrEqual(t, got["browser_web_vital_ttfb"].value, float64(slowMs))
		require.Contains(t, got, "browser_web_vital_lcp", "reported when the page was left")
		require.GreaterOrEqual(t, got["browser_web_vital_lcp"].value, got["browser_web_vital_ttfb"].value)
		require.Contains(t, rec.byMetric(t, next), "browser_web_vital_ttfb")
	})
}
