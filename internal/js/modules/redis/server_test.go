//go:build integration

package redis_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// server is a real redis-server (Debian package redis-server) on a loopback port,
// with no persistence, stopped when the test ends.
type server struct {
	addr string // host:port of the plain or the TLS port
	dir  string
}

// startRedis starts redis-server with args added to a configuration that binds a
// free loopback port and persists nothing. tlsPort makes that port a TLS one (the
// args then carry the certificates). A missing binary fails the test.
func startRedis(t *testing.T, tlsPort bool, args ...string) *server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is missing: install the Debian package redis-server (apt-get install redis-server)")
	dir := t.TempDir()
	var lastErr error
	for range 5 { // another process may take the free port before redis-server binds it
		port := freePort(t)
		ports := []string{"--port", strconv.Itoa(port)}
		if tlsPort {
			ports = []string{"--port", "0", "--tls-port", strconv.Itoa(port)}
		}
		base := append([]string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", dir, "--daemonize", "no", "--protected-mode", "no", "--logfile", ""}, ports...)
		s := &server{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir}
		if lastErr = s.run(t, bin, append(base, args...)); lastErr == nil {
			return s
		}
	}
	require.NoError(t, lastErr, "start redis-server")
	return nil
}

// run starts the server and waits until it accepts connections or exits.
func (s *server) run(t *testing.T, bin string, args []string) error {
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			_ = c.Close()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				t.Log("redis-server stopped:", <-exited)
			})
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server exited: %w: %s", err, out.String())
		case <-deadline:
			_ = cmd.Process.Kill()
			return fmt.Errorf("redis-server did not listen on %s: %w: %s", s.addr, <-exited, out.String())
		case <-time.After(20 * time.Millisecond): // poll the port until it accepts
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// direct is a go-redis client of the server for the test's own checks.
func (s *server) direct(t *testing.T, o *goredis.Options) *goredis.Client {
	t.Helper()
	if o == nil {
		o = &goredis.Options{}
	}
	o.Addr = s.addr
	c := goredis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// pki is a throw-away CA with a server and a client certificate, written as PEM files.
type pki struct {
	ca, serverCert, serverKey, clientCert, clientKey string // paths
}

// testPKI writes the certificates in a new directory.
func testPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, writePKI(dir))
	f := func(n string) string { return filepath.Join(dir, n) }
	return pki{f("ca.crt"), f("server.crt"), f("server.key"), f("client.crt"), f("client.key")}
}

func writePKI(dir string) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, "ca.crt"), "CERTIFICATE", caDER); err != nil {
		return err
	}
	for i, leaf := range []struct {
		name  string
		usage x509.ExtKeyUsage
	}{{"server", x509.ExtKeyUsageServerAuth}, {"client", x509.ExtKeyUsageClientAuth}} {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(i + 2)), Subject: pkix.Name{CommonName: leaf.name}, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(24 * time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{leaf.usage}, KeyUsage: x509.KeyUsageDigitalSignature,
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		kb, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, leaf.name+".crt"), "CERTIFICATE", der); err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, leaf.name+".key"), "PRIVATE KEY", kb); err != nil {
			return err
		}
	}
	return nil
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}

// tlsServer starts redis-server on a TLS port; mutual makes it require client
// certificates.
func tlsServer(t *testing.T, p pki, mutual bool) *server {
	t.Helper()
	auth := "no"
	if mutual {
		auth = "yes"
	}
	return startRedis(t, true, "--tls-cert-file", p.serverCert, "--tls-key-file", p.serverKey,
		"--tls-ca-cert-file", p.ca, "--tls-auth-clients", auth)
}

// ctx is the context of the test's own commands.
func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}
