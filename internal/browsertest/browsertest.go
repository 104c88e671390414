// Package browsertest opens HTML files in a real headless Chromium for tests, the way a
// person would see them.
package browsertest

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

// repoRoot is the directory holding go.mod, above the test's working directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// ArtifactDir is where browser screenshots are kept after the test: $TIDEMARK_ARTIFACTS,
// or out/artifacts at the repository root.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TIDEMARK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "out", "artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// chromiumPath finds Debian's chromium; the test fails (never skips) without it.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: install Debian's chromium package (make test does)")
	return ""
}

// View is what a person would see of a page: console errors, exceptions, the page's
// structure and a full-page screenshot (JPEG).
type View struct {
	ConsoleErrors []string
	Exceptions    []string
	SVGCount      int
	TableCount    int
	FactCount     int
	Headings      []string
	FigureWidth   float64
	Screenshot    []byte
}

// Open renders the HTML file at path in headless Chromium (Debian's chromium package;
// the test fails without it) and returns what it shows.
func Open(t testing.TB, path string) View {
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
	var v View
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")))
	v.SVGCount = evaluate[int](ctx, t, `document.querySelectorAll("figure svg").length`)
	v.TableCount = evaluate[int](ctx, t, `document.querySelectorAll("table").length`)
	v.FactCount = evaluate[int](ctx, t, `document.querySelectorAll(".fact").length`)
	v.Headings = evaluate[[]string](ctx, t, `Array.from(document.querySelectorAll("h2")).map(h => h.textContent)`)
	v.FigureWidth = evaluate[float64](ctx, t, `document.querySelector("figure svg") ? document.querySelector("figure svg").getBoundingClientRect().width : 0`)
	v.Screenshot, err = chromedp.Run(ctx, chromedp.FullScreenshot(90))
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if strings.HasPrefix(e, "exception ") {
			v.Exceptions = append(v.Exceptions, e)
		} else {
			v.ConsoleErrors = append(v.ConsoleErrors, e)
		}
	}
	return v
}

func evaluate[T any](ctx context.Context, t testing.TB, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, expr)
	return v
}
