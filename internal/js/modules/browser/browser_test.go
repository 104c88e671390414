package browser_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js"
	k6browser "github.com/tidemark/tidemark/internal/js/modules/browser"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// browserOptions is the scenario a browser script needs.
const browserOptions = `export const options = { scenarios: { ui: { executor: 'shared-iterations', options: { browser: { type: 'chromium' } } } } };
`

// script is a browser script against the target at base.
func script(base, body string) map[string]string {
	return map[string]string{"script.js": "import { browser, devices } from 'k6/browser';\nimport { check } from 'k6';\n" + browserOptions +
		"const BASE = '" + base + "';\n" + body}
}

// iterate runs one iteration of files in one VU and returns whether it completed and
// what the run logged.
func iterate(t *testing.T, files map[string]string) (*modulestest.Harness, bool, string) {
	t.Helper()
	logs := &modulestest.LogBuffer{}
	h := modulestest.Start(t, files, modulestest.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	vus := h.VUs(t, 1)
	ok := vus[0].Iterate(context.Background())
	require.NoError(t, h.Runner.Err())
	closeVU(vus[0])
	return h, ok, logs.String()
}

// closeVU closes the VU as the executor does at the end of its scenario.
func closeVU(vu any) {
	if c, ok := vu.(interface{ Close() }); ok {
		c.Close()
	}
}

// TestBrowserPage drives one page of the target's browser test page through most of
// the API, in one browser.
func TestBrowserPage(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	shot := filepath.Join(t.TempDir(), "shots", "page.png")
	h, ok, logs := iterate(t, script(base, `
const SHOT = '`+shot+`';
export default async function () {
	check(browser.context(), { 'no context before newPage': (c) => c === null });
	const page = await browser.newPage();
	check(browser.context(), { 'newPage made the context': (c) => c !== null && c.pages().length === 1 });
	let busy = '';
	try { await browser.newContext(); } catch (e) { busy = String(e); }
	check(busy, { 'one context at a time': (m) => m.includes('existing browser context must be closed') });
	check(browser.isConnected(), { 'connected': (v) => v === true });
	check(browser.version(), { 'version': (v) => /^\d+\.\d+/.test(v) });
	const res = await page.goto(BASE + '/browser.php', { waitUntil: 'networkidle' });
	check(res, { 'goto status': (r) => r.status() === 200 && r.ok() && r.url() === BASE + '/browser.php' });
	check(await res.headerValue('content-type'), { 'response header': (v) => v.startsWith('text/html') });
	check(await page.title(), { 'title': (t) => t === 'Browser test page' });
	check(page.url(), { 'url': (u) => u === BASE + '/browser.php' });
	check(await page.content(), { 'content': (c) => c.includes('<h1>Browser test page</h1>') });

	const text = page.locator('#text1');
	await text.fill('hello');
	check(await text.inputValue(), { 'locator.fill': (v) => v === 'hello' });
	await text.clear();
	await text.type('typed!');
	check(await text.inputValue(), { 'locator.type': (v) => v === 'typed!' });
	await text.press('Backspace');
	check(await text.inputValue(), { 'locator.press': (v) => v === 'typed' });
	await page.fill('#text1', 'shortcut');
	check(await page.inputValue('#text1'), { 'page.fill': (v) => v === 'shortcut' });

	const box = page.locator('#checkbox1');
	await box.check();
	check(await box.isChecked(), { 'locator.check': (v) => v === true });
	await box.uncheck();
	check(await box.isChecked(), { 'locator.uncheck': (v) => v === false });
	await page.check('#checkbox1');
	check(await page.isChecked('#checkbox1'), { 'page.check': (v) => v === true });

	const sel = page.locator('#numbers-options');
	check(await sel.selectOption('two'), { 'selectOption returns values': (v) => v.length === 1 && v[0] === 'two' });
	check(await sel.inputValue(), { 'selectOption by value': (v) => v === 'two' });
	await sel.selectOption({ label: 'One' });
	check(await sel.inputValue(), { 'selectOption by label': (v) => v === 'one' });

	check(await page.locator('h1').textContent(), { 'textContent': (v) => v === 'Browser test page' });
	check(await page.locator('#counter-display').innerText(), { 'innerText': (v) => v === 'Counter: 0' });
	check(await page.locator('#browser-form').innerHTML(), { 'innerHTML': (v) => v.includes('id="text1"') });
	check(await page.locator('#text1').getAttribute('name'), { 'getAttribute': (v) => v === 'text1' });
	check(await page.locator('h1').isVisible(), { 'isVisible': (v) => v === true });
	check(await page.locator('#nothing').isHidden(), { 'isHidden of a missing element': (v) => v === true });
	check(await page.locator('#text1').isEnabled(), { 'isEnabled': (v) => v === true });
	check(await page.locator('a').count(), { 'count': (n) => n === 1 });
	check(await page.getByRole('button', { name: 'Click to increase the counter' }).count(), { 'getByRole': (n) => n === 1 });
	check(await page.getByText('Browser test page', { exact: true }).textContent(), { 'getByText': (v) => v === 'Browser test page' });
	check(await page.getByLabel('Text').inputValue(), { 'getByLabel': (v) => v === 'shortcut' });
	check(await page.locator('//h1').textContent(), { 'xpath selector': (v) => v === 'Browser test page' });
	check(await page.locator('option').nth(2).textContent(), { 'nth': (v) => v === 'Two' });
	check(await page.locator('option').last().getAttribute('value'), { 'last': (v) => v === 'two' });
	check(await page.locator('option').filter({ hasText: 'One' }).getAttribute('value'), { 'filter hasText': (v) => v === 'one' });
	const h1 = await page.$('h1');
	check(await h1.textContent(), { 'page.$': (v) => v === 'Browser test page' });
	check((await page.$$('option')).length, { 'page.$$': (n) => n === 3 });
	check(await page.$('#nothing'), { 'page.$ of nothing': (v) => v === null });
	const found = await page.waitForSelector('#counter-button');
	check(await found.isVisible(), { 'waitForSelector': (v) => v === true });
	let strict = '';
	try { await page.locator('option').textContent({ timeout: 500 }); } catch (e) { strict = String(e); }
	check(strict, { 'strict mode': (m) => m.includes('strict mode violation') });
	let late = '';
	try { await page.locator('#never').click({ timeout: 300 }); } catch (e) { late = String(e); }
	check(late, { 'action timeout': (m) => m.includes('timeout 300ms exceeded') });

	check(await page.evaluate((a, b) => a + b, 2, 3), { 'evaluate with args': (v) => v === 5 });
	check(await page.evaluate('document.title'), { 'evaluate a string': (v) => v === 'Browser test page' });
	check(await page.evaluate(() => Promise.resolve({ a: [1, 'x'] })), { 'evaluate awaits': (v) => v.a[1] === 'x' });
	check(await page.evaluate(() => ''), { 'evaluate empty string': (v) => v === '' });
	let thrown = null;
	try { await page.evaluate(() => { throw new TypeError('bad thing'); }); } catch (e) { thrown = e; }
	check(thrown, { 'evaluate exception is a JS error': (e) => e instanceof TypeError && e.message === 'bad thing' });
	const handle = await page.evaluateHandle(() => ({ n: 41 }));
	check(await handle.evaluate((o, d) => o.n + d, 1), { 'JSHandle.evaluate': (v) => v === 42 });
	check(await handle.jsonValue(), { 'JSHandle.jsonValue': (v) => v.n === 41 });

	await page.waitForTimeout(10);
	await page.waitForLoadState('load');
	await page.waitForFunction(() => document.readyState === 'complete');

	await page.setContent('<input id="k"><div id="area" style="width:300px;height:200px"></div><script>' +
		'window.__log = []; const a = document.getElementById("area");' +
		'["mousedown", "mouseup", "click", "dblclick"].forEach((t) => a.addEventListener(t, (e) => __log.push(t + "@" + e.clientX + "," + e.clientY)));' +
		'document.addEventListener("keydown", (e) => __log.push("keydown:" + e.key + (e.shiftKey ? "+shift" : "")));' +
		'</script>');
	check(await page.locator('#k').count(), { 'setContent': (n) => n === 1 });
	await page.locator('#k').focus();
	await page.keyboard.type('ab');
	await page.keyboard.press('Shift+C');
	await page.keyboard.insertText('é');
	await page.keyboard.down('x');
	await page.keyboard.up('x');
	check(await page.inputValue('#k'), { 'keyboard': (v) => v === 'abCéx' });
	await page.mouse.move(40, 40);
	await page.mouse.click(50, 60);
	await page.mouse.dblclick(70, 80);
	await page.mouse.down();
	await page.mouse.up();
	const log = await page.evaluate(() => window.__log.join(' '));
	check(log, {
		'keyboard events': (l) => l.includes('keydown:a keydown:b keydown:Shift+shift keydown:C+shift'),
		'mouse.click': (l) => l.includes('mousedown@50,60 mouseup@50,60 click@50,60'),
		'mouse.dblclick': (l) => l.includes('click@70,80 mousedown@70,80 mouseup@70,80 click@70,80 dblclick@70,80'),
		'mouse.down and up': (l) => l.endsWith('mousedown@70,80 mouseup@70,80 click@70,80'),
	});
	await page.locator('#area').dblclick();
	check(await page.evaluate(() => window.__log[window.__log.length - 1]), { 'locator.dblclick': (l) => l.startsWith('dblclick@') });

	await page.setContent('<button id="hov" onmouseover="this.textContent = \'hovered\'">hover me</button>' +
		'<input id="f" placeholder="Your name" data-testid="name"><div id="later" style="display:none">later</div>' +
		'<iframe srcdoc="<p id=inner>in frame</p>"></iframe><input type="file" id="up" multiple>');
	await page.setInputFiles('#up', [{ name: 'a.txt', mimeType: 'text/plain', buffer: new Uint8Array([104, 105]).buffer }]);
	check(await page.evaluate(() => { const f = document.getElementById('up').files[0]; return f.text().then((t) => f.name + ':' + t); }),
		{ 'setInputFiles': (v) => v === 'a.txt:hi' });
	await page.locator('#hov').hover();
	check(await page.locator('#hov').textContent(), { 'locator.hover': (t) => t === 'hovered' });
	await page.getByPlaceholder('Your name').focus();
	check(await page.evaluate(() => document.activeElement.id), { 'locator.focus, getByPlaceholder': (id) => id === 'f' });
	check(await page.getByTestId('name').getAttribute('id'), { 'getByTestId': (id) => id === 'f' });
	await page.locator('#later').waitFor({ state: 'hidden' });
	await page.locator('#later').waitFor({ state: 'attached' });
	const shown = page.locator('#later').waitFor({ state: 'visible' });
	await page.evaluate(() => setTimeout(() => { document.getElementById('later').style.display = 'block'; }, 100));
	await shown;
	check(await page.locator('#later').isVisible(), { 'waitFor visible': (v) => v === true });
	const gone = page.locator('#later').waitFor({ state: 'detached' });
	await page.evaluate(() => setTimeout(() => document.getElementById('later').remove(), 100));
	await gone;
	check(await page.locator('#later').count(), { 'waitFor detached': (n) => n === 0 });
	const input = await page.$('#f');
	await input.fill('from a handle');
	check(await input.inputValue(), { 'elementHandle.fill': (v) => v === 'from a handle' });
	await input.click();
	check(await page.locator('iframe').contentFrame().locator('#inner').textContent(), { 'frame locator': (t) => t === 'in frame' });

	const img = await page.screenshot({ path: SHOT, fullPage: true });
	check(img, { 'screenshot bytes': (b) => b.byteLength > 1000 });

	const reloaded = await page.goto(BASE + '/news.php', { waitUntil: 'domcontentloaded' });
	check(reloaded.status(), { 'goto domcontentloaded': (s) => s === 200 });
	await page.evaluate(() => { window.__mark = 1; });
	const again = await page.reload();
	check(await page.evaluate(() => window.__mark === undefined), { 'reload': (v) => v === true && again.status() === 200 });
	browser.context().setDefaultNavigationTimeout(400);
	let slow = '';
	try { await page.goto(BASE + '/?delay=30s'); } catch (e) { slow = String(e); }
	check(slow, { 'context navigation timeout': (m) => m.includes('timed out after 400ms') });

	await page.close();
	check(page.isClosed(), { 'isClosed': (v) => v === true });
	await browser.closeContext();
	check(browser.context(), { 'closeContext': (c) => c === null });
}
`))
	require.True(t, ok, logs)
	h.RequireChecks(t, 69)
	png, err := os.ReadFile(shot)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(png), "\x89PNG"), "the screenshot is a PNG")
}

// docsExample is k6's documented browser example (log in through a form, wait for the
// navigation, check the header), pointed at the target's test.k6.io pages, with
// thresholds on the browser metrics.
const docsExample = `import { browser } from 'k6/browser';
import { check } from 'k6';

export const options = {
  scenarios: {
    ui: {
      executor: 'shared-iterations',
      options: {
        browser: {
          type: 'chromium',
        },
      },
    },
  },
  thresholds: {
    checks: ['rate==1.0'],
    browser_http_req_duration: ['p(95)<5000'],
    browser_http_req_failed: ['rate<0.5'],
    browser_web_vital_lcp: ['p(95)<2500'],
  },
};

export default async function () {
  const context = await browser.newContext();
  const page = await context.newPage();

  try {
    await page.goto(__ENV.BASE + '/my_messages.php');

    await page.locator('input[name="login"]').type('admin');
    await page.locator('input[name="password"]').type('123');

    await Promise.all([
      page.waitForNavigation(),
      page.locator('input[type="submit"]').click(),
    ]);

    const header = await page.locator('h2').textContent();
    check(header, {
      header: (h) => h == 'Welcome, admin!',
    });
    const cookies = await context.cookies();
    check(cookies, {
      'login cookie': (c) => c.length === 1 && c[0].name === 'tk6_user' && c[0].value === 'admin',
    });
  } finally {
    await page.close();
  }
}
`

// TestBrowserDocsExample runs k6's documented example as ` + "`tidemark run`" + ` does:
// the checks pass, the browser metrics are in the summary's BROWSER block, pass their
// thresholds and become k6's series with k6's tags.
func TestBrowserDocsExample(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": docsExample})
	// A Watch as the Web Vitals measurement plugs in: one LCP per page, before it
	// navigates.
	watch := func(_ context.Context, emit func(string, float64, map[string]string, time.Time)) (func(context.Context) error, error) {
		emit("browser_web_vital_lcp", 1.2, map[string]string{"rating": "good"}, time.Now())
		return func(context.Context) error { return nil }, nil
	}
	reg := js.DefaultModules()
	reg.Replace("k6/browser", k6browser.NewWith(k6browser.Options{Watch: watch}))
	out := modulestest.RunTest(t, filepath.Join(dir, "script.js"), map[string]string{"BASE": base}, modulestest.WithModules(reg))
	require.NoError(t, out.Err, out.Summary)
	require.Regexp(t, `checks_succeeded\.+: 100\.00% 2 out of 2`, out.Summary)
	require.Contains(t, out.Summary, "BROWSER")
	require.Regexp(t, `✓ 'p\(95\)<5000' p\(95\)=`, out.Summary)
	require.Regexp(t, `browser_data_received\.+: \d`, out.Summary)
	require.Regexp(t, `browser_http_req_failed\.+: 0\.00% +0 out of \d`, out.Summary)
	docs := map[string]bool{}
	for _, s := range out.Named("k6_browser_http_req_duration_p95") {
		l := map[string]string{}
		for _, x := range s.Labels {
			l[x.Name] = x.Value
		}
		require.Equal(t, "ui", l["scenario"])
		require.Equal(t, "200", l["status"])
		require.Equal(t, l["url"], l["name"])
		if l["resource_type"] == "Document" {
			docs[l["method"]+" "+l["url"]] = true
		}
	}
	require.Equal(t, map[string]bool{"GET " + base + "/my_messages.php": true, "POST " + base + "/login.php": true}, docs)
	require.NotEmpty(t, out.Named("k6_browser_data_sent_total"))
	require.Contains(t, out.Summary, "WEB VITALS")
	require.Regexp(t, `✓ 'p\(95\)<2500' p\(95\)=1\.2s`, out.Summary)
	lcp := out.Named("k6_browser_web_vital_lcp_p95")
	require.Len(t, lcp, 1)
	require.Contains(t, lcp[0].Labels, series.Label{Name: "rating", Value: "good"})
	require.Contains(t, lcp[0].Labels, series.Label{Name: "scenario", Value: "ui"})
}

// TestBrowserErrors: k6's errors for a scenario without the browser option and for a
// page that never loads; the browser context is closed at the end of each iteration.
func TestBrowserErrors(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	t.Run("no browser option", func(t *testing.T) {
		t.Parallel()
		_, ok, logs := iterate(t, map[string]string{"script.js": `import { browser } from 'k6/browser';
export default async function () {
	await browser.newPage();
}
`})
		require.False(t, ok)
		require.Contains(t, logs, `Uncaught (in promise) Error: browser not found in registry. make sure to set browser type option in scenario definition in order to use the browser module`)
	})
	t.Run("no chromium", func(t *testing.T) {
		t.Parallel()
		reg := js.DefaultModules()
		reg.Replace("k6/browser", k6browser.NewWith(k6browser.Options{Lookup: func(k string) (string, bool) {
			if k == "K6_BROWSER_EXECUTABLE_PATH" {
				return "/nonexistent/chromium", true
			}
			return "", false
		}}))
		logs := &modulestest.LogBuffer{}
		h := modulestest.Start(t, script(base, "export default async function () { await browser.newPage(); }\n"),
			modulestest.WithModules(reg), modulestest.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
		require.False(t, h.VUs(t, 1)[0].Iterate(context.Background()))
		require.Contains(t, logs.String(), `K6_BROWSER_EXECUTABLE_PATH=\"/nonexistent/chromium\": stat /nonexistent/chromium: no such file or directory`)
	})
	t.Run("page never loads, connection refused", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		closed := "http://" + ln.Addr().String() + "/"
		require.NoError(t, ln.Close())
		logs := &modulestest.LogBuffer{}
		h := modulestest.Start(t, script(base, `
export default async function () {
	const page = await browser.newPage();
	if (__ITER === 0) {
		page.setDefaultNavigationTimeout(700);
		await page.goto(BASE + '/?delay=30s');
	} else {
		await page.goto('`+closed+`');
	}
}
`), modulestest.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
		vu := h.VUs(t, 1)[0]
		defer closeVU(vu)
		require.False(t, vu.Iterate(context.Background()))
		require.False(t, vu.Iterate(context.Background()))
		require.Contains(t, logs.String(), `Uncaught (in promise) Error: navigating to \"`+base+`/?delay=30s\": timed out after 700ms`)
		require.Contains(t, logs.String(), `Uncaught (in promise) Error: navigating frame to \"`+closed+`\": net::ERR_CONNECTION_REFUSED`)
	})
}

// TestBrowserIterations: each iteration starts without a browser context (the last
// one's is closed at its end), in the same browser.
func TestBrowserIterations(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	logs := &modulestest.LogBuffer{}
	h := modulestest.Start(t, script(base, `
export default async function () {
	check(browser.context(), { 'no context left from the last iteration': (c) => c === null });
	const context = await browser.newContext();
	const page = await context.newPage();
	await page.goto(BASE + '/news.php');
	await context.addCookies([{ name: 'a', value: 'b', url: BASE }, { name: 'n', value: 123456, domain: '127.0.0.1', path: '/' }]);
	check(await context.cookies(BASE), { 'addCookies': (c) => c.length === 2 && c[0].value === 'b' && c[1].value === '123456' });
	await context.clearCookies();
	check(await context.cookies(), { 'clearCookies': (c) => c.length === 0 });
	check(await page.locator('.article h2 a').first().textContent(), { 'news': (t) => t === 'k6 reaches 1.0' });
	const res = await page.goto(BASE + '/stats');
	check(await res.json(), { 'response.json': (j) => typeof j.requests === 'number' });
	check(new Uint8Array(await res.body())[0], { 'response.body': (b) => b === '{'.charCodeAt(0) });
	await context.grantPermissions(['geolocation']);
	await context.setGeolocation({ latitude: 59.95, longitude: 30.31 });
	const lat = await page.evaluate(() => new Promise((r) => navigator.geolocation.getCurrentPosition((p) => r(p.coords.latitude), (e) => r('error: ' + e.message))));
	check(lat, { 'grantPermissions, setGeolocation': (v) => v === 59.95 });
	await context.clearPermissions();
	await context.setOffline(true);
	check(await page.evaluate(() => navigator.onLine), { 'setOffline': (v) => v === false });
	await context.setOffline(false);
	const seen = [];
	page.on('console', (m) => seen.push(m.type() + ':' + m.text()));
	await page.evaluate(() => { console.log('hello', 42); console.error('bad'); });
	await page.title();
	check(seen.join('|'), { 'page.on console': (s) => s === 'log:hello 42|error:bad' });
	const [resp] = await Promise.all([page.waitForResponse(/\/contacts\.php$/), page.goto(BASE + '/contacts.php')]);
	check(resp, { 'waitForResponse': (r) => r.status() === 200 && r.url() === BASE + '/contacts.php' && r.request().method() === 'GET' });
	const [req] = await Promise.all([page.waitForRequest((r) => r.url().endsWith('/pi.php?decimals=3')), page.goto(BASE + '/pi.php?decimals=3')]);
	check(req, { 'waitForRequest': (r) => r.method() === 'GET' && r.resourceType() === 'document' });
	let never = '';
	try { await page.waitForResponse(BASE + '/never', { timeout: 200 }); } catch (e) { never = String(e); }
	check(never, { 'waitForResponse timeout': (m) => m.includes('timed out after 200ms') });
	const msg = page.waitForEvent('console', (m) => m.text().includes('second'));
	await page.evaluate(() => { console.log('first'); setTimeout(() => console.log('second'), 50); });
	check((await msg).text(), { 'page.waitForEvent console': (t) => t === 'second' });
	const opened = context.waitForEvent('page');
	const other = await context.newPage();
	check(await opened, { 'context.waitForEvent page': (p) => p === other });
	await other.close();
	await context.close();
	const phone = await browser.newContext(Object.assign({}, devices['iPhone X'], { locale: 'fr-FR', timezoneID: 'Asia/Tokyo', colorScheme: 'dark' }));
	const pp = await phone.newPage();
	await pp.goto(BASE + '/news.php');
	const env = await pp.evaluate(() => [screen.width, devicePixelRatio, navigator.userAgent.includes('iPhone'), navigator.maxTouchPoints > 0,
		Intl.DateTimeFormat().resolvedOptions().locale, Intl.DateTimeFormat().resolvedOptions().timeZone, matchMedia('(prefers-color-scheme: dark)').matches]);
	check(env, { 'newContext options (device, locale, timezone, color scheme)': (e) => JSON.stringify(e) === JSON.stringify([375, 3, true, true, 'fr-FR', 'Asia/Tokyo', true]) });
	await phone.close();
	const ctx2 = await browser.newContext();
	const page2 = await ctx2.newPage();
	const net = [];
	page2.on('request', (r) => net.push('request ' + r.method() + ' ' + r.url()));
	page2.on('response', (r) => net.push('response ' + r.status() + ' ' + r.url()));
	await page2.goto(BASE + '/flip_coin.php');
	check(net.join('|'), { 'page.on request and response': (s) => s.startsWith('request GET ' + BASE + '/flip_coin.php|response 200 ' + BASE + '/flip_coin.php') });
	page2.on('metric', (m) => m.tag({ name: 'pi', matches: [{ url: /\/pi\.php\?decimals=\d+$/, method: 'GET' }] }));
	await page2.goto(BASE + '/pi.php?decimals=5');
	await page2.goto(BASE + '/pi.php?decimals=7');
	await page2.route(/\/static\//, (r) => r.fulfill({ status: 200, contentType: 'text/plain', body: 'routed!' }));
	await page2.route('**/flip_coin.php', (r) => r.abort());
	check(await page2.evaluate(() => fetch('/static/x.css').then((r) => r.text())), { 'route.fulfill': (t) => t === 'routed!' });
	let aborted = '';
	try { await page2.goto(BASE + '/flip_coin.php'); } catch (e) { aborted = String(e); }
	check(aborted, { 'route.abort': (m) => m.includes('net::ERR_FAILED') });
	await page2.route(BASE + '/contacts.php', (r) => r.continue());
	check((await page2.goto(BASE + '/contacts.php')).status(), { 'route.continue': (s) => s === 200 });
	await page2.unrouteAll();
	check((await page2.goto(BASE + '/flip_coin.php')).status(), { 'unrouteAll': (s) => s === 200 });
}
`), modulestest.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	vu := h.VUs(t, 1)[0]
	defer closeVU(vu)
	for range 2 {
		// The executor's iteration contexts end with their iterations; the browser
		// outlives them.
		ctx, cancel := context.WithCancel(context.Background())
		require.True(t, vu.Iterate(ctx), logs.String())
		cancel()
	}
	require.NoError(t, h.Runner.Err())
	require.Equal(t, 1, strings.Count(logs.String(), "Browser launched"), "one browser for the VU's iterations")
	h.RequireChecks(t, 20)
	for _, s := range h.Collector.Of("checks") {
		require.Equal(t, 1.0, s.Value)
	}
	urls := map[string]int{}
	for _, s := range h.Collector.Of("browser_http_req_duration") {
		u, _ := s.Tags.Get("url")
		n, _ := s.Tags.Get("name")
		require.Equal(t, u, n)
		sc, _ := s.Tags.Get("scenario")
		require.Equal(t, "default", sc, "the VU's tags")
		urls[u]++
	}
	require.Equal(t, 4, urls["pi"], "page.on('metric') groups the two pi pages of each iteration")
	require.Equal(t, 2, urls[base+"/pi.php?decimals=3"], "before the handler")
}

// TestBrowserButtonTextAndNetworkProfiles covers what k6's fillform.js,
// route_continue.js and throttle.js need: getByText finds a button-like input by its
// value (test.k6.io's <input type="submit" value="Go!">) and no text in inline
// scripts and styles, and networkProfiles holds throttleNetwork's presets.
func TestBrowserButtonTextAndNetworkProfiles(t *testing.T) {
	t.Parallel()
	h, ok, logs := iterate(t, map[string]string{"script.js": `import { browser, networkProfiles } from 'k6/browser';
import { check } from 'k6';
` + browserOptions + `
export default async function () {
	const page = await browser.newPage();
	await page.setContent('<form><input type="submit" value="Go!"><input type="button" value="Stop"><input type="text" value="Stop"><p>Go! away</p></form>');
	check(await page.getByText('Go!', { exact: true }).getAttribute('type'), { 'submit input by its value': (v) => v === 'submit' });
	check(await page.getByText('Stop').getAttribute('type'), { 'button input by its value, not a text input': (v) => v === 'button' });
	await page.setContent('<main><script>const label = "Name: " + 1;</script><style>p::after { content: "Name:"; }</style><p>Other</p></main>');
	check(await page.getByText('Name:').count(), { 'no text in scripts and styles': (n) => n === 0 });
	check(await page.locator('main').filter({ hasText: 'Name:' }).count(), { 'hasText ignores scripts': (n) => n === 0 });
	await page.evaluate(() => document.querySelector('main').insertAdjacentHTML('beforeend', '<p>Name: Pie</p>'));
	check(await page.getByText('Name:').innerText(), { 'text of the element a user reads': (t) => t === 'Name: Pie' });
	check(networkProfiles['Slow 3G'], { 'Slow 3G': (p) => p.latency === 2000 && p.download === 50000 && p.upload === 50000 });
	check(networkProfiles['Fast 3G'], { 'Fast 3G': (p) => p.latency > 0 && p.download > networkProfiles['Slow 3G'].download });
	check(networkProfiles['No Throttling'], { 'No Throttling': (p) => p.latency === 0 && p.download === -1 && p.upload === -1 });
	await page.throttleNetwork(networkProfiles['Slow 3G']);
	await page.throttleNetwork(networkProfiles['No Throttling']);
	await page.close();
}
`})
	require.True(t, ok, logs)
	h.RequireChecks(t, 8)
}

// TestBrowserOpenedTabs: a tab a page opens (a ControlOrMeta click on a link, which
// opens it without an opener, and window.open) becomes a page of the context:
// context.waitForEvent('page') returns it, context.pages() lists it, and it loads,
// navigates and closes as any page.
func TestBrowserOpenedTabs(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	h, ok, logs := iterate(t, script(base, `
export default async function () {
	const context = browser.context() || await browser.newContext();
	const page = await context.newPage();
	await page.goto(BASE + '/test.k6.io/');
	await page.keyboard.down('ControlOrMeta');
	const [tab] = await Promise.all([context.waitForEvent('page'), page.locator('a[href="/my_messages.php"]').click()]);
	await page.keyboard.up('ControlOrMeta');
	await tab.waitForLoadState('load');
	check(tab.url(), { 'the modifier click opened the link in a new tab': (u) => u === BASE + '/my_messages.php' });
	check(page.url(), { 'the page itself stayed': (u) => u === BASE + '/test.k6.io/' });
	const [popup] = await Promise.all([context.waitForEvent('page'), page.evaluate(() => { window.open('/news.php'); })]);
	await popup.waitForLoadState();
	check(await popup.title(), { 'window.open gives a page that loaded': (t) => t !== '' });
	check(context.pages().length, { 'the context has the three pages': (n) => n === 3 });
	check((await page.screenshot()).byteLength, { 'a page behind the opened tabs is captured': (n) => n > 0 });
	check((await tab.screenshot()).byteLength, { 'so is an opened tab': (n) => n > 0 });
	await tab.close();
	check(context.pages().length, { 'a closed tab leaves the context': (n) => n === 2 });
	await popup.close();
	await page.close();
}
`))
	require.True(t, ok, logs)
	h.RequireChecks(t, 7)
}
