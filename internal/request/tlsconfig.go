package request

import (
	"context"
	"crypto/tls"
	"net"
	"net/url"

	"github.com/tidemark/tidemark/internal/scenario"
)

// TLSConfig returns base (nil: Go's defaults) with a test's TLS options: k6's
// tlsVersion, tlsCipherSuites and tlsAuth. It returns base itself when t sets
// nothing. A client certificate goes to the servers of its domains that ask for
// one: the host is the request's (see hostKey), as net/http hands the request's
// context to the handshake.
func TLSConfig(base *tls.Config, t scenario.TLS) *tls.Config {
	if t.IsZero() {
		return base
	}
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if t.MinVersion != 0 {
		cfg.MinVersion = t.MinVersion
	}
	if t.MaxVersion != 0 {
		cfg.MaxVersion = t.MaxVersion
	}
	if t.CipherSuites != nil {
		cfg.CipherSuites = t.CipherSuites
	}
	if len(t.ClientCerts) > 0 {
		certs := t.ClientCerts
		cfg.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			host, _ := cri.Context().Value(hostKey{}).(string)
			for i := range certs {
				if certs[i].Matches(host) {
					return &certs[i].Cert, nil
				}
			}
			return &tls.Certificate{}, nil // none: the server decides
		}
	}
	return cfg
}

// hostKey keys the host of a request in its context, for the client certificate
// of its domain.
type hostKey struct{}

// withHost returns ctx carrying the host of target when cfg chooses client
// certificates by domain.
func withHost(ctx context.Context, cfg *tls.Config, target string) context.Context {
	if cfg == nil || cfg.GetClientCertificate == nil {
		return ctx
	}
	u, err := url.Parse(target)
	if err != nil {
		return ctx
	}
	host := u.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return context.WithValue(ctx, hostKey{}, host)
}
