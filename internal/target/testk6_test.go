package target_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// TestTestK6Pages serves test.k6.io's pages from the target as `tidemark target`
// serves them: the login flow with its CSRF token and cookie, the static pages,
// the coin flip's bets, QuickPizza's replacement home page (/test.k6.io/), and
// load on every other path.
func TestTestK6Pages(t *testing.T) {
	t.Parallel()
	ts, base := targettest.Start(t, target.Config{})
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar}
	get := func(path string) string {
		resp, err := c.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	post := func(form url.Values) string {
		resp, err := c.PostForm(base+"/login.php", form)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	body := get("/my_messages.php")
	require.Contains(t, body, "Unauthorized")
	require.Contains(t, body, `<input type="hidden" name="csrftoken" value="`+target.TestK6CSRFToken+`">`)
	require.Contains(t, post(url.Values{"login": {"admin"}, "password": {"123"}, "csrftoken": {"wrong"}}), "Login failed")
	require.Contains(t, post(url.Values{"login": {"admin"}, "password": {"1234"}, "csrftoken": {target.TestK6CSRFToken}}), "Login failed")
	require.Contains(t, post(url.Values{"login": {"admin"}, "password": {"123"}, "csrftoken": {target.TestK6CSRFToken}}), "successfully authorized")
	require.Contains(t, get("/my_messages.php"), "Welcome, admin!")
	require.Contains(t, get("/news.php"), `<div class="article">`)
	require.Contains(t, get("/contacts.php"), "Contact us")
	require.Contains(t, get("/browser.php"), `id="checkbox1"`)
	require.Equal(t, "3.142", get("/pi.php?decimals=3"))
	flips := get("/flip_coin.php") + get("/flip_coin.php")
	require.True(t, strings.Contains(flips, "You won!") && strings.Contains(flips, "You lost!"), flips)
	require.Contains(t, get("/flip_coin.php?bet=Bet+on+tails%21"), `<p id="bet">Your bet: tails.</p>`)
	require.Contains(t, get("/flip_coin.php?bet=Bet+on+heads%21"), `<input type="submit" name="bet" value="Bet on heads!">`)
	legacy := get("/test.k6.io/")
	require.Contains(t, legacy, `<header><h1 class="title">QuickPizza Legacy</h1></header>`)
	require.Contains(t, legacy, `<a href="/my_messages.php">/my_messages.php</a>`)
	require.Contains(t, legacy, `<meta name="viewport" content="width=device-width, initial-scale=1">`)
	require.Equal(t, "ok\n", get("/"), "the root stays load")
	require.EqualValues(t, 1, ts.Stats().Requests, "only the root counts as load")
}

// TestTestK6Home checks the home page as test.k6.io serves it (through sitetest):
// k6's documented size and links to every page.
func TestTestK6Home(t *testing.T) {
	t.Parallel()
	rec := httptestRecorder(t, target.NewTestK6(), "/")
	require.Len(t, rec, target.TestK6HomeSize)
	for _, p := range []string{"/news.php", "/contacts.php", "/my_messages.php", "/browser.php", "/flip_coin.php", "/pi.php?decimals=3"} {
		require.Contains(t, rec, `<a href="`+p+`">`)
	}
}

func httptestRecorder(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://test.k6.io"+path, nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Body.String()
}
