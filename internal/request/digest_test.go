package request

import (
	"context"
	"crypto/md5" //nolint:gosec // the digest scheme's own hash
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDigestAuthorization(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, challenge, user, pass, cnonce, want string
	}{
		{
			name:      "RFC 2617 §3.5",
			challenge: `Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"`,
			user:      "Mufasa", pass: "Circle Of Life", cnonce: "0a4f113b",
			want: `Digest username="Mufasa", realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", response="6629fae49393a05397450978507c4ef1", qop=auth, nc=00000001, cnonce="0a4f113b", opaque="5ccc069c403ebaf9f0171e9517f40e41"`,
		},
		{
			name:      "RFC 7616 §3.9.1 MD5",
			challenge: `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
			user:      "Mufasa", pass: "Circle of Life", cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
			want: `Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", uri="/dir/index.html", algorithm=MD5, response="8ca523f5e9506fed4657c9700eebdbec", qop=auth, nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
		},
		{
			name:      "RFC 7616 §3.9.1 SHA-256",
			challenge: `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
			user:      "Mufasa", pass: "Circle of Life", cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
			want: `Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", uri="/dir/index.html", algorithm=SHA-256, response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", qop=auth, nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := digestAuthorization(tc.challenge, tc.user, tc.pass, http.MethodGet, "/dir/index.html", tc.cnonce)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	for _, challenge := range []string{`Basic realm="x"`, `Digest realm="x"`, `Digest nonce="n", algorithm=SHA-512`, `Digest nonce="n", qop="auth-int"`} {
		_, err := digestAuthorization(challenge, "u", "p", http.MethodGet, "/", "c")
		require.ErrorIs(t, err, errDigestChallenge, challenge)
	}
}

// digestHandler answers 401 with a Digest challenge unless the request's
// Authorization is the digest of user ann, password secret (RFC 2617 with qop
// auth, computed here on its own).
func digestHandler() http.Handler {
	const realm, nonce = "tidemark", "abc123"
	md := func(s string) string {
		sum := md5.Sum([]byte(s)) //nolint:gosec // the digest scheme's own hash
		return hex.EncodeToString(sum[:])
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := authParams(strings.TrimPrefix(r.Header.Get("Authorization"), "Digest "))
		want := md(md("ann:"+realm+":secret") + ":" + nonce + ":" + p["nc"] + ":" + p["cnonce"] + ":auth:" + md(r.Method+":"+r.URL.RequestURI()))
		if p["username"] != "ann" || p["uri"] != r.URL.RequestURI() || p["response"] != want {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Digest realm=%q, qop="auth", nonce=%q`, realm, nonce))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("welcome " + r.Method))
	})
}

func TestSendDigest(t *testing.T) {
	t.Parallel()
	srv, f, c := serve(t, digestHandler())
	withUser := func(user string) string {
		return strings.Replace(srv.URL, "http://", "http://"+user+"@", 1) + "/private?x=1"
	}

	res := c.Send(context.Background(), &Request{Method: "POST", URL: withUser("ann:secret"), Body: []byte("b"), Auth: AuthDigest, VUTags: f.vuTags()})
	require.NoError(t, res.Err)
	require.Equal(t, 200, res.Status)
	require.Equal(t, "welcome POST", string(res.Body))
	require.Equal(t, srv.URL+"/private?x=1", res.URL, "no credentials on the wire")
	require.Contains(t, res.Request.Header.Get("Authorization"), `Digest username="ann"`)
	got := requestSamples(t, f)
	require.Len(t, got, 2, "the challenge and the answer are both requests")
	require.Equal(t, []string{"401", "true", "1401"}, []string{got[0]["status"], got[0]["expected_response"], got[0]["error_code"]}, "the first 401 is expected (k6)")
	require.Equal(t, []string{"200", "true"}, []string{got[1]["status"], got[1]["expected_response"]})
	require.Equal(t, srv.URL+"/private?x=1", got[0]["url"])

	// A wrong password: the answer is a 401 too, and that one is not expected.
	res = c.Send(context.Background(), &Request{URL: withUser("ann:wrong"), Auth: AuthDigest, VUTags: f.vuTags()})
	require.Equal(t, 401, res.Status)
	got = requestSamples(t, f)
	require.Len(t, got, 4)
	require.Equal(t, "true", got[2]["expected_response"])
	require.Equal(t, "false", got[3]["expected_response"])

	// Without credentials, one request.
	res = c.Send(context.Background(), &Request{URL: srv.URL + "/", Auth: AuthDigest, VUTags: f.vuTags()})
	require.Equal(t, 401, res.Status)
	require.Len(t, requestSamples(t, f), 5)
}
