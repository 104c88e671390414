package netgrpc_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/target/grpctarget"
)

// protoDir is where the target's .proto files are.
const protoDir = "../../../target/grpctarget/protos"

// startTarget serves the gRPC target on loopback until the test ends and returns its
// address.
func startTarget(t testing.TB, opts ...grpc.ServerOption) string {
	t.Helper()
	s, err := grpctarget.New(opts...)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Stop()
		require.NoError(t, <-done)
	})
	return ln.Addr().String()
}

// protos returns the target's .proto files, to write beside a script.
func protos(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range grpctarget.ProtoFiles {
		b, err := os.ReadFile(filepath.Join(protoDir, name))
		require.NoError(t, err)
		out[name] = string(b)
	}
	return out
}

// run runs script (ADDR replaced by addr) for one iteration and returns the harness.
func run(t *testing.T, addr, script string, extra map[string]string) *modulestest.Harness {
	t.Helper()
	files := protos(t)
	files["script.js"] = strings.ReplaceAll(script, "ADDR", addr)
	maps.Copy(files, extra)
	h := modulestest.Start(t, files, modulestest.WithLogger(slog.New(slog.NewTextHandler(testLog{t}, nil))))
	h.Iterate(t)
	return h
}

// testLog writes the run's log to the test's.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// requireChecks requires every check to have run and passed.
func requireChecks(t *testing.T, h *modulestest.Harness, names ...string) {
	t.Helper()
	got := h.Checks()
	for _, n := range names {
		ok, seen := got[n]
		require.True(t, seen, "check %q did not run; checks: %v", n, got)
		require.True(t, ok, "check %q failed; checks: %v", n, got)
	}
	require.Len(t, got, len(names), "checks: %v", got)
}

// tagsOf returns a sample's tags as a map.
func tagsOf(s metrics.Sample) map[string]string {
	out := map[string]string{}
	for _, tg := range s.Tags.Tags() {
		out[tg.Key] = tg.Value
	}
	return out
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// pki is a CA and the server and client certificates it signed, as PEM.
type pki struct {
	caPEM, serverCert, serverKey, clientCert, clientKey string
}

func newPKI(t *testing.T) pki {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	leaf := func(serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "127.0.0.1"},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		kder, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
	}
	p := pki{caPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))}
	p.serverCert, p.serverKey = leaf(2, x509.ExtKeyUsageServerAuth)
	p.clientCert, p.clientKey = leaf(3, x509.ExtKeyUsageClientAuth)
	return p
}

// serverTLS is the server's TLS config: it requires a client certificate the CA signed.
func (p pki) serverTLS(t *testing.T) *tls.Config {
	t.Helper()
	pair, err := tls.X509KeyPair([]byte(p.serverCert), []byte(p.serverKey))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM([]byte(p.caPEM)))
	return &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string { return fmt.Sprintf("%q", s) }

var _ = context.Background
