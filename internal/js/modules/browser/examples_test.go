package browser_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// TestHybridExample runs examples/hybrid/hybrid.js (the demo's hybrid test) briefly
// against the target, which serves both the protocol VUs' requests and the browser VU's
// page (whose image waits for the target): the requests and the pages are in one run,
// each tagged with its scenario, and every check passes.
func TestHybridExample(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	out := modulestest.RunTest(t, filepath.Join("..", "..", "..", "..", "examples", "hybrid", "hybrid.js"),
		map[string]string{"TARGET_URL": base, "PAGE_URL": base + target.PagePath, "STAGE_SECONDS": "1"})
	require.NoError(t, out.Err, out.Summary)
	require.NotEmpty(t, out.Named("k6_http_reqs_total"))
	scenarios := map[string]bool{}
	for _, s := range out.Named("k6_browser_http_req_duration_p95") {
		for _, l := range s.Labels {
			if l.Name == "scenario" {
				scenarios[l.Value] = true
			}
		}
	}
	require.Equal(t, map[string]bool{"page": true}, scenarios)
	require.Regexp(t, `checks_succeeded\.+: 100\.00%`, out.Summary)
}

// hostsScript maps a name that resolves nowhere to the target with k6's hosts option,
// and reaches it with k6/http and with the browser.
const hostsScript = `import http from 'k6/http';
import { browser } from 'k6/browser';
import { check } from 'k6';
export const options = {
  hosts: { 'tidemark.invalid': __ENV.ADDR },
  scenarios: { ui: { executor: 'shared-iterations', iterations: 1, options: { browser: { type: 'chromium' } } } },
};
export default async function () {
  check(http.get('http://tidemark.invalid/news.php'), { 'k6/http reaches the mapped address': (r) => r.status === 200 });
  const page = await browser.newPage();
  try {
    const res = await page.goto('http://tidemark.invalid/news.php');
    check(res, { 'the browser reaches it too': (r) => r.status() === 200 });
    check(await page.evaluate(() => location.host), { 'the page keeps its host name': (h) => h === 'tidemark.invalid' });
  } finally {
    await page.close();
  }
}
`

// TestHostsOption: k6's hosts option applies to k6/http's connections and, as
// Chromium's host resolver rules, to the browser's; neither changes the request's host.
func TestHostsOption(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": hostsScript})
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), map[string]string{"ADDR": strings.TrimPrefix(base, "http://")})
	require.NoError(t, out.Err, out.Summary)
	require.Regexp(t, `checks_succeeded\.+: 100\.00% 3 out of 3`, out.Summary)
}
