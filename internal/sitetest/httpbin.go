package sitetest

import (
	"crypto/md5" //nolint:gosec // HTTP digest authentication is MD5
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// newHTTPBin serves the httpbin.org endpoints the corpus uses, as httpbin documents them:
// /get, /post, /put, /patch, /delete echo the request; /cookies, /cookies/set,
// /basic-auth, /digest-auth, /redirect/N, /relative-redirect/N, /status/N and /.
func newHTTPBin() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!DOCTYPE html><html><head><title>httpbin.org</title></head><body><h2>httpbin.org</h2></body></html>")
	})
	mux.HandleFunc("GET /get", echo(false))
	for _, m := range []string{"POST /post", "PUT /put", "PATCH /patch", "DELETE /delete"} {
		mux.HandleFunc(m, echo(true))
	}
	mux.HandleFunc("GET /cookies", func(w http.ResponseWriter, r *http.Request) {
		c := map[string]string{}
		for _, k := range r.Cookies() {
			c[k.Name] = k.Value
		}
		writeJSON(w, http.StatusOK, map[string]any{"cookies": c})
	})
	mux.HandleFunc("GET /cookies/set", func(w http.ResponseWriter, r *http.Request) {
		for k, v := range r.URL.Query() {
			http.SetCookie(w, &http.Cookie{Name: k, Value: v[0], Path: "/"})
		}
		http.Redirect(w, r, "/cookies", http.StatusFound)
	})
	mux.HandleFunc("GET /basic-auth/{user}/{passwd}", func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != r.PathValue("user") || p != r.PathValue("passwd") {
			w.Header().Set("WWW-Authenticate", `Basic realm="Fake Realm"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"authenticated": true, "user": u})
	})
	mux.HandleFunc("GET /digest-auth/{qop}/{user}/{passwd}", digestAuth)
	mux.HandleFunc("GET /redirect/{n}", redirectN)
	mux.HandleFunc("GET /relative-redirect/{n}", redirectN)
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.PathValue("code"))
		if err != nil || code < 100 || code > 599 {
			http.Error(w, "bad status", http.StatusBadRequest)
			return
		}
		w.WriteHeader(code)
	})
	return mux
}

// redirectN redirects N times, then lands on /get (httpbin's /redirect/N and
// /relative-redirect/N).
func redirectN(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		http.Error(w, "bad n", http.StatusBadRequest)
		return
	}
	to := "/get"
	if n > 1 {
		to = "/relative-redirect/" + strconv.Itoa(n-1)
	}
	w.Header().Set("Location", to)
	w.WriteHeader(http.StatusFound)
}

// echo answers as httpbin's /get and /post do: args, headers, origin, url and, with a
// body, data, form, files and json.
func echo(withBody bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		out := map[string]any{"args": values(r.URL.Query()), "headers": headers(r), "origin": "127.0.0.1", "url": fullURL(r)}
		if withBody {
			body, _ := io.ReadAll(r.Body)
			out["data"], out["form"], out["files"], out["json"] = "", map[string]any{}, map[string]any{}, nil
			if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
				form, _ := url.ParseQuery(string(body))
				out["form"] = values(form)
			} else {
				out["data"] = string(body)
				var j any
				if json.Unmarshal(body, &j) == nil {
					out["json"] = j
				}
			}
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// values is httpbin's rendering of a multi-map: one value as a string, several as a list.
func values(v url.Values) map[string]any {
	out := make(map[string]any, len(v))
	for k, vs := range v {
		if len(vs) == 1 {
			out[k] = vs[0]
		} else {
			out[k] = vs
		}
	}
	return out
}

func headers(r *http.Request) map[string]string {
	out := map[string]string{"Host": r.Host}
	for k, v := range r.Header {
		out[k] = strings.Join(v, ",")
	}
	return out
}

func fullURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.RequestURI()
}

// digestAuth is httpbin's /digest-auth/{qop}/{user}/{passwd} (MD5): a challenge, then
// 200 for a correct response.
func digestAuth(w http.ResponseWriter, r *http.Request) {
	const realm, nonce, opaque = "me@kennethreitz.com", "2ce0b1d6b4e6a8f1c5a2e8f9a0b7c3d1", "7f1e9c3b5a2d4e6f8a0b1c2d3e4f5a6b"
	user, pass := r.PathValue("user"), r.PathValue("passwd")
	p, ok := parseDigest(r.Header.Get("Authorization"))
	if ok && p["username"] == user && p["nonce"] == nonce {
		ha1 := md5hex(user + ":" + realm + ":" + pass)
		ha2 := md5hex(r.Method + ":" + p["uri"])
		want := md5hex(strings.Join([]string{ha1, nonce, p["nc"], p["cnonce"], p["qop"], ha2}, ":"))
		if p["qop"] == "" {
			want = md5hex(ha1 + ":" + nonce + ":" + ha2)
		}
		if p["response"] == want {
			writeJSON(w, http.StatusOK, map[string]any{"authenticated": true, "user": user})
			return
		}
	}
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Digest realm=%q, nonce=%q, qop="auth", opaque=%q, algorithm=MD5, stale=FALSE`, realm, nonce, opaque))
	w.WriteHeader(http.StatusUnauthorized)
}

func parseDigest(h string) (map[string]string, bool) {
	rest, ok := strings.CutPrefix(h, "Digest ")
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out, true
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s)) //nolint:gosec // HTTP digest authentication is MD5
	return hex.EncodeToString(sum[:])
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
