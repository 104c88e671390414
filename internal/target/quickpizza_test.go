package target_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/target"
)

// startQuickPizza serves the QuickPizza stand-in on a free loopback port until the
// test ends and returns its base URL.
func startQuickPizza(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- target.ServeQuickPizza(ctx, ln, time.Second) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return "http://" + ln.Addr().String()
}

// qpClient is a client with a cookie jar that sends requests and decodes JSON.
type qpClient struct {
	t    *testing.T
	c    *http.Client
	base string
}

func newQPClient(t *testing.T, base string) *qpClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &qpClient{t: t, c: &http.Client{Jar: jar}, base: base}
}

// do sends a request and returns its status and body; out, when not nil, receives
// the body as JSON.
func (q *qpClient) do(method, path, token, body string, out any) (int, string) {
	q.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, q.base+path, strings.NewReader(body))
	require.NoError(q.t, err)
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := q.c.Do(req)
	require.NoError(q.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(q.t, err)
	if out != nil {
		require.NoError(q.t, json.Unmarshal(b, out), string(b))
	}
	return resp.StatusCode, string(b)
}

func (q *qpClient) cookie(name string) string {
	u, err := url.Parse(q.base)
	require.NoError(q.t, err)
	for _, c := range q.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// TestQuickPizzaPages: the pages carry what QuickPizza's browser scripts and page
// objects look for.
func TestQuickPizzaPages(t *testing.T) {
	t.Parallel()
	q := newQPClient(t, startQuickPizza(t))
	for path, want := range map[string][]string{
		"/":                             {"<h1>Looking to break out of your pizza routine?</h1>", ">Pizza, Please!</button>", "'recommendations'", "'/api/pizza'"},
		"/admin":                        {"'Sign in'", "'Logout'", "'/api/admin/login?'", "value: 'admin'"},
		"/login":                        {"'Sign in'", "'Logout'", "'/api/users/token/login?set_cookie=true'", "'/api/csrf-token'"},
		"/test.k6.io/":                  {`<p class="description">`},
		"/news.php":                     {`<div class="article">`},
		"/test.k6.io/pi.php?decimals=2": {"3.14"},
	} {
		status, body := q.do(http.MethodGet, path, "", "", nil)
		require.Equal(t, http.StatusOK, status, path)
		for _, w := range want {
			require.Contains(t, body, w, path)
		}
	}
}

// TestQuickPizzaAPI: a recommendation needs a 16-character token; the user logs in
// with the CSRF token and rates with its cookie; the administrator's cookie reads
// the latest recommendations, newest first; the echo API answers as asked.
func TestQuickPizzaAPI(t *testing.T) {
	t.Parallel()
	base := startQuickPizza(t)
	q := newQPClient(t, base)
	const restrictions = `{"minNumberOfToppings":2,"maxNumberOfToppings":6,"customName":"Mine"}`

	status, _ := q.do(http.MethodPost, "/api/pizza", "", restrictions, nil)
	require.Equal(t, http.StatusUnauthorized, status, "no token")
	status, _ = q.do(http.MethodPost, "/api/pizza", "short", restrictions, nil)
	require.Equal(t, http.StatusUnauthorized, status, "a token of 5 characters")
	var rec struct {
		Pizza struct {
			ID          int64            `json:"id"`
			Name        string           `json:"name"`
			Ingredients []map[string]any `json:"ingredients"`
		} `json:"pizza"`
	}
	status, _ = q.do(http.MethodPost, "/api/pizza", "abcdef0123456789", restrictions, &rec)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "Mine", rec.Pizza.Name)
	require.Len(t, rec.Pizza.Ingredients, 4)
	first := rec.Pizza.ID
	status, _ = q.do(http.MethodPost, "/api/pizza", "abcdef0123456789", `{}`, &rec)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "Sicilian Bliss", rec.Pizza.Name)

	// The user: CSRF token, login with the cookie, ratings by cookie.
	var csrf struct {
		Token string `json:"csrf_token"`
	}
	status, _ = q.do(http.MethodPost, "/api/csrf-token", "", "", &csrf)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, csrf.Token, q.cookie("csrf_token"))
	status, _ = q.do(http.MethodPost, "/api/users/token/login?set_cookie=true", "", `{"username":"default","password":"12345678","csrf":"wrong"}`, nil)
	require.Equal(t, http.StatusUnauthorized, status, "a CSRF token not the cookie's")
	status, _ = q.do(http.MethodPost, "/api/users/token/login?set_cookie=true", "", `{"username":"default","password":"1234","csrf":"`+csrf.Token+`"}`, nil)
	require.Equal(t, http.StatusUnauthorized, status, "a wrong password")
	var login struct {
		Token string `json:"token"`
	}
	status, _ = q.do(http.MethodPost, "/api/users/token/login?set_cookie=true", "", `{"username":"default","password":"12345678","csrf":"`+csrf.Token+`"}`, &login)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, login.Token, 16)
	require.Equal(t, login.Token, q.cookie("qp_user_token"))
	status, _ = q.do(http.MethodPost, "/api/ratings", "", `{"pizza_id":`+jsonInt(first)+`,"stars":5}`, nil)
	require.Equal(t, http.StatusCreated, status)
	var ratings struct {
		Ratings []struct {
			PizzaID int64 `json:"pizza_id"`
			Stars   int   `json:"stars"`
		} `json:"ratings"`
	}
	status, _ = q.do(http.MethodGet, "/api/ratings", "", "", &ratings)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, ratings.Ratings, 1)
	require.Equal(t, [2]int64{first, 5}, [2]int64{ratings.Ratings[0].PizzaID, int64(ratings.Ratings[0].Stars)})
	status, _ = q.do(http.MethodGet, "/api/ratings", "0123456789abcdef", "", &ratings)
	require.Equal(t, http.StatusOK, status)
	require.Empty(t, ratings.Ratings, "another token's ratings")
	status, _ = q.do(http.MethodDelete, "/api/ratings", "", "", nil)
	require.Equal(t, http.StatusNoContent, status)
	status, _ = q.do(http.MethodGet, "/api/ratings", "", "", &ratings)
	require.Equal(t, http.StatusOK, status)
	require.Empty(t, ratings.Ratings, "cleared")

	// The administrator.
	admin := newQPClient(t, base)
	status, _ = admin.do(http.MethodGet, "/api/internal/recommendations", "", "", nil)
	require.Equal(t, http.StatusUnauthorized, status, "before the login")
	status, _ = admin.do(http.MethodPost, "/api/admin/login?user=admin&password=wrong", "", "", nil)
	require.Equal(t, http.StatusUnauthorized, status)
	status, _ = admin.do(http.MethodPost, "/api/admin/login?user=admin&password=admin", "", "", nil)
	require.Equal(t, http.StatusOK, status)
	require.NotEmpty(t, admin.cookie("admin_token"))
	var latest struct {
		Pizzas []struct {
			Name string `json:"name"`
		} `json:"pizzas"`
	}
	status, _ = admin.do(http.MethodGet, "/api/internal/recommendations", "", "", &latest)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, latest.Pizzas, 2)
	require.Equal(t, [2]string{"Sicilian Bliss", "Mine"}, [2]string{latest.Pizzas[0].Name, latest.Pizzas[1].Name}, "newest first")

	// The echo API.
	var echo map[string]string
	status, _ = q.do(http.MethodGet, "/api/json?foo=bar", "", "", &echo)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, map[string]string{"foo": "bar"}, echo)
	status, _ = q.do(http.MethodGet, "/api/status/418", "", "", nil)
	require.Equal(t, http.StatusTeapot, status)
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
