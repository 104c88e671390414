package target

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// TestK6HomeSize is test.k6.io's home page size, as k6's checks documentation
// states it ("body size is 11,105 bytes").
const TestK6HomeSize = 11105

// TestK6CSRFToken is the hidden csrftoken of the login form of /my_messages.php.
const TestK6CSRFToken = "e2f4d1c38a9b7065"

// testK6Paths are the paths of test.k6.io's pages the target serves besides its
// load; "/" stays load.
func isTestK6Path(path string) bool {
	switch path {
	case "/news.php", "/my_messages.php", "/login.php", "/browser.php", "/contacts.php", "/pi.php", "/flip_coin.php",
		"/test.k6.io", "/test.k6.io/":
		return true
	}
	return strings.HasPrefix(path, "/static/")
}

// NewTestK6 serves the pages of test.k6.io, k6's demo site, that k6's examples
// and lessons use: the home page (links to the others, TestK6HomeSize bytes),
// /news.php, /contacts.php, /browser.php, /pi.php?decimals=N, /flip_coin.php
// (a coin flip, and the bet its two buttons place), /static/, and the login flow
// of k6-learn's dynamic-correlation lesson: /my_messages.php says Unauthorized
// and carries the login form with its hidden redir and csrftoken fields; POST
// /login.php authorizes admin/123 and test_user/1234 when the token comes back
// (answering 200 either way) and sets the cookie with which /my_messages.php
// welcomes the user. /test.k6.io/ is the home page of QuickPizza's replacement
// of the site (quickpizza.grafana.com/test.k6.io/), which k6's browser examples
// visit: its header, description and links to the same pages, laid out for
// phones.
func NewTestK6() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { page(w, testK6Home()) })
	mux.HandleFunc("GET /test.k6.io", func(w http.ResponseWriter, _ *http.Request) { page(w, legacyHome) })
	mux.HandleFunc("GET /test.k6.io/{$}", func(w http.ResponseWriter, _ *http.Request) { page(w, legacyHome) })
	mux.HandleFunc("GET /my_messages.php", myMessages)
	mux.HandleFunc("POST /login.php", login)
	for p, body := range testK6Pages() {
		mux.HandleFunc("GET "+p, func(w http.ResponseWriter, _ *http.Request) { page(w, body) })
	}
	mux.HandleFunc("GET /static/", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "/* static */")
	})
	mux.HandleFunc("GET /pi.php", func(w http.ResponseWriter, r *http.Request) {
		d, err := strconv.Atoi(r.URL.Query().Get("decimals"))
		if err != nil || d < 0 || d > 15 {
			d = 2
		}
		_, _ = io.WriteString(w, strconv.FormatFloat(3.141592653589793, 'f', d, 64))
	})
	var coin atomic.Int64
	mux.HandleFunc("GET /flip_coin.php", func(w http.ResponseWriter, r *http.Request) {
		page(w, flipCoin(coin.Add(1)%2 == 0, r.URL.Query().Get("bet")))
	})
	return mux
}

func page(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	_, _ = io.WriteString(w, s)
}

// legacyHome is QuickPizza's test.k6.io replacement home page. Its sizes are whole
// pixels, so that a point computed from a link's bounding box (k6's mouse and
// touchscreen examples click its top edge) falls on the link.
const legacyHome = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">` +
	`<meta name="viewport" content="width=device-width, initial-scale=1"><title>QuickPizza Legacy</title>` +
	`<style>body{margin:0;font:16px/24px sans-serif}header{padding:16px}h1{margin:0;font-size:32px;line-height:40px}` +
	`p{margin:0 16px 16px}ul{list-style:none;margin:0;padding:0 16px}li{height:32px}a{display:inline-block;height:24px}</style></head>` +
	`<body><header><h1 class="title">QuickPizza Legacy</h1></header>` +
	`<p class="description">This is a replacement of the service test.k6.io, kept for the scripts that use it.</p>` +
	`<ul><li><a href="/contacts.php">/contacts.php</a></li><li><a href="/news.php">/news.php</a></li>` +
	`<li><a href="/pi.php?decimals=3">/pi.php?decimals=3</a></li><li><a href="/flip_coin.php">/flip_coin.php</a></li>` +
	`<li><a href="/browser.php">/browser.php</a></li><li><a href="/my_messages.php">/my_messages.php</a></li></ul></body></html>`

// flipCoin is /flip_coin.php: the flip's outcome, the bet the query's bet (the
// button pressed: "Bet on heads!" or "Bet on tails!") placed, and the two buttons.
func flipCoin(won bool, bet string) string {
	outcome := "You lost!"
	if won {
		outcome = "You won!"
	}
	var placed string
	switch {
	case strings.Contains(bet, "heads"):
		placed = `<p id="bet">Your bet: heads.</p>`
	case strings.Contains(bet, "tails"):
		placed = `<p id="bet">Your bet: tails.</p>`
	}
	return `<!DOCTYPE html><html lang="en"><head><title>Flip a coin</title></head><body><h2>` + outcome + `</h2>` + placed +
		`<form method="get" action="/flip_coin.php"><input type="submit" name="bet" value="Bet on heads!">` +
		`<input type="submit" name="bet" value="Bet on tails!"></form><p><a href="/">Back</a></p></body></html>`
}

// testK6Home is the home page: its title, text and links, padded to
// TestK6HomeSize bytes with a comment.
func testK6Home() string {
	const head = `<!DOCTYPE html><html lang="en"><head><title>Demo website for load testing</title></head><body>` +
		`<h1>Welcome to the k6.io demo site!</h1><p class="description">Collection of simple web-pages suitable for load testing.</p>` +
		`<ul><li><a href="/contacts.php">/contacts.php</a></li><li><a href="/news.php">/news.php</a></li>` +
		`<li><a href="/pi.php?decimals=3">/pi.php?decimals=3</a></li><li><a href="/flip_coin.php">/flip_coin.php</a></li>` +
		`<li><a href="/browser.php">/browser.php</a></li><li><a href="/my_messages.php">/my_messages.php</a></li></ul>`
	const tail = "</body></html>"
	return head + "<!--" + strings.Repeat("k", TestK6HomeSize-len(head)-len(tail)-7) + "-->" + tail
}

// testK6Pages are the static pages by path.
func testK6Pages() map[string]string {
	const top = `<!DOCTYPE html><html lang="en"><head><title>`
	return map[string]string{
		"/news.php": top + `In the news</title></head><body><h1>In the news</h1>` +
			`<div class="article"><h2><a href="/news.php?id=1">k6 reaches 1.0</a></h2><p class="date">2025-05-06</p><p>Load testing for engineering teams.</p></div>` +
			`<div class="article"><h2><a href="/news.php?id=2">Demo site gets a facelift</a></h2><p class="date">2024-11-20</p><p>New pages for browser testing.</p></div>` +
			`<div class="article"><h2><a href="/news.php?id=3">Correlation made easy</a></h2><p class="date">2024-03-14</p><p>Extract tokens with res.html().</p></div>` +
			`<p><a href="/">Back</a></p></body></html>`,
		// The heading is cloned from a template in one step: a script that reads it
		// right after a navigation it did not wait for (k6's dispatch.js) would
		// otherwise, on a loaded machine, catch the parser between the <h3> and its
		// text, and read "".
		"/contacts.php": top + `Contacts</title></head><body><template id="heading"><h3>Contact us</h3></template>` +
			`<script>document.currentScript.replaceWith(document.getElementById('heading').content.cloneNode(true))</script>` +
			`<p>Email: <a href="mailto:info@test.k6.io">info@test.k6.io</a></p><p>Phone: +1 555 0100</p>` +
			`<p><a href="/">Back</a></p></body></html>`,
		"/browser.php": top + `Browser test page</title></head><body><h1>Browser test page</h1>` +
			`<form id="browser-form"><label for="text1">Text</label><input type="text" id="text1" name="text1" value="">` +
			`<input type="checkbox" id="checkbox1" name="checkbox1" value="1"><label for="checkbox1" id="checkbox-info-display">Thanks for checking the box</label>` +
			`<select id="numbers-options" name="numbers"><option value="zero">Zero</option><option value="one">One</option><option value="two">Two</option></select>` +
			`<button type="button" id="counter-button">Click to increase the counter</button><p id="counter-display">Counter: 0</p></form>` +
			`<p><a href="/">Back</a></p></body></html>`,
	}
}

// myMessages is /my_messages.php: a welcome for a logged-in user, else
// Unauthorized and the login form.
func myMessages(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie("tk6_user"); err == nil && (c.Value == "admin" || c.Value == "test_user") {
		page(w, `<!DOCTYPE html><html><head><title>My messages</title></head><body><h2>Welcome, `+c.Value+`!</h2>`+
			`<p>You have no new messages.</p><p><a href="/">Back</a></p></body></html>`)
		return
	}
	page(w, `<!DOCTYPE html><html><head><title>My messages</title></head><body><h2>Unauthorized</h2>`+
		`<p>Please log in.</p><form method="post" action="/login.php">`+
		`<label>Login <input type="text" name="login" value=""></label>`+
		`<label>Password <input type="password" name="password" value=""></label>`+
		`<input type="hidden" name="redir" value="1">`+
		`<input type="hidden" name="csrftoken" value="`+TestK6CSRFToken+`">`+
		`<input type="submit" value="Go!"></form></body></html>`)
}

// login is POST /login.php: 200 either way, "successfully authorized" and the
// user's cookie for a known user with the form's token.
func login(w http.ResponseWriter, r *http.Request) {
	user, pass := r.PostFormValue("login"), r.PostFormValue("password")
	ok := (user == "admin" && pass == "123") || (user == "test_user" && pass == "1234")
	if ok && r.PostFormValue("csrftoken") == TestK6CSRFToken {
		http.SetCookie(w, &http.Cookie{Name: "tk6_user", Value: user, Path: "/"})
		page(w, "<html><body><h2>Welcome, "+user+"!</h2><p>You are successfully authorized.</p>"+
			`<p><a href="/my_messages.php">My messages</a></p></body></html>`)
		return
	}
	page(w, "<html><body><h2>Login failed</h2></body></html>")
}
