package request

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
)

// k6's error codes (k6-docs javascript-api/k6-errors-list.md). Status codes ≥ 400
// are reported as 1000 + status.
const (
	CodeGeneric           = 1000
	CodeInvalidURL        = 1020
	CodeTimeout           = 1050
	CodeDNS               = 1100
	CodeDNSNoIP           = 1101
	CodeTCP               = 1200
	CodeBrokenPipe        = 1201
	CodeTCPUnknown        = 1202
	CodeDial              = 1210
	CodeDialTimeout       = 1211
	CodeConnRefused       = 1212
	CodeDialUnknown       = 1213
	CodeConnReset         = 1220
	CodeTLS               = 1300
	CodeUnknownAuthority  = 1310
	CodeHostnameMismatch  = 1311
	CodeHTTP2             = 1600
	CodeHTTP2GoAway       = 1610
	CodeHTTP2Stream       = 1630
	CodeHTTP2Connection   = 1650
	CodeDecompression     = 1701
	codeStatusBase        = 1000
	statusFirstErrorLevel = 400
)

// Classify returns k6's error code for a transport error and a short, bounded
// message for the `error` tag (never the URL, which would explode cardinality).
func Classify(err error) (code int, msg string) {
	if err == nil {
		return 0, ""
	}
	if be, ok := errors.AsType[*BlockedError](err); ok {
		return be.Code, be.Msg
	}
	if _, ok := errors.AsType[*TimeoutError](err); ok {
		return CodeTimeout, "request timeout"
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	var (
		dnsErr  *net.DNSError
		opErr   *net.OpError
		uaErr   x509.UnknownAuthorityError
		hostErr x509.HostnameError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
		alert   tls.AlertError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err) && !isDial(err):
		return CodeTimeout, "request timeout"
	case errors.Is(err, context.Canceled):
		return CodeGeneric, "context canceled"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return CodeDNSNoIP, "lookup: no such host"
		}
		return CodeDNS, "lookup: " + dnsErr.Err
	case errors.As(err, &uaErr):
		return CodeUnknownAuthority, "x509: certificate signed by unknown authority"
	case errors.As(err, &hostErr):
		return CodeHostnameMismatch, "x509: certificate is not valid for the host"
	case errors.As(err, &certErr):
		if errors.As(certErr.Err, &uaErr) {
			return CodeUnknownAuthority, "x509: certificate signed by unknown authority"
		}
		if errors.As(certErr.Err, &hostErr) {
			return CodeHostnameMismatch, "x509: certificate is not valid for the host"
		}
		return CodeTLS, "tls: certificate verification failed"
	case errors.As(err, &recErr), errors.As(err, &alert):
		return CodeTLS, "tls: handshake failure"
	case errors.Is(err, syscall.ECONNREFUSED):
		return CodeConnRefused, "dial: connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return CodeConnReset, "read: connection reset by peer"
	case errors.Is(err, syscall.EPIPE):
		return CodeBrokenPipe, "write: broken pipe"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		if opErr.Timeout() {
			return CodeDialTimeout, "dial: i/o timeout"
		}
		return CodeDial, "dial: " + shortErr(opErr.Err)
	case errors.As(err, &opErr):
		return CodeTCP, opErr.Op + ": " + shortErr(opErr.Err)
	}
	s := err.Error()
	switch {
	case strings.Contains(s, "tls:"):
		return CodeTLS, "tls: handshake failure"
	case strings.Contains(s, "http2: server sent GOAWAY"):
		return CodeHTTP2GoAway, "http2: server sent GOAWAY"
	case strings.Contains(s, "stream error"):
		return CodeHTTP2Stream, "http2: stream error"
	case strings.Contains(s, "http2"):
		return CodeHTTP2, "http2: error"
	case strings.Contains(s, "unsupported protocol scheme"), strings.Contains(s, "no Host in request URL"):
		return CodeInvalidURL, "invalid URL"
	case strings.Contains(s, "EOF"):
		return CodeTCP, "EOF"
	}
	return CodeGeneric, "request failed"
}

// StatusCode returns k6's error code for an HTTP status: 1000+status for ≥ 400, else 0.
func StatusCode(status int) int {
	if status >= statusFirstErrorLevel {
		return codeStatusBase + status
	}
	return 0
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func isDial(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// shortErr is the innermost message, without addresses.
func shortErr(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		err = u
	}
	if err == nil {
		return "error"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}
