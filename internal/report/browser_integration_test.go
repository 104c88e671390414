//go:build integration

package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// artifactDir is where browser screenshots are kept after the test: $TIDEMARK_ARTIFACTS,
// or out/artifacts at the repository root.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TIDEMARK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "out", "artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// chromiumPath finds Debian's chromium; the test fails (never skips) without it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: install Debian's chromium package (make test does)")
	return ""
}

// OpenInBrowser renders a report file in headless Chromium and returns what a person
// would see: console errors, exceptions, and the page's structure.
type browserView struct {
	consoleErrors []string
	exceptions    []string
	svgCount      int
	tableCount    int
	factCount     int
	headings      []string
	figureWidth   float64
	screenshot    []byte
}

func openInBrowser(t *testing.T, path string) browserView {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.Flag("headless", "new"),
		chromedp.WindowSize(1280, 1800),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	var mu sync.Mutex
	var events []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				events = append(events, "console "+string(e.Type))
			}
		case *runtime.EventExceptionThrown:
			events = append(events, "exception "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				events = append(events, "log "+string(e.Entry.Level)+": "+e.Entry.Text)
			}
		}
	}))
	_, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, cdplog.Enable, cdp.Empty{})
	require.NoError(t, err)
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	var v browserView
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")))
	v.svgCount = evaluate[int](ctx, t, `document.querySelectorAll("figure svg").length`)
	v.tableCount = evaluate[int](ctx, t, `document.querySelectorAll("table").length`)
	v.factCount = evaluate[int](ctx, t, `document.querySelectorAll(".fact").length`)
	v.headings = evaluate[[]string](ctx, t, `Array.from(document.querySelectorAll("h2")).map(h => h.textContent)`)
	v.figureWidth = evaluate[float64](ctx, t, `document.querySelector("figure svg") ? document.querySelector("figure svg").getBoundingClientRect().width : 0`)
	v.screenshot, err = chromedp.Run(ctx, chromedp.FullScreenshot(90))
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if strings.HasPrefix(e, "exception ") {
			v.exceptions = append(v.exceptions, e)
		} else {
			v.consoleErrors = append(v.consoleErrors, e)
		}
	}
	return v
}

func TestIntegrationHTMLReportInChromium(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, WriteHTML(f, sampleDocument()))
	require.NoError(t, f.Close())

	v := openInBrowser(t, path)
	require.Empty(t, v.consoleErrors, "console errors")
	require.Empty(t, v.exceptions, "page exceptions")
	require.Equal(t, 1, v.svgCount, "the aligned chart figure renders")
	require.Greater(t, v.figureWidth, 600.0, "the figure is laid out at a readable width")
	require.Equal(t, 2, v.tableCount, "timeline and autoscaling tables")
	require.Equal(t, 2, v.factCount)
	require.Equal(t, []string{"Notes", "Key facts", "On one time axis", "Timeline", "Autoscaling"}, v.headings)
	require.NotEmpty(t, v.screenshot)
	require.NoError(t, os.WriteFile(filepath.Join(artifactDir(t), "report-sample.jpg"), v.screenshot, 0o644))
}

func evaluate[T any](ctx context.Context, t *testing.T, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, expr)
	return v
}

// TestIntegrationBrowserHarnessSeesErrors proves the check above can fail: a page with a
// console error, an exception and a missing resource is reported as such.
func TestIntegrationBrowserHarnessSeesErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "broken.html")
	require.NoError(t, os.WriteFile(p, []byte(`<!DOCTYPE html><html><body><img src="missing.png">`+
		`<script>console.error("boom"); throw new Error("bad")</script></body></html>`), 0o644))
	v := openInBrowser(t, p)
	require.Len(t, v.exceptions, 1)
	require.Len(t, v.consoleErrors, 2, "console.error and the failed image load")
}
