package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// pssKiB is the proportional set size of pid in KiB (its resident memory with the
// pages it shares divided among their users; 0 when it is gone).
func pssKiB(pid int) int {
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}

// BenchmarkBrowserPages: one browser VU's iterations as k6 runs them (a new context
// and page, goto the target's news page, read its title; the context closes at the end
// of the iteration). It reports pages per second and the resident memory of the VU's
// browser processes (Chromium and its renderers, summed; shared pages counted in each).
func BenchmarkBrowserPages(b *testing.B) {
	_, base := targettest.Start(b, target.Config{})
	h := modulestest.Start(b, script(base, `
export default async function () {
	const page = await browser.newPage();
	await page.goto(BASE + '/news.php');
	check(await page.title(), { 'title': (t) => t === 'In the news' });
}
`))
	vu := h.VUs(b, 1)[0]
	defer closeVU(vu)
	require.True(b, vu.Iterate(context.Background()), "warm-up iteration")
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if !vu.Iterate(context.Background()) {
			b.Fatal("an iteration failed")
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
	total := 0
	for _, p := range descendants(b, os.Getpid(), "chromium") {
		total += pssKiB(p)
	}
	b.ReportMetric(float64(total)/1024, "browser_MiB/VU")
	require.NoError(b, h.Runner.Err())
}
