package sitetest_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sitetest"
)

// client reaches the sites as a process with Env's variables does: through the proxy,
// trusting the CA.
func client(t *testing.T, s *sitetest.Server) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(s.CAFile)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(pem))
	proxy, err := url.Parse(s.URL)
	require.NoError(t, err)
	tr := &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// TestSites reaches each site through the proxy, over HTTP and HTTPS (HTTP/2), and
// checks the behaviour the corpus relies on.
func TestSites(t *testing.T) {
	t.Parallel()
	s := sitetest.Start(t, t.TempDir())
	c := client(t, s)

	resp, body := get(t, c, "http://test.k6.io/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, body, 11105, "test.k6.io's home page size, as k6's checks page states it")
	require.Contains(t, body, "Collection of simple web-pages suitable for load testing")

	resp, body = get(t, c, "https://quickpizza.grafana.com/test.k6.io/")
	require.Equal(t, "HTTP/2.0", resp.Proto)
	require.Contains(t, body, `<p class="description">This is a replacement of the service `)
	require.Contains(t, body, `<a href="/my_messages.php">/my_messages.php</a>`)
	_, body = get(t, c, "https://quickpizza.grafana.com/pi.php")
	require.Equal(t, "3.14", body)
	resp, body = get(t, c, "https://quickpizza.grafana.com/my_messages.php") // the replacement's pages at the root
	require.Contains(t, body, `<input type="submit" value="Go!">`)
	require.Contains(t, resp.Header.Get("Set-Cookie"), "AWSALB=", "the replacement's load balancer cookie")
	_, body = get(t, c, "https://googlechromelabs.github.io/dark-mode-toggle/demo/")
	require.Contains(t, body, `<dark-mode-toggle id="dark-mode-toggle-3" mode="light"`)
	_, body = get(t, c, "https://example.com/")
	require.Contains(t, body, "<title>Example Domain</title>")

	resp, body = get(t, c, "https://httpbin.org/get?verb=get&a=1&a=2")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var echo struct {
		Args map[string]any `json:"args"`
		URL  string         `json:"url"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &echo))
	require.Equal(t, map[string]any{"verb": "get", "a": []any{"1", "2"}}, echo.Args)
	require.Equal(t, "https://httpbin.org/get?verb=get&a=1&a=2", echo.URL)

	resp, _ = get(t, c, "http://httpbin.org/redirect/2")
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.Equal(t, "/relative-redirect/1", resp.Header.Get("Location"))

	resp, _ = get(t, c, "http://httpbin.org/basic-auth/user/passwd")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	_, body = get(t, c, "https://test.k6.io/my_messages.php")
	require.Contains(t, body, `name="csrftoken" value="`)
	_, rest, found := strings.Cut(body, `name="csrftoken" value="`)
	require.True(t, found)
	token, _, _ := strings.Cut(rest, `"`)
	for tok, want := range map[string]string{token: "successfully authorized", "wrong": "Login failed"} {
		resp, err := c.PostForm("http://test.k6.io/login.php", url.Values{"login": {"admin"}, "password": {"123"}, "csrftoken": {tok}})
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, string(b), want)
	}

	_, err := c.Get("https://unknown.example/")
	require.Error(t, err, "a host without a site is refused")
	require.Positive(t, s.Served()["httpbin.org"])
}

// TestQuickPizzaDirect serves QuickPizza to requests sent to the server itself (its
// scripts' BASE_URL), with the login flow of 17.login-action.js.
func TestQuickPizzaDirect(t *testing.T) {
	t.Parallel()
	s := sitetest.Start(t, t.TempDir())
	post := func(path, auth, body string, cookies ...*http.Cookie) *http.Response {
		req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	require.Equal(t, http.StatusUnauthorized, post("/api/pizza", "", "{}").StatusCode)
	resp := post("/api/pizza", "token abcdef0123456789", `{"minNumberOfToppings":2,"maxNumberOfToppings":6}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var pizza struct {
		Pizza struct {
			Ingredients []any `json:"ingredients"`
		} `json:"pizza"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&pizza))
	require.Len(t, pizza.Pizza.Ingredients, 4)

	csrf := post("/api/csrf-token", "", "").Cookies()
	require.Len(t, csrf, 1)
	login := post("/api/users/token/login", "", `{"username":"default","password":"12345678","csrf":"`+csrf[0].Value+`"}`, csrf[0])
	require.Equal(t, http.StatusOK, login.StatusCode)
	bad := post("/api/users/token/login", "", `{"username":"default","password":"12345678","csrf":"other"}`, csrf[0])
	require.Equal(t, http.StatusUnauthorized, bad.StatusCode)
	require.Equal(t, http.StatusCreated, post("/api/ratings", "token aaaaaaaaaaaaaaaa", `{"pizza_id":1,"stars":5}`).StatusCode)
}
