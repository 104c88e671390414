package js

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ocsp"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/request"
)

// testCA is a throw-away certificate authority for the TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  crypto.Signer
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tidemark test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue returns a leaf certificate for 127.0.0.1 (a server's, or with client a
// client's) with an RSA key (for TLS_RSA_* suites), chained to the CA.
func (ca *testCA) issue(t *testing.T, serial int64, client bool) (tls.Certificate, *rsa.PrivateKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	usage := x509.ExtKeyUsageServerAuth
	if client {
		usage = x509.ExtKeyUsageClientAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key, Leaf: leaf}, key
}

// tlsServer serves h over TLS with cfg (its certificate issued by ca unless set).
func tlsServer(t *testing.T, ca *testCA, cfg *tls.Config, h http.Handler) *httptest.Server {
	t.Helper()
	if len(cfg.Certificates) == 0 {
		cert, _ := ca.issue(t, 2, false)
		cfg.Certificates = []tls.Certificate{cert}
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = cfg
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// runScript runs script as `tidemark run` does, its VUs trusting ca, and returns
// its checks' passes and total and the run's error.
func runScript(t *testing.T, ca *testCA, script string, env map[string]string) (uint64, uint64, error) {
	t.Helper()
	dir := writeFiles(t, map[string]string{"script.js": script})
	r, err := New(Config{Script: filepath.Join(dir, "script.js"), Env: env, Logger: promslog.NewNopLogger()})
	if err != nil {
		return 0, 0, err
	}
	res, err := loadtest.Run(r.Context(bg()), loadtest.Config{Test: r.Test(), Source: "script.js", TestID: "t", VUs: r, Registry: r.Registry(),
		HTTP: request.Options{TLS: &tls.Config{RootCAs: ca.pool}}})
	require.NotNil(t, res, "%v", err)
	var passes, total uint64
	for _, s := range res.Summary.Snapshot.Series {
		if s.Metric.Name == "checks" {
			passes += s.Passes
			total += s.Total
		}
	}
	return passes, total, err
}

// TestTLSVersionAndCipherSuites: tlsVersion and tlsCipherSuites (k6's names) limit
// the handshake, and Response.tls_version and tls_cipher_suite show what it
// agreed on, as the http.TLS_* constants name it.
func TestTLSVersionAndCipherSuites(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	// A TLS 1.2 server accepting two suites, as sha256.badssl.com.
	srv := tlsServer(t, ca, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{
		tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}},
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	env := map[string]string{"URL": srv.URL}
	for _, tc := range []struct {
		name, options, want string
		failed              bool
	}{
		{name: "the suite the options allow", options: `tlsCipherSuites: ['TLS_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_AES_128_GCM_SHA256'], tlsVersion: { min: http.TLS_1_0, max: http.TLS_1_2 }`,
			want: "tls1.2 TLS_RSA_WITH_AES_128_GCM_SHA256"},
		{name: "another suite", options: `tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'], tlsVersion: 'tls1.2'`,
			want: "tls1.2 TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"},
		{name: "no suite in common", options: `tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305']`, failed: true},
		{name: "TLS 1.3 only", options: `tlsVersion: http.TLS_1_3`, failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := `import http from 'k6/http';
import { check } from 'k6';
export const options = { ` + tc.options + ` };
export default function () {
  const r = http.get(__ENV.URL);
  check(r, { want: (r) => ` + want(tc.want, tc.failed) + ` });
}`
			passes, total, err := runScript(t, ca, script, env)
			require.NoError(t, err)
			require.Equal(t, [2]uint64{1, 1}, [2]uint64{passes, total})
		})
	}
}

func want(s string, failed bool) string {
	if failed {
		return `r.status === 0 && r.error.includes('remote error') && r.tls_version === ''`
	}
	return `r.tls_version + ' ' + r.tls_cipher_suite === '` + s + `'`
}

// TestTLSOptionErrors: a bad TLS option stops the run before it starts (exit
// code 104), naming the field.
func TestTLSOptionErrors(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	for opts, msg := range map[string]string{
		`tlsVersion: 'tls9'`:                           "tlsVersion",
		`tlsVersion: { min: 'tls1.3', max: 'tls1.2' }`: "min is above max",
		`tlsCipherSuites: ['TLS_NOPE']`:                `tlsCipherSuites[0]: unknown cipher suite "TLS_NOPE"`,
		`tlsAuth: [{ domains: ['a'], cert: 'x' }]`:     "tlsAuth[0].key",
		`tlsAuth: [{ cert: 'x', key: 'y' }]`:           "tlsAuth[0]",
	} {
		_, _, err := runScript(t, ca, `export const options = { `+opts+` }; export default function () {}`, nil)
		require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err), "%s: %v", opts, err)
		require.ErrorContains(t, err, msg, opts)
	}
}

// TestTLSAuth: tlsAuth's client certificate goes to a server of its domains that
// requires one, with its key decrypted by its password; another domain's does
// not.
func TestTLSAuth(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	srv := tlsServer(t, ca, &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: ca.pool},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(r.TLS.PeerCertificates[0].Subject.CommonName))
		}))
	client, key := ca.issue(t, 3, true)
	certPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: client.Certificate[0]}))
	//nolint:staticcheck // the RFC 1423 encryption k6's password option decrypts
	block, err := x509.EncryptPEMBlock(rand.Reader, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key), []byte("s3cret"), x509.PEMCipherAES256)
	require.NoError(t, err)
	env := map[string]string{"URL": srv.URL, "CERT": certPEM, "KEY": string(pem.EncodeToMemory(block))}
	for _, tc := range []struct {
		name, auth string
		ok         bool
	}{
		{name: "its domain", auth: `{ domains: ['127.0.0.1'], cert: __ENV.CERT, key: __ENV.KEY, password: 's3cret' }`, ok: true},
		{name: "another domain", auth: `{ domains: ['example.com'], cert: __ENV.CERT, key: __ENV.KEY, password: 's3cret' }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cond := `r.status === 200 && r.body === '127.0.0.1'`
			if !tc.ok {
				cond = `r.status === 0 && r.error !== ''`
			}
			passes, total, err := runScript(t, ca, `import http from 'k6/http';
import { check } from 'k6';
export const options = { tlsAuth: [`+tc.auth+`] };
export default function () { const r = http.get(__ENV.URL); check(r, { served: (r) => `+cond+` }); }`, env)
			require.NoError(t, err)
			require.Equal(t, [2]uint64{1, 1}, [2]uint64{passes, total})
		})
	}
	_, _, err = runScript(t, ca, `export const options = { tlsAuth: [{ cert: __ENV.CERT, key: __ENV.KEY, password: 'wrong' }] };
export default function () {}`, env)
	require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err), "%v", err)
	require.ErrorContains(t, err, "tlsAuth[0]: key: decrypt with the password")
}

// ocspServer serves over TLS with the OCSP response ca signs for its
// certificate: good, or revoked for key compromise.
func ocspServer(t *testing.T, ca *testCA, status int, now time.Time) *httptest.Server {
	t.Helper()
	cert, _ := ca.issue(t, 10+int64(status), false)
	tmpl := ocsp.Response{Status: status, SerialNumber: cert.Leaf.SerialNumber,
		ThisUpdate: now.Add(-time.Minute), NextUpdate: now.Add(time.Hour)}
	if status == ocsp.Revoked {
		tmpl.RevokedAt, tmpl.RevocationReason = now.Add(-2*time.Minute), ocsp.KeyCompromise
	}
	staple, err := ocsp.CreateResponse(ca.cert, ca.cert, tmpl, ca.key)
	require.NoError(t, err)
	cert.OCSPStaple = staple
	return tlsServer(t, ca, &tls.Config{Certificates: []tls.Certificate{cert}},
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
}

// TestResponseOCSP: Response.ocsp is the stapled OCSP response with k6's
// status and reason strings and millisecond times; without one (plain HTTP, a
// server that staples none) the status is unknown.
func TestResponseOCSP(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	now := time.Now().Truncate(time.Second)
	good, revoked := ocspServer(t, ca, ocsp.Good, now), ocspServer(t, ca, ocsp.Revoked, now)
	plain := tlsServer(t, ca, &tls.Config{}, http.NotFoundHandler())
	ms := func(d time.Duration) string { return big.NewInt(now.Add(d).UnixMilli()).String() }
	script := `import http from 'k6/http';
import { check } from 'k6';
export default function () {
  const g = http.get(__ENV.GOOD).ocsp, r = http.get(__ENV.REVOKED).ocsp, n = http.get(__ENV.PLAIN).ocsp;
  check(null, {
    good: () => g.status === http.OCSP_STATUS_GOOD && g.this_update === ` + ms(-time.Minute) + ` && g.next_update === ` + ms(time.Hour) + ` && g.revoked_at === 0 && g.revocation_reason === '' && g.produced_at > 0,
    revoked: () => r.status === http.OCSP_STATUS_REVOKED && r.revocation_reason === http.OCSP_REASON_KEY_COMPROMISE && r.revoked_at === ` + ms(-2*time.Minute) + `,
    none: () => n.status === http.OCSP_STATUS_UNKNOWN && n.produced_at === 0,
    constants: () => http.OCSP_STATUS_SERVER_FAILED === 'server_failed' && http.OCSP_REASON_AA_COMPROMISE === 'aa_compromise' && http.SSL_3_0 === 'ssl3.0',
  });
}`
	passes, total, err := runScript(t, ca, script, map[string]string{"GOOD": good.URL, "REVOKED": revoked.URL, "PLAIN": plain.URL})
	require.NoError(t, err)
	require.Equal(t, [2]uint64{4, 4}, [2]uint64{passes, total})
}

// gate answers its requests only once n of them are in flight together: a script
// whose requests it answers ran them concurrently. It gives up (504) after 10 s.
func gate(n int) http.Handler {
	var mu sync.Mutex
	waiting := 0
	open := make(chan struct{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		waiting++
		if waiting == n {
			close(open)
		}
		mu.Unlock()
		select {
		case <-open:
			_, _ = w.Write([]byte(`{"path":"` + r.URL.Path + `"}`))
		case <-time.After(10 * time.Second):
			w.WriteHeader(http.StatusGatewayTimeout)
		}
	})
}

// TestAsyncRequest: http.asyncRequest's promise settles with the Response on the
// VU's event loop; its requests run together, and beside the iteration's own
// synchronous request; each is measured as a normal request; the iteration
// waits for one it does not await.
func TestAsyncRequest(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/two/", gate(2))
	mux.Handle("/three/", gate(3))
	mux.HandleFunc("/late", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("late")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	h := startEnv(t, `
import http from 'k6/http';
import { check } from 'k6';
export default async function () {
  const base = __ENV.BASE;
  if (__ITER === 0) {
    const [a, b] = await Promise.all([
      http.asyncRequest('GET', base + '/two/a', null, { tags: { name: 'two' } }),
      http.asyncRequest('POST', http.url`+"`${base}/two/b`"+`, 'x'),
    ]);
    check(a, { 'a': (r) => r.status === 200 && r.json('path') === '/two/a' && r.timings.duration > 0 });
    check(b, { 'b': (r) => r.status === 200 && r.request.method === 'POST' });
    return;
  }
  if (__ITER === 1) {
    const p = http.asyncRequest('GET', base + '/three/1');
    const q = http.asyncRequest('GET', base + '/three/2');
    const sync = http.get(base + '/three/3'); // answered only once p and q are in flight
    check(sync, { 'sync beside async': (r) => r.status === 200 });
    check(await p, { 'p': (r) => r.status === 200 });
    check(await q, { 'q': (r) => r.status === 200 });
    return;
  }
  if (__ITER === 2) {
    let caught = '';
    try { await http.asyncRequest('GET'); } catch (e) { caught = String(e); }
    check(caught, { 'bad arguments reject': (c) => c.includes('http.asyncRequest: expected a URL') });
    http.asyncRequest('GET', base + '/late'); // not awaited: the iteration waits for it
  }
}
`, map[string]string{"BASE": srv.URL})
	v := h.vus(t, 1)[0]
	for i := range 3 {
		require.True(t, v.Iterate(bg()), "iteration %d", i)
	}
	for _, s := range h.c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	require.Len(t, h.c.of("checks"), 6)
	reqs := h.c.of("http_reqs")
	require.Len(t, reqs, 6)
	names := map[string]int{}
	for _, s := range reqs {
		name, _ := s.Tags.Get("name")
		status, _ := s.Tags.Get("status")
		require.Equal(t, "200", status, s.Tags.String())
		names[strings.TrimPrefix(name, srv.URL)]++
	}
	require.Equal(t, map[string]int{"two": 1, "${}/two/b": 1, "/three/1": 1, "/three/2": 1, "/three/3": 1, "/late": 1}, names)
	require.NotEmpty(t, h.c.of("data_received"))
}

// TestAsyncRequestInterrupted: an iteration whose context ends while its async
// request is in flight ends interrupted; the next one runs normally.
func TestAsyncRequestInterrupted(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	defer close(release)
	h := startEnv(t, `
import http from 'k6/http';
import { check } from 'k6';
export default async function () {
  if (__ITER === 0) { await http.asyncRequest('GET', __ENV.BASE + '/hang'); return; }
  check(await http.asyncRequest('GET', __ENV.BASE + '/ok'), { ok: (r) => r.body === 'ok' });
}
`, map[string]string{"BASE": srv.URL})
	v := h.vus(t, 1)[0]
	ctx, cancel := context.WithCancel(bg())
	go func() {
		<-arrived
		cancel()
	}()
	require.False(t, v.Iterate(ctx))
	require.True(t, v.Iterate(bg()))
	require.Len(t, h.c.of("checks"), 1)
	require.Equal(t, 1.0, h.c.of("checks")[0].Value)
}

// TestInterruptInsideAsyncFunction interrupts an iteration while its async function
// runs before its first await (a busy loop), then runs the next iteration on the same
// VU: its awaits of native promises settle. sobek left the interrupted call's frames on
// the runtime's stacks, and every later await in that VU stayed pending
// ("its promise is still pending with nothing left on the event loop").
func TestInterruptInsideAsyncFunction(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	h := startEnv(t, `
import http from 'k6/http';
import { check } from 'k6';
export default async function () {
  if (__ITER === 0) { const p = http.asyncRequest('GET', __ENV.BASE + '/ok'); for (;;) {} }
  check(await http.asyncRequest('GET', __ENV.BASE + '/ok'), { ok: (r) => r.body === 'ok' });
  await new Promise((resolve) => setTimeout(resolve, 1));
}
`, map[string]string{"BASE": srv.URL})
	v := h.vus(t, 1)[0]
	ctx, cancel := context.WithTimeout(bg(), 100*time.Millisecond)
	defer cancel()
	require.False(t, v.Iterate(ctx), "the busy loop is interrupted")
	for range 3 {
		require.True(t, v.Iterate(bg()), "the next iterations' awaits settle")
	}
	require.Len(t, h.c.of("checks"), 3)
}

// startEnv is start of one script with env as __ENV.
func startEnv(t *testing.T, script string, env map[string]string) *harness {
	t.Helper()
	dir := writeFiles(t, map[string]string{"script.js": script})
	r, err := load(t, dir, "script.js", env)
	require.NoError(t, err)
	c := &collector{}
	return &harness{r: r, c: c, env: envFor(r, c, nil)}
}

// TestVUMetadata: exec.vu.metrics.metadata is read and written like the VU's
// tags and stays across iterations; the VU's samples (k6/http's, checks, the
// iteration's) carry it as metadata, not as a tag (so no series of their own),
// until it is deleted.
func TestVUMetadata(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	h := startEnv(t, `
import http from 'k6/http';
import exec from 'k6/execution';
import { check } from 'k6';
export default function () {
  const md = exec.vu.metrics.metadata;
  if (__ITER === 0) {
    md['trace_id'] = 'abc';
    md.n = 7;
    http.get(__ENV.BASE + '/with');
    delete md.n;
    return;
  }
  check(md, { 'kept': (m) => m.trace_id === 'abc' && m.n === undefined && 'trace_id' in m && Object.keys(m).join() === 'trace_id' });
  check(exec.vu.metrics.tags, { 'not a tag': (t) => t.trace_id === undefined });
  http.get(__ENV.BASE + '/kept');
  delete md.trace_id;
  http.get(__ENV.BASE + '/none');
}
`, map[string]string{"BASE": srv.URL})
	v := h.vus(t, 1)[0]
	require.True(t, v.Iterate(bg()))
	require.True(t, v.Iterate(bg()))
	for _, s := range h.c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
	got := map[string]map[string]string{}
	for _, s := range h.c.of("http_req_duration") {
		name, _ := s.Tags.Get("name")
		_, tagged := s.Tags.Get("trace_id")
		require.False(t, tagged, "metadata is not a tag")
		got[strings.TrimPrefix(name, srv.URL)] = s.Metadata
	}
	require.Equal(t, map[string]map[string]string{
		"/with": {"trace_id": "abc", "n": "7"}, "/kept": {"trace_id": "abc"}, "/none": nil,
	}, got)
	for _, s := range h.c.of("checks") {
		require.Equal(t, map[string]string{"trace_id": "abc"}, s.Metadata)
	}
	iters := h.c.of("iterations")
	require.Len(t, iters, 2)
	require.Equal(t, map[string]string{"trace_id": "abc"}, iters[0].Metadata, "set when the first iteration ended")
	require.Nil(t, iters[1].Metadata, "deleted before the second ended")
}

// TestTestOptions: exec.test.options shows every option k6 has: the script's,
// the scenarios as the run resolved them, and null for the ones not set.
func TestTestOptions(t *testing.T) {
	t.Parallel()
	h := startEnv(t, `
import exec from 'k6/execution';
import http from 'k6/http';
import { check } from 'k6';
export const options = {
  stages: [{ duration: '5s', target: 100 }, { duration: '5s', target: 50 }],
  tlsVersion: { min: http.TLS_1_2, max: http.TLS_1_3 }, tags: { team: 'a' },
  thresholds: { http_req_duration: ['p(95)<500'] },
};
export default function () {
  const o = exec.test.options;
  check(o, {
    'scenarios': (o) => o.scenarios.default.stages[0].target === 100 && o.scenarios.default.executor === 'ramping-vus',
    'set': (o) => o.tlsVersion.max === 'tls1.3' && o.tags.team === 'a' && o.thresholds.http_req_duration[0] === 'p(95)<500',
    'null when not set': (o) => o.paused === null && o.tlsAuth === null && o.batch === null && o.hosts === null && o.dns === null,
  });
}
`, nil)
	v := h.vus(t, 1)[0]
	require.True(t, v.Iterate(bg()))
	require.Len(t, h.c.of("checks"), 3)
	for _, s := range h.c.of("checks") {
		require.Equal(t, 1.0, s.Value, s.Tags.String())
	}
}
