//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/browsertest"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// chromium is one headless Chromium tab that records console errors, exceptions and
// every network request the page makes.
type chromium struct {
	ctx      context.Context
	mu       sync.Mutex
	errs     []string
	requests []string
}

// newChromium starts Debian's chromium (the test fails without it). offline points
// every request but loopback at a closed proxy port, so nothing can be fetched from
// the network.
func newChromium(t *testing.T, offline bool) *chromium {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	require.NotEmpty(t, path, "no chromium on PATH: install Debian's chromium package (make test does)")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("headless", "new"), chromedp.WindowSize(1280, 1800))
	if offline {
		opts = append(opts, chromedp.ProxyServer("http://127.0.0.1:9"), chromedp.Flag("proxy-bypass-list", "<-loopback>"))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	c := &chromium{ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				c.errs = append(c.errs, "console "+string(e.Type))
			}
		case *runtime.EventExceptionThrown:
			c.errs = append(c.errs, "exception "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				c.errs = append(c.errs, "log "+string(e.Entry.Level)+": "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			c.requests = append(c.requests, e.Request.URL)
		}
	}))
	_, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, cdplog.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	return c
}

func (c *chromium) open(t *testing.T, url string) {
	t.Helper()
	require.NoError(t, chromedp.Do(c.ctx, chromedp.Navigate(url), chromedp.WaitReady("#figure")))
}

func (c *chromium) eval(t *testing.T, expr string) string {
	t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Evaluate[string](expr))
	require.NoError(t, err, expr)
	return v
}

// requestCount is the page's request count (the Requests card).
func (c *chromium) requestCount(t *testing.T) float64 {
	t.Helper()
	n, err := strconv.ParseFloat(c.eval(t, `document.getElementById("card-http_reqs").dataset.raw`), 64)
	require.NoError(t, err)
	return n
}

func (c *chromium) problems() ([]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errs...), append([]string(nil), c.requests...)
}

func (c *chromium) screenshot(t *testing.T, name string) {
	t.Helper()
	shot, err := chromedp.Run(c.ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(browsertest.ArtifactDir(t), name), shot, 0o644))
}

// TestIntegrationWebDashboardInChromium runs a 7 s test with --out web-dashboard, reads
// the live page in Chromium twice during the run (it renders, its request count grows,
// no console errors), then opens the exported file offline: it renders with the
// summary's request count and fetches nothing.
func TestIntegrationWebDashboardInChromium(t *testing.T) {
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, `
scenarios:
  ramp: { executor: ramping-vus, startVUs: 1, stages: [{duration: 3s, target: 3}, {duration: 4s, target: 3}] }
flow:
  - name: home
    url: `+url+`/
    sleep: 50ms
    checks:
      - name: is 200
        status: 200
`)
	dir := t.TempDir()
	export := filepath.Join(dir, "report.html")
	summaryFile := filepath.Join(dir, "summary.json")
	addr := freeAddress(t)
	host, port, _ := strings.Cut(addr, ":")
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"run", "--quiet", "--no-embedded-store", "--summary-export", summaryFile,
			"--out", "web-dashboard=host=" + host + "&port=" + port + "&export=" + export, file}, &stdout, &stderr)
	}()

	page := "http://" + addr + "/"
	require.Eventually(t, func() bool {
		resp, err := http.Get(page) //nolint:noctx // a probe
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 20*time.Second, 50*time.Millisecond, "the dashboard serves its page")

	live := newChromium(t, false)
	live.open(t, page)
	require.Eventually(t, func() bool { return live.requestCount(t) > 0 }, 10*time.Second, 100*time.Millisecond, "requests appear")
	first := live.requestCount(t)
	require.Eventually(t, func() bool { return live.requestCount(t) > first }, 10*time.Second, 100*time.Millisecond,
		"the request count grows during the run (server-sent events)")
	require.Equal(t, "running", live.eval(t, `document.getElementById("phase").textContent`))
	require.Equal(t, "1", live.eval(t, `String(document.querySelectorAll("#figure svg").length)`), "the charts render")
	require.Equal(t, "6", live.eval(t, `String(document.querySelectorAll(".fact").length)`), "the headline values render")
	require.Contains(t, live.eval(t, `document.getElementById("stages").textContent`), "ramp (ramping-vus): stage ")
	require.Contains(t, live.eval(t, `document.getElementById("figure").textContent`), "Request duration (http_req_duration)")
	live.screenshot(t, "webdash-live.png")

	select {
	case code := <-done:
		require.Equal(t, exitcode.OK, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end")
	}
	// The page saw the end of the run before the server stopped.
	require.Eventually(t, func() bool { return live.eval(t, `document.getElementById("phase").textContent`) == "finished" },
		5*time.Second, 50*time.Millisecond)
	errs, _ := live.problems()
	require.Empty(t, errs, "console errors on the live page")
	require.Contains(t, stdout.String(), "web dashboard: report written to "+export)

	ex := readExport(t, summaryFile)
	want := count(ex, "http_reqs")
	require.Positive(t, want)

	offline := newChromium(t, true)
	offline.open(t, "file://"+export)
	require.InDelta(t, want, offline.requestCount(t), 0, "the export shows the summary's request count")
	require.Equal(t, "finished", offline.eval(t, `document.getElementById("phase").textContent`))
	require.Equal(t, "1", offline.eval(t, `String(document.querySelectorAll("#figure svg").length)`))
	require.Equal(t, strconv.Itoa(int(want)), offline.eval(t, `document.querySelector("#card-http_reqs .value").textContent`))
	offline.screenshot(t, "webdash-export.png")
	errs, requests := offline.problems()
	require.Empty(t, errs, "console errors in the export")
	for _, u := range requests {
		require.True(t, strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "data:"), "the export fetched %s", u)
	}
}

func readExport(t *testing.T, path string) exported {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var ex exported
	require.NoError(t, json.Unmarshal(b, &ex))
	return ex
}

// TestIntegrationWebDashboardWebVitals: a browser VU's page puts its Web Vitals on the web
// dashboard (k6's shows them on its Browser tab): the export has the LCP, FCP and TTFB
// cards at p75 and the chart of their p75 over time.
func TestIntegrationWebDashboardWebVitals(t *testing.T) {
	t.Parallel()
	_, base := startTestTarget(t, target.Config{})
	dir := t.TempDir()
	script := filepath.Join(dir, "page.js")
	require.NoError(t, os.WriteFile(script, []byte(`import { browser } from 'k6/browser';
export const options = {
  scenarios: { ui: { executor: 'shared-iterations', iterations: 2, options: { browser: { type: 'chromium' } } } },
};
export default async function () {
  const page = await browser.newPage();
  try {
    await page.goto(__ENV.PAGE_URL, { waitUntil: 'load' });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  } finally {
    await page.close();
  }
}
`), 0o600))
	export := filepath.Join(dir, "dashboard.html")
	var stdout, stderr bytes.Buffer
	page := base + target.PagePath + "?" + url.Values{"backend": {base + "/orders/1"}}.Encode()
	code := run([]string{"run", "--no-embedded-store", "-e", "PAGE_URL=" + page,
		"--out", "web-dashboard=port=-1&export=" + export, script}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	b, err := os.ReadFile(export)
	require.NoError(t, err)
	for _, id := range []string{"browser_web_vital_lcp", "browser_web_vital_fcp", "browser_web_vital_ttfb"} {
		require.True(t, bytes.Contains(b, []byte(`id="card-`+id+`"`)), "no %s card in the export; the summary:\n%s", id, stdout.String())
	}
	require.True(t, bytes.Contains(b, []byte("Web Vitals p75 (browser VUs)")), "no Web Vitals chart in the export")
}
