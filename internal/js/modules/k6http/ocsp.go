package k6http

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"time"

	"github.com/grafana/sobek"
	"golang.org/x/crypto/ocsp"
)

// constants are k6/http's constants: the SSL/TLS versions (as Response.tls_version
// and the tlsVersion option name them) and the OCSP statuses and revocation reasons
// (as Response.ocsp shows them).
func constants() map[string]any {
	return map[string]any{
		"SSL_3_0": "ssl3.0",
		"TLS_1_0": "tls1.0",
		"TLS_1_1": "tls1.1",
		"TLS_1_2": "tls1.2",
		"TLS_1_3": "tls1.3",

		"OCSP_STATUS_GOOD":          ocspGood,
		"OCSP_STATUS_REVOKED":       ocspRevoked,
		"OCSP_STATUS_SERVER_FAILED": ocspServerFailed,
		"OCSP_STATUS_UNKNOWN":       ocspUnknown,

		"OCSP_REASON_UNSPECIFIED":            revocationReason(ocsp.Unspecified),
		"OCSP_REASON_KEY_COMPROMISE":         revocationReason(ocsp.KeyCompromise),
		"OCSP_REASON_CA_COMPROMISE":          revocationReason(ocsp.CACompromise),
		"OCSP_REASON_AFFILIATION_CHANGED":    revocationReason(ocsp.AffiliationChanged),
		"OCSP_REASON_SUPERSEDED":             revocationReason(ocsp.Superseded),
		"OCSP_REASON_CESSATION_OF_OPERATION": revocationReason(ocsp.CessationOfOperation),
		"OCSP_REASON_CERTIFICATE_HOLD":       revocationReason(ocsp.CertificateHold),
		"OCSP_REASON_REMOVE_FROM_CRL":        revocationReason(ocsp.RemoveFromCRL),
		"OCSP_REASON_PRIVILEGE_WITHDRAWN":    revocationReason(ocsp.PrivilegeWithdrawn),
		"OCSP_REASON_AA_COMPROMISE":          revocationReason(ocsp.AACompromise),
	}
}

// k6's OCSP statuses.
const (
	ocspGood         = "good"
	ocspRevoked      = "revoked"
	ocspServerFailed = "server_failed"
	ocspUnknown      = "unknown"
)

// revocationReason is k6's name of an RFC 5280 revocation reason.
func revocationReason(r int) string {
	switch r {
	case ocsp.Unspecified:
		return "unspecified"
	case ocsp.KeyCompromise:
		return "key_compromise"
	case ocsp.CACompromise:
		return "ca_compromise"
	case ocsp.AffiliationChanged:
		return "affiliation_changed"
	case ocsp.Superseded:
		return "superseded"
	case ocsp.CessationOfOperation:
		return "cessation_of_operation"
	case ocsp.CertificateHold:
		return "certificate_hold"
	case ocsp.RemoveFromCRL:
		return "remove_from_crl"
	case ocsp.PrivilegeWithdrawn:
		return "privilege_withdrawn"
	case ocsp.AACompromise:
		return "aa_compromise"
	}
	return ""
}

// ocspInfo is Response.ocsp: the OCSP response the server stapled to the TLS
// handshake, as k6 shows it (times in Unix milliseconds, 0 when absent). Without a
// stapled response (plain HTTP, or a server that staples none) the status is
// unknown; a response the responder marked as failed (or that does not parse) is
// server_failed. The response is checked against the certificate's issuer when
// the server sent it.
type ocspInfo struct {
	ProducedAt, ThisUpdate, NextUpdate, RevokedAt int64
	Status, RevocationReason                      string
}

func parseOCSP(cs *tls.ConnectionState) ocspInfo {
	info := ocspInfo{Status: ocspUnknown}
	if cs == nil || len(cs.OCSPResponse) == 0 {
		return info
	}
	var issuer *x509.Certificate
	if len(cs.PeerCertificates) > 1 {
		issuer = cs.PeerCertificates[1]
	}
	if len(cs.VerifiedChains) > 0 && len(cs.VerifiedChains[0]) > 1 {
		issuer = cs.VerifiedChains[0][1]
	}
	r, err := ocsp.ParseResponse(cs.OCSPResponse, issuer)
	if err != nil {
		var re ocsp.ResponseError
		if errors.As(err, &re) || issuer != nil {
			info.Status = ocspServerFailed
		}
		return info
	}
	ms := func(t time.Time) int64 {
		if t.IsZero() {
			return 0
		}
		return t.UnixMilli()
	}
	info.ProducedAt, info.ThisUpdate, info.NextUpdate = ms(r.ProducedAt), ms(r.ThisUpdate), ms(r.NextUpdate)
	switch r.Status {
	case ocsp.Good:
		info.Status = ocspGood
	case ocsp.Revoked:
		info.Status = ocspRevoked
		info.RevokedAt = ms(r.RevokedAt)
		info.RevocationReason = revocationReason(r.RevocationReason)
	case ocsp.ServerFailed:
		info.Status = ocspServerFailed
	}
	return info
}

// ocspObject is Response.ocsp as a JavaScript object.
func (m *instance) ocspObject(cs *tls.ConnectionState) *sobek.Object {
	info := parseOCSP(cs)
	o := m.vu.Runtime().NewObject()
	for _, kv := range []struct {
		k string
		v any
	}{
		{"produced_at", info.ProducedAt}, {"this_update", info.ThisUpdate}, {"next_update", info.NextUpdate},
		{"revocation_reason", info.RevocationReason}, {"revoked_at", info.RevokedAt}, {"status", info.Status},
	} {
		_ = o.Set(kv.k, kv.v)
	}
	return o
}
