package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultQuickPizzaAddress is where `tidemark target` serves QuickPizza: the port of
// QuickPizza's own local server, where its k6 scripts look when BASE_URL is unset.
const DefaultQuickPizzaAddress = "127.0.0.1:3333"

// QuickPizza's accounts: the user "default" of the pizza API and the administrator
// of the /admin page.
const (
	QuickPizzaUser          = "default"
	QuickPizzaPassword      = "12345678"
	QuickPizzaAdmin         = "admin"
	QuickPizzaAdminPassword = "admin"
)

// quickPizzaRecent is how many recommendations the admin page lists, newest first.
const quickPizzaRecent = 15

// legacyPages mounts test.k6.io's pages (site, NewTestK6), but its home page, under
// prefix ("" or "/test.k6.io": QuickPizza hosts a replacement of that service).
// Each response sets the AWSALB cookie of the load balancer in front of the
// replacement (k6's fillform.js looks for it).
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

// NewQuickPizza serves a stand-in for QuickPizza (quickpizza.grafana.com, Grafana's
// demo of k6) with what its k6 scripts observe: the home page, whose "Pizza, Please!"
// button asks POST /api/pizza for a recommendation and shows it in div#recommendations
// (with buttons that rate it); the login page (/login) of the user QuickPizzaUser and
// the admin page (/admin), whose "Sign in" logs QuickPizzaAdmin in with a cookie and
// shows a "Logout" button and the latest recommendations; the echo API (/api/json,
// /api/headers, /api/delay/N, /api/status/N); the pizza API with its users, CSRF token
// and ratings; the chat on /ws (Broadcast); and the replacement of test.k6.io under
// /test.k6.io/ (NewTestK6's legacy home page), with test.k6.io's pages (NewTestK6,
// the login flow included) there and at the root.
func NewQuickPizza() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { page(w, quickPizzaHome) })
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, _ *http.Request) { page(w, quickPizzaLogin) })
	mux.HandleFunc("GET /admin", func(w http.ResponseWriter, _ *http.Request) { page(w, quickPizzaAdminPage) })
	mux.Handle("GET /ws", NewBroadcast()) // QuickPizza's chat: every message to every client
	site := NewTestK6()
	mux.Handle("GET /test.k6.io", withALBCookie(site)) // the replacement's home page
	mux.Handle("GET /test.k6.io/{$}", withALBCookie(site))
	legacyPages(mux, "/test.k6.io", site)
	legacyPages(mux, "", site)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "/favicon.ico") })
	echoAPI(mux)
	qp := &quickPizza{admins: map[string]bool{}, ratings: map[string][]map[string]any{}}
	qp.routes(mux)
	return mux
}

// echoAPI is QuickPizza's echo API: the query as JSON, the request's headers, a
// delayed answer and any status.
func echoAPI(mux *http.ServeMux) {
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
}

// quickPizza is the pizza API's state: ids, the latest recommendations and the
// administrators' session tokens.
type quickPizza struct {
	ids    atomic.Int64
	mu     sync.Mutex
	recent []map[string]any // newest first, at most quickPizzaRecent
	admins map[string]bool
	// ratings are each user token's ratings, oldest first.
	ratings map[string][]map[string]any
}

// routes mounts the pizza API: a recommendation needs a 16-character token
// ("Authorization: token X"); the user QuickPizzaUser logs in with the CSRF token the
// csrf-token call set as a cookie (and gets it as the qp_user_token cookie with
// ?set_cookie=true); a token's ratings are kept; the administrator logs in with the query's user and
// password and gets the admin_token cookie that reads the latest recommendations.
func (q *quickPizza) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/pizza", q.pizza)
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
		if !csrfOK || req.Username != QuickPizzaUser || req.Password != QuickPizzaPassword {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid credentials"})
			return
		}
		tok := randomHex(8)
		if r.URL.Query().Get("set_cookie") == "true" {
			http.SetCookie(w, &http.Cookie{Name: "qp_user_token", Value: tok, Path: "/", MaxAge: 3600})
		}
		writeJSON(w, http.StatusOK, map[string]string{"token": tok})
	})
	mux.HandleFunc("/api/ratings", q.ratingsAPI)
	mux.HandleFunc("POST /api/admin/login", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("user") != QuickPizzaAdmin || r.URL.Query().Get("password") != QuickPizzaAdminPassword {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid credentials"})
			return
		}
		tok := randomHex(8)
		q.mu.Lock()
		q.admins[tok] = true
		q.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "admin_token", Value: tok, Path: "/", MaxAge: 3600})
		writeJSON(w, http.StatusOK, map[string]string{"token": tok})
	})
	mux.HandleFunc("GET /api/internal/recommendations", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("admin_token")
		q.mu.Lock()
		defer q.mu.Unlock()
		if err != nil || !q.admins[c.Value] {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"pizzas": append([]map[string]any{}, q.recent...)})
	})
}

// ratingsAPI lists (GET), adds (POST) and clears (DELETE) the ratings of the
// request's user token.
func (q *quickPizza) ratingsAPI(w http.ResponseWriter, r *http.Request) {
	tok, ok := userToken(r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"ratings": append([]map[string]any{}, q.ratings[tok]...)})
	case http.MethodPost:
		var req struct {
			PizzaID int64 `json:"pizza_id"`
			Stars   int   `json:"stars"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		rating := map[string]any{"id": q.ids.Add(1), "pizza_id": req.PizzaID, "stars": req.Stars}
		q.ratings[tok] = append(q.ratings[tok], rating)
		writeJSON(w, http.StatusCreated, rating)
	case http.MethodDelete:
		delete(q.ratings, tok)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
	}
}

// pizza recommends a pizza with as many toppings as asked (up to four by default)
// and keeps it among the latest.
func (q *quickPizza) pizza(w http.ResponseWriter, r *http.Request) {
	if _, ok := userToken(r); !ok {
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
	pizza := map[string]any{"id": q.ids.Add(1), "name": name[:min(len(name), 64)],
		"dough": map[string]any{"name": "Thin", "caloriesPerSlice": 150}, "ingredients": ingredients, "tool": "Pizza cutter"}
	q.mu.Lock()
	q.recent = append([]map[string]any{pizza}, q.recent[:min(len(q.recent), quickPizzaRecent-1)]...)
	q.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"pizza": pizza, "calories": 350, "vegetarian": true})
}

// userToken is the request's user token: X of "Authorization: token X" (or "Token X"),
// else the qp_user_token cookie; QuickPizza accepts any of 16 characters.
func userToken(r *http.Request) (string, bool) {
	tok := ""
	if scheme, t, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "token") {
		tok = t
	} else if c, err := r.Cookie("qp_user_token"); err == nil {
		tok = c.Value
	}
	return tok, len(tok) == 16
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ListenAndServeQuickPizza serves NewQuickPizza on addr until ctx ends
// (ServeQuickPizza).
func ListenAndServeQuickPizza(ctx context.Context, addr string, grace time.Duration, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen for QuickPizza: %w", err)
	}
	logger.Info("QuickPizza listening", "address", ln.Addr().String(), "url", "http://"+ln.Addr().String()+"/")
	return ServeQuickPizza(ctx, ln, grace)
}

// ServeQuickPizza serves NewQuickPizza on ln until ctx ends; the requests in flight
// then get grace to finish. It closes ln.
func ServeQuickPizza(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{Handler: NewQuickPizza(), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		err := srv.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close()
		}
		stopped <- err
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve QuickPizza: %w", err)
	}
	return <-stopped
}
