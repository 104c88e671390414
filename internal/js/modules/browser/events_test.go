package browser_test

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// TestBrowserEventsWhenTheyHappen: the page's event handlers and route handlers run
// on the VU's event loop when their events happen, while the script awaits a timer
// (no browser call pending); requestfinished and requestfailed carry the request's
// response and failure.
func TestBrowserEventsWhenTheyHappen(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	refused := "http://127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/"
	h, ok, logs := iterate(t, script(base, `
const REFUSED = '`+refused+`';
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const until = async (ok) => { for (let i = 0; i < 250 && !ok(); i++) await pause(20); };
export default async function () {
	const page = await browser.newPage();
	await page.goto(BASE + '/browser.php');
	const t0 = Date.now();
	let late = -1;
	let fetched = '';
	page.on('console', (m) => {
		if (m.text() === 'late') late = Date.now() - t0;
		if (m.text().startsWith('fetched ')) fetched = m.text();
	});
	await page.evaluate(() => { setTimeout(() => console.log('late'), 100); });
	await pause(1500);
	check(late, { 'console handler runs while the script awaits a timer': (v) => v >= 50 && v < 1400 });

	await page.route('**/routed-later', (r) => r.fulfill({ status: 200, body: 'from the route' }));
	await page.evaluate(() => { setTimeout(() => fetch('/routed-later').then((r) => r.text()).then((t) => console.log('fetched ' + t)), 100); });
	await pause(1500);
	check(fetched, { 'route fulfils while the script awaits a timer': (v) => v === 'fetched from the route' });

	const requests = [], finished = [], failed = [];
	page.on('request', (r) => requests.push(r.method() + ' ' + r.url()));
	let timing = null, sizes = null;
	page.on('requestfinished', async (r) => {
		const res = await r.response();
		finished.push(r.method() + ' ' + r.url() + ' ' + (res && res.status()) + ' ' + r.failure());
		if (r.url() === BASE + '/news.php') { timing = r.timing(); sizes = [await r.size(), await res.size()]; }
	});
	page.on('requestfailed', (r) => failed.push(r.url() + ' ' + r.failure().errorText));
	const res = await page.goto(BASE + '/news.php');
	const nav = res.request().timing();
	check(nav, { 'request.timing': (t) => Math.abs(t.startTime - Date.now()) < 60000 && t.requestStart >= 0 && t.responseStart >= t.requestStart });
	const waited = page.waitForEvent('response', (r) => r.url().endsWith('/contacts.php'));
	await page.evaluate(() => fetch('/contacts.php').then((r) => r.text()));
	check((await waited).status(), { 'page.waitForEvent response': (s) => s === 200 });
	const posted = page.waitForEvent('request', (r) => r.method() === 'POST');
	await page.evaluate(() => fetch('/echo-post', { method: 'POST', body: 'héllo=1' }).then((r) => r.text()));
	check((await posted).postData(), { 'request.postData': (d) => d === 'héllo=1' });
	const ua = await res.request().headerValue('user-agent');
	check(ua, { 'response.request has its headers': (v) => typeof v === 'string' && v.length > 0 });
	await page.route('**/abort-me', (r) => r.abort('connectionreset'));
	check(await page.evaluate(() => fetch('/abort-me').then(() => 'ok', () => 'failed')), { 'the page sees the abort': (v) => v === 'failed' });
	let err = '';
	try { await page.goto(REFUSED); } catch (e) { err = String(e); }
	await until(() => failed.length === 2 && finished.some((x) => x.includes('/news.php')));
	check(requests, { 'page.on request': (l) => l.includes('GET ' + BASE + '/news.php') && l.includes('GET ' + REFUSED) });
	check(sizes, { 'request.size and response.size': (z) => z !== null && z[0].headers > 50 && z[0].body === 0 && z[1].headers > 50 && z[1].body > 100 });
	check(timing, { 'requestfinished timing has responseEnd': (t) => t !== null && t.responseEnd >= t.responseStart && t.responseStart > 0 });
	check(finished, { 'page.on requestfinished': (l) => l.includes('GET ' + BASE + '/news.php 200 null') && !l.some((x) => x.includes(REFUSED)) });
	check(failed, {
		'page.on requestfailed': (l) => err.includes('ERR_CONNECTION_REFUSED') && l.includes(REFUSED + ' net::ERR_CONNECTION_REFUSED'),
		'route.abort fails the request with its code': (l) => l.includes(BASE + '/abort-me net::ERR_CONNECTION_RESET'),
	});
	// A metric handler runs for each request's metrics: this one names them only
	// while tagging is on.
	let tagging = true, calls = 0;
	page.on('metric', (m) => { calls++; if (tagging) m.tag({ name: 'news', matches: [{ url: /\/news\.php$/, method: 'GET' }] }); });
	await page.goto(BASE + '/news.php');
	await until(() => calls > 0);
	tagging = false;
	const before = calls;
	await page.goto(BASE + '/news.php');
	await until(() => calls > before);
	check(calls, { 'page.on metric runs for each request': (n) => n > before });
	let unknown = '';
	try { page.on('worker', () => {}); } catch (e) { unknown = String(e); }
	check(unknown, { 'an event k6 does not document': (m) => m.includes("page.on('worker'): not supported") });
}
`))
	require.True(t, ok, logs)
	h.RequireChecks(t, 15)
	for _, s := range h.Collector.Of("checks") {
		name, _ := s.Tags.Get("check")
		require.Equal(t, 1.0, s.Value, name)
	}
	urls := map[string]int{}
	for _, s := range h.Collector.Of("browser_http_req_duration") {
		u, _ := s.Tags.Get("url")
		n, _ := s.Tags.Get("name")
		require.Equal(t, u, n)
		urls[u]++
	}
	require.Equal(t, 1, urls["news"], "the metric handler named the news page it tagged")
	require.Equal(t, 2, urls[base+"/news.php"], "before the handler and after it stopped tagging")
}

// TestBrowserFramesWorkersAndTLS: page.frames() has the child frames (url, name,
// parentFrame, childFrames, evaluate and selectors in them), page.workers() the
// page's workers, a response its server's address and, over TLS, its security
// details; httpCredentials answer basic authentication; browser_data_sent counts the
// headers as sent (the cookies included).
func TestBrowserFramesWorkersAndTLS(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/private" {
			if u, p, ok := r.BasicAuth(); !ok || u != "ann" || p != "secret" {
				w.Header().Set("WWW-Authenticate", `Basic realm="tidemark"`)
				http.Error(w, "who are you?", http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte("<title>private</title>welcome"))
			return
		}
		_, _ = w.Write([]byte("<title>tls</title>hello"))
	}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // Chromium's handshakes before it ignores the certificate
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	tlsPort := tlsSrv.Listener.Addr().(*net.TCPAddr).Port
	h, ok, logs := iterate(t, script(base, `
const TLS = '`+tlsSrv.URL+`';
export default async function () {
	const context = await browser.newContext({ ignoreHTTPSErrors: true, httpCredentials: { username: 'ann', password: 'secret' }, screen: { width: 1000, height: 700 } });
	const page = await context.newPage();
	await context.addCookies([{ name: 'big', value: 'x'.repeat(3000), url: BASE }]);
	const res = await page.goto(BASE + '/browser.php');
	check(await res.serverAddr(), { 'response.serverAddr': (a) => a.ipAddress === '127.0.0.1' && a.port === Number(BASE.split(':')[2]) });
	check(await res.securityDetails(), { 'no securityDetails over HTTP': (d) => d === null });
	check(await page.evaluate(() => [screen.width, screen.height]), { 'newContext screen': (s) => s[0] === 1000 && s[1] === 700 });

	await page.setContent('<iframe name="news" src="' + BASE + '/news.php"></iframe>' +
		'<iframe name="outer" srcdoc="<iframe name=inner srcdoc=&quot;<p>deep</p>&quot;></iframe>"></iframe>' +
		'<iframe name="cross" src="' + BASE.replace('127.0.0.1', 'localhost') + '/contacts.php"></iframe>');
	// The cross-origin frame's URL comes with its target's events, which may follow
	// the load.
	for (let i = 0; i < 250 && !page.frames().some((f) => f.url().includes('localhost')); i++) await page.waitForTimeout(20);
	const main = page.mainFrame();
	const frames = page.frames();
	check(frames, { 'page.frames has the child frames': (f) => f.length === 5 && f[0] === main });
	const kids = main.childFrames();
	// A cross-origin frame runs in a process of its own (site isolation): its name is
	// not known there.
	const cross = kids.find((f) => f.url().includes('localhost'));
	check(kids.filter((f) => f !== cross).map((f) => f.name()).sort().join(','), { 'frame.childFrames, frame.name': (n) => n === 'news,outer' });
	check(cross, { 'a cross-origin frame has its url': (f) => f !== undefined && f.url() === BASE.replace('127.0.0.1', 'localhost') + '/contacts.php' });
	const news = kids.find((f) => f.name() === 'news');
	const outer = kids.find((f) => f.name() === 'outer');
	check(news, { 'child frame url and parentFrame': (f) => f.url() === BASE + '/news.php' && f.parentFrame() === main && main.parentFrame() === null });
	check(await news.evaluate(() => location.pathname), { 'child frame evaluate': (p) => p === '/news.php' });
	check((await news.$$('.article')).length, { 'child frame selectors': (n) => n > 0 });
	const viaElement = await (await page.$('iframe[name="news"]')).contentFrame();
	check(viaElement, { 'elementHandle.contentFrame is the tree frame': (f) => f === news && f.url() === BASE + '/news.php' });
	const inner = outer.childFrames();
	check(inner, { 'grandchild frame': (i) => i.length === 1 && i[0].name() === 'inner' && i[0].parentFrame() === outer && outer.url() === 'about:srcdoc' });

	await page.evaluate(() => { window.__w = new Worker(URL.createObjectURL(new Blob(['setInterval(() => {}, 1000);'], { type: 'text/javascript' }))); });
	let workers = [];
	for (let i = 0; i < 100 && workers.length === 0; i++) { await page.waitForTimeout(20); workers = page.workers(); }
	check(workers, { 'page.workers, worker.url': (w) => w.length === 1 && w[0].url().startsWith('blob:' + BASE + '/') && page.workers()[0] === w[0] });

	const secure = await page.goto(TLS + '/');
	check(await secure.securityDetails(), {
		'response.securityDetails': (d) => d !== null && /^TLS 1\.[23]$/.test(d.protocol) && d.sanList.includes('127.0.0.1') && d.validTo > d.validFrom && typeof d.issuer === 'string',
	});
	check(await secure.serverAddr(), { 'serverAddr over TLS': (a) => a.port === `+strconv.Itoa(tlsPort)+` });
	const priv = await page.goto(TLS + '/private');
	check(priv.status(), { 'httpCredentials answer basic auth': (s) => s === 200 });
	check(await page.title(), { 'the private page': (t) => t === 'private' });
	await context.close();

	const other = await browser.newContext({ ignoreHTTPSErrors: true, httpCredentials: { username: 'ann', password: 'wrong' } });
	const p2 = await other.newPage();
	check((await p2.goto(TLS + '/private')).status(), { 'wrong credentials get the 401': (s) => s === 401 });
	await other.close();
}
`))
	require.True(t, ok, logs)
	h.RequireChecks(t, 17)
	for _, s := range h.Collector.Of("checks") {
		name, _ := s.Tags.Get("check")
		require.Equal(t, 1.0, s.Value, name)
	}
	sent := 0.0
	for _, s := range h.Collector.Of("browser_data_sent") {
		if u, _ := s.Tags.Get("url"); u == base+"/browser.php" {
			sent = s.Value
		}
	}
	require.Greater(t, sent, 3000.0, "browser_data_sent counts the cookie the request was sent with")
	require.Less(t, sent, 6000.0)
}
