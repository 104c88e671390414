package sitetest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/internal/target"
)

// legacyPages are test.k6.io's pages (target.NewTestK6, as on test.k6.io) under
// prefix ("" or "/test.k6.io" on QuickPizza, which hosts a replacement of that
// service), but its home page. Each response sets the AWSALB cookie of the load
// balancer in front of the replacement (k6's fillform.js looks for it).
func legacyPages(mux *http.ServeMux, prefix string, site http.Handler) {
	site = withALBCookie(site)
	for _, p := range []string{"GET /contacts.php", "GET /news.php", "GET /browser.php", "GET /static/", "GET /pi.php",
		"GET /flip_coin.php", "GET /my_messages.php", "POST /login.php"} {
		h := site
		if prefix != "" {
			h = http.StripPrefix(prefix, site)
		}
		method, path, _ := strings.Cut(p, " ")
		mux.Handle(method+" "+prefix+path, h)
	}
}

// withALBCookie sets an AWS load balancer's stickiness cookie on every response of h.
func withALBCookie(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "AWSALB", Value: "c3RhbmQtaW4gZm9yIGFuIEFXUyBBTEI", Path: "/", MaxAge: 7 * 24 * 3600})
		h.ServeHTTP(w, r)
	})
}

// newQuickPizza serves quickpizza.grafana.com: the home page, the replacement of
// test.k6.io under /test.k6.io/ (and its PHP pages at the root), the echo API (/api/json,
// /api/headers, /api/delay/N, /api/status/N) and the pizza API with its users, CSRF token
// and ratings.
func newQuickPizza() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		html(w, "<!DOCTYPE html><html><head><title>QuickPizza</title></head><body><h1>Looking to break out of your pizza routine?</h1></body></html>")
	})
	mux.Handle("GET /ws", target.NewBroadcast()) // QuickPizza's chat: every message to every client
	site := target.NewTestK6()
	mux.Handle("GET /test.k6.io", withALBCookie(site)) // the replacement's home page
	mux.Handle("GET /test.k6.io/{$}", withALBCookie(site))
	legacyPages(mux, "/test.k6.io", site)
	legacyPages(mux, "", site)
	for _, p := range []string{"/favicon.ico", "/admin"} {
		mux.HandleFunc("GET "+p, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, p) })
	}
	mux.HandleFunc("/api/json", func(w http.ResponseWriter, r *http.Request) {
		out := map[string]string{}
		for k, v := range r.URL.Query() {
			out[k] = v[0]
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("/api/headers", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"headers": r.Header})
	})
	mux.HandleFunc("/api/delay/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.ParseFloat(r.PathValue("n"), 64)
		select {
		case <-time.After(time.Duration(n * float64(time.Second))):
		case <-r.Context().Done():
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"delayed": n})
	})
	mux.HandleFunc("/api/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.PathValue("code"))
		if err != nil || code < 100 || code > 599 {
			code = http.StatusBadRequest
		}
		w.WriteHeader(code)
	})
	pizzaAPI(mux)
	return mux
}

// pizzaAPI is QuickPizza's pizza API: a recommendation needs a 16-character token
// ("Authorization: token X"); the user "default" (password 12345678) logs in with the
// CSRF token the csrf-token call set as a cookie.
func pizzaAPI(mux *http.ServeMux) {
	var ids atomic.Int64
	mux.HandleFunc("POST /api/pizza", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
			return
		}
		var req struct {
			MinNumberOfToppings int    `json:"minNumberOfToppings"`
			MaxNumberOfToppings int    `json:"maxNumberOfToppings"`
			CustomName          string `json:"customName"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		n := max(req.MinNumberOfToppings, min(req.MaxNumberOfToppings, 4), 1)
		ingredients := make([]map[string]any, n)
		for i := range ingredients {
			ingredients[i] = map[string]any{"name": "Ingredient " + strconv.Itoa(i+1), "caloriesPerSlice": 50, "vegetarian": true}
		}
		name := req.CustomName
		if name == "" {
			name = "Sicilian Bliss"
		}
		writeJSON(w, http.StatusOK, map[string]any{"pizza": map[string]any{"id": ids.Add(1), "name": name[:min(len(name), 64)],
			"dough": map[string]any{"name": "Thin", "caloriesPerSlice": 150}, "ingredients": ingredients, "tool": "Pizza cutter"}, "calories": 350, "vegetarian": true})
	})
	mux.HandleFunc("POST /api/csrf-token", func(w http.ResponseWriter, _ *http.Request) {
		tok := randomHex(16)
		http.SetCookie(w, &http.Cookie{Name: "csrf_token", Value: tok, Path: "/"})
		writeJSON(w, http.StatusOK, map[string]string{"csrf_token": tok})
	})
	mux.HandleFunc("POST /api/users/token/login", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Username, Password, CSRF string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		c, err := r.Cookie("csrf_token")
		csrfOK := req.CSRF == "" || (err == nil && c.Value == req.CSRF)
		if !csrfOK || req.Username != "default" || req.Password != "12345678" {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid credentials"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"token": randomHex(8)})
	})
	mux.HandleFunc("POST /api/ratings", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
			return
		}
		var req struct {
			PizzaID int64 `json:"pizza_id"`
			Stars   int   `json:"stars"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		writeJSON(w, http.StatusCreated, map[string]any{"id": ids.Add(1), "pizza_id": req.PizzaID, "stars": req.Stars})
	})
}

// authorized accepts "token X" or "Token X" with a 16-character X, as QuickPizza does.
func authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "token") && len(tok) == 16
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func html(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	_, _ = io.WriteString(w, s)
}
