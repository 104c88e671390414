package html_test

import (
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// requireChecks requires every check of h, at least n of them, to have passed.
func requireChecks(t *testing.T, h *modulestest.Harness, n int) {
	t.Helper()
	checks := h.Checks()
	require.GreaterOrEqual(t, len(checks), n)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
}

// TestResponseHTML runs k6/http's Response.html, submitForm and clickLink
// against test.k6.io's pages on the target.
func TestResponseHTML(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	h := modulestest.Start(t, map[string]string{"script.js": strings.ReplaceAll(`
import http from 'k6/http';
import { check } from 'k6';
import { Selection } from 'k6/html';

const BASE = __ENV.BASE;

function throws(f, want) {
  try { f(); } catch (e) { return String(e).includes(want); }
  return false;
}

export default function () {
  const news = http.get(BASE + '/news.php');
  check(news, {
    'html() is the document': (r) => r.html() instanceof Selection && r.html().find('div.article').size() === 3,
    'html(selector) finds': (r) => r.html('h1').text() === 'In the news' && r.html('div.article h2 a').first().attr('href') === '/news.php?id=1',
    'clickLink follows the first link': (r) => { const c = r.clickLink(); return c.status === 200 && c.url === BASE + '/news.php?id=1' && c.request.method === 'GET'; },
    'clickLink with a selector and params': (r) => { const c = r.clickLink({ selector: 'div.article:nth-child(3) a', params: { headers: { 'X-Test': 'yes' } } }); return c.url === BASE + '/news.php?id=2' && c.request.headers['X-Test'][0] === 'yes'; },
    'clickLink without a match throws': (r) => throws(() => r.clickLink({ selector: 'a.none' }), 'no link matches "a.none"'),
  });

  const login = http.get(BASE + '/my_messages.php');
  check(login, {
    'the csrftoken is read': (r) => r.html().find('input[name=csrftoken]').attr('value') === '`+target.TestK6CSRFToken+`',
    'the redir field too': (r) => r.html().find('input[name=redir]').attr('value') === '1',
    'submitForm without a form throws': (r) => throws(() => r.submitForm({ formSelector: '#none' }), 'no form matches "#none"'),
  });
  const wrong = login.submitForm({ fields: { login: 'admin', password: 'bad' } });
  check(wrong, { 'a wrong password fails': (r) => r.status === 200 && r.body.includes('Login failed') });
  const res = login.submitForm({ formSelector: 'form', fields: { login: 'admin', password: '123' }, params: { tags: { name: 'login' } } });
  check(res, {
    'submitForm posts the form': (r) => r.request.method === 'POST' && r.url === BASE + '/login.php',
    'with its hidden fields and ours': (r) => r.request.body === 'csrftoken=`+target.TestK6CSRFToken+`&login=admin&password=123&redir=1',
    'and logs in': (r) => r.body.includes('successfully authorized'),
    'the session cookie works': () => http.get(BASE + '/my_messages.php').html('h2').text() === 'Welcome, admin!',
  });

  const page = http.get(BASE + '/browser.php');
  const sent = page.submitForm({ formSelector: '#browser-form', fields: { text1: 'hi there' }, submitSelector: 'button' });
  check(sent, {
    'a form without method is a GET of its page': (r) => r.request.method === 'GET' && r.url === BASE + '/browser.php?text1=hi+there&numbers=zero',
  });
}
`, "__ENV.BASE", "'"+base+"'")}, modulestest.WithLogger(slog.New(slog.NewTextHandler(tlog{t}, nil))))
	h.Iterate(t)
	requireChecks(t, h, 13)
}

// TestDynamicCorrelation runs k6-learn's dynamic-correlation lesson (log in with
// the CSRF token read from the page with res.html()) against the target: its
// three checks pass, whichever user the script picks.
func TestDynamicCorrelation(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	src, err := os.ReadFile("../../testdata/realworld/k6-learn/III-k6-Intermediate/02-Dynamic-correlation-in-k6/example-1.js")
	require.NoError(t, err)
	script := strings.NewReplacer("https://test.k6.io", base, "http://test.k6.io", base).Replace(string(src))
	require.NotEqual(t, string(src), script)
	for range 3 { // a random user each time
		h := modulestest.Start(t, map[string]string{"script.js": script})
		h.Iterate(t)
		require.Equal(t, map[string]bool{"is Unauthorized": true, "is status 200": true, "Successful login": true}, h.Checks())
	}
}
