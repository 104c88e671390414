package browser_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// browserOptions is the scenario a browser script needs.
const browserOptions = `export const options = { scenarios: { ui: { executor: 'shared-iterations', options: { browser: { type: 'chromium' } } } } };
`

// script is a browser script against the target at base.
func script(base, body string) map[string]string {
	return map[string]string{"script.js": "import { browser } from 'k6/browser';\nimport { check } from 'k6';\n" + browserOptions +
		"const BASE = '" + base + "';\n" + body}
}

func TestBrowserPageBasics(t *testing.T) {
	_, base := targettest.Start(t, target.Config{})
	logs := &modulestest.LogBuffer{}
	h := modulestest.Start(t, script(base, `
export default async function () {
	const page = await browser.newPage();
	const res = await page.goto(BASE + '/browser.php');
	check(res, { 'status 200': (r) => r.status() === 200 });
	check(await page.title(), { 'title': (t) => t === 'Browser test page' });
	await page.locator('#text1').fill('hello');
	check(await page.locator('#text1').inputValue(), { 'fill': (v) => v === 'hello' });
	await page.locator('#checkbox1').check();
	check(await page.locator('#checkbox1').isChecked(), { 'check': (v) => v === true });
	await page.locator('#numbers-options').selectOption('two');
	check(await page.locator('#numbers-options').inputValue(), { 'select': (v) => v === 'two' });
	check(await page.evaluate((a, b) => a + b, 2, 3), { 'evaluate args': (v) => v === 5 });
	let msg = '';
	try { await page.evaluate(() => { throw new Error('boom'); }); } catch (e) { msg = String(e); }
	check(msg, { 'evaluate throws': (m) => m === 'Error: boom' });
	check(page.url(), { 'url': (u) => u === BASE + '/browser.php' });
	await page.close();
}
`), modulestest.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	vu := h.VUs(t, 1)[0]
	ok := vu.Iterate(context.Background())
	t.Log(logs.String())
	require.NoError(t, h.Runner.Err())
	require.True(t, ok)
	h.RequireChecks(t, 8)
	_ = strings.TrimSpace
}
