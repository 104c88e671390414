package js_test

import (
	"net/url"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// webVitalsScript loads the target's page, whose largest content is an image that waits
// 400 ms for its backend, in a browser VU, and leaves it once a frame has been painted.
const webVitalsScript = `import { browser } from 'k6/browser';
export const options = {
  scenarios: { ui: { executor: 'shared-iterations', iterations: 1, options: { browser: { type: 'chromium' } } } },
  thresholds: {
    browser_web_vital_lcp: ['p(95)>0', 'p(95)<10000'],
    browser_web_vital_ttfb: ['p(95)<400'],
  },
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
`

// TestDefaultModulesMeasureWebVitals: with the default modules (no Watch injected by
// the test), a browser VU's page reports its Web Vitals in Tidemark's units: the
// summary's WEB VITALS block has browser_web_vital_lcp, above 0 and under 10 s (read in
// seconds as milliseconds, it would be minutes), TTFB under 400 ms (thresholds in
// milliseconds, as k6's), and its series carry the page's
// url, its rating and the scenario.
func TestDefaultModulesMeasureWebVitals(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	page := base + target.PagePath + "?" + url.Values{"backend": {base + "/orders/1?delay=400ms"}}.Encode()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": webVitalsScript})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), map[string]string{"PAGE_URL": page})
	require.NoError(t, out.Err, out.Summary)
	require.Contains(t, out.Summary, "WEB VITALS")
	require.Regexp(t, `browser_web_vital_lcp\.+: avg=\d+(\.\d+)?ms +min=`, out.Summary)
	require.Regexp(t, `✓ 'p\(95\)>0' p\(95\)=`, out.Summary)
	require.Regexp(t, `✓ 'p\(95\)<10000' p\(95\)=`, out.Summary)
	require.Regexp(t, `✓ 'p\(95\)<400' p\(95\)=`, out.Summary)
	lcp := out.Named("k6_browser_web_vital_lcp_p95")
	require.Len(t, lcp, 1, out.Summary)
	require.Contains(t, lcp[0].Labels, series.Label{Name: "scenario", Value: "ui"})
	require.Contains(t, lcp[0].Labels, series.Label{Name: "url", Value: page})
	require.Contains(t, lcp[0].Labels, series.Label{Name: "rating", Value: "good"})
}

// pendingCloseScript closes a page whose last navigation timed out and is still
// pending, where Chromium does not answer the Web Vitals flush.
const pendingCloseScript = `import { browser } from 'k6/browser';
import { check } from 'k6';
export const options = {
  scenarios: { ui: { executor: 'shared-iterations', iterations: 1, options: { browser: { type: 'chromium' } } } },
};
export default async function () {
  const page = await browser.newPage();
  await page.goto(__ENV.BASE + '/news.php');
  browser.context().setDefaultNavigationTimeout(400);
  let slow = '';
  try { await page.goto(__ENV.BASE + '/?delay=30s'); } catch (e) { slow = String(e); }
  check(slow, { 'navigation timed out': (m) => m.includes('timed out after 400ms') });
  const start = Date.now();
  await page.close();
  check(Date.now() - start, { 'closed within the flush timeout': (ms) => ms < 4000 });
}
`

// TestWebVitalsCloseDuringNavigation: page.close() on a page whose navigation is still
// pending resolves (its pending vitals unreported) instead of failing the iteration,
// and the page that loaded before it reported its TTFB.
func TestWebVitalsCloseDuringNavigation(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": pendingCloseScript})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), map[string]string{"BASE": base})
	require.NoError(t, out.Err, out.Summary)
	require.Regexp(t, `checks_succeeded\.+: 100\.00% 2 out of 2`, out.Summary)
	require.Regexp(t, `browser_web_vital_ttfb\.+: avg=`, out.Summary)
}
