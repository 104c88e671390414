package netgrpc

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/grafana/sobek"
	"google.golang.org/grpc/metadata"
)

// defaultTimeout is k6's connect and request timeout.
const defaultTimeout = 60 * time.Second

// connectParams are Client.connect's ConnectParams.
type connectParams struct {
	plaintext, reflect bool
	reflectMD          metadata.MD
	timeout            time.Duration
	maxRecv, maxSend   int
	tls                *tls.Config // nil: the system's roots, no client certificate
}

// callParams are the Params of invoke, asyncInvoke and Stream.
type callParams struct {
	md        metadata.MD
	tags      map[string]string
	timeout   time.Duration
	discard   bool
	authority string
	// timeoutSet says timeout was given: a stream has no deadline by default.
	timeoutSet bool
}

// entries returns v's own properties (none for undefined and null).
func entries(rt *sobek.Runtime, v sobek.Value) (*sobek.Object, []string) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return nil, nil
	}
	o := v.ToObject(rt)
	return o, o.Keys()
}

func parseConnectParams(rt *sobek.Runtime, v sobek.Value) (connectParams, error) {
	p := connectParams{timeout: defaultTimeout}
	o, keys := entries(rt, v)
	var err error
	for _, k := range keys {
		val := o.Get(k)
		switch k {
		case "plaintext":
			p.plaintext = val.ToBoolean()
		case "reflect":
			p.reflect = val.ToBoolean()
		case "reflectMetadata":
			p.reflectMD, err = parseMetadata(rt, val)
		case "timeout":
			p.timeout, err = parseTimeout(val)
		case "maxReceiveSize":
			p.maxRecv, err = parseSize(val)
		case "maxSendSize":
			p.maxSend, err = parseSize(val)
		case "tls":
			p.tls, err = parseTLS(rt, val)
		default:
			err = fmt.Errorf("unknown connect param: %q", k)
		}
		if err != nil {
			return p, fmt.Errorf("connect params: %s: %w", k, err)
		}
	}
	return p, nil
}

func parseCallParams(rt *sobek.Runtime, v sobek.Value) (callParams, error) {
	p := callParams{timeout: defaultTimeout}
	o, keys := entries(rt, v)
	var err error
	for _, k := range keys {
		val := o.Get(k)
		switch k {
		case "metadata":
			p.md, err = parseMetadata(rt, val)
		case "tags":
			p.tags = map[string]string{}
			to, tk := entries(rt, val)
			for _, t := range tk {
				p.tags[t] = to.Get(t).String()
			}
		case "timeout":
			p.timeout, err = parseTimeout(val)
			p.timeoutSet = true
		case "discardResponseMessage":
			p.discard = val.ToBoolean()
		case "authority":
			p.authority = val.String()
		default:
			err = fmt.Errorf("unknown param: %q", k)
		}
		if err != nil {
			return p, fmt.Errorf("params: %s: %w", k, err)
		}
	}
	return p, nil
}

// parseTimeout reads "10s" (a Go duration) or a number of milliseconds.
func parseTimeout(v sobek.Value) (time.Duration, error) {
	switch e := v.Export().(type) {
	case string:
		d, err := time.ParseDuration(e)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration such as \"10s\"", e)
		}
		return d, nil
	case int64:
		return time.Duration(e) * time.Millisecond, nil
	case float64:
		return time.Duration(e * float64(time.Millisecond)), nil
	}
	return 0, fmt.Errorf("expected a duration string or milliseconds, got %s", v.String())
}

func parseSize(v sobek.Value) (int, error) {
	n := v.ToInteger()
	if n <= 0 {
		return 0, fmt.Errorf("expected a positive number of bytes, got %s", v.String())
	}
	return int(n), nil
}

// parseMetadata reads metadata: string values, and bytes (ArrayBuffer, typed arrays)
// for keys ending in -bin.
func parseMetadata(rt *sobek.Runtime, v sobek.Value) (metadata.MD, error) {
	o, keys := entries(rt, v)
	md := metadata.MD{}
	for _, k := range keys {
		val := o.Get(k)
		switch e := val.Export().(type) {
		case string:
			md.Append(k, e)
		case sobek.ArrayBuffer:
			md.Append(k, string(e.Bytes()))
		case []byte:
			md.Append(k, string(e))
		default:
			if !strings.HasSuffix(strings.ToLower(k), "-bin") {
				md.Append(k, val.String())
				continue
			}
			return nil, fmt.Errorf("%q: a -bin key takes a string, ArrayBuffer or Uint8Array", k)
		}
	}
	return md, nil
}

// parseTLS reads tls {cert, key, password, cacerts}.
func parseTLS(rt *sobek.Runtime, v sobek.Value) (*tls.Config, error) {
	o, _ := entries(rt, v)
	if o == nil {
		return nil, nil
	}
	str := func(k string) string {
		if x := o.Get(k); x != nil && !sobek.IsUndefined(x) && !sobek.IsNull(x) {
			return x.String()
		}
		return ""
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if cert, key := str("cert"), str("key"); cert != "" || key != "" {
		pair, err := keyPair(cert, key, str("password"))
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	var cas []string
	switch e := o.Get("cacerts"); {
	case e == nil || sobek.IsUndefined(e) || sobek.IsNull(e):
	default:
		if err := rt.ExportTo(e, &cas); err != nil {
			cas = []string{e.String()}
		}
	}
	if len(cas) > 0 {
		pool := x509.NewCertPool()
		for _, ca := range cas {
			if !pool.AppendCertsFromPEM([]byte(ca)) {
				return nil, errors.New("cacerts: no PEM certificate found")
			}
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// keyPair parses a PEM certificate and key; an encrypted key (legacy PEM encryption)
// is decrypted with password.
func keyPair(cert, key, password string) (tls.Certificate, error) {
	if password != "" {
		block, _ := pem.Decode([]byte(key))
		if block == nil {
			return tls.Certificate{}, errors.New("key: no PEM block found")
		}
		//nolint:staticcheck // k6's tls.password decrypts legacy encrypted PEM keys
		der, err := x509.DecryptPEMBlock(block, []byte(password))
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("key: decrypt with password: %w", err)
		}
		key = string(pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der}))
	}
	pair, err := tls.X509KeyPair([]byte(cert), []byte(key))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("cert and key: %w", err)
	}
	return pair, nil
}
