package redis

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/grafana/sobek"
	goredis "github.com/redis/go-redis/v9"
)

// Defaults of k6's socket options, in seconds.
const (
	defaultDialTimeout = 5
	defaultReadTimeout = 3
)

// newClient makes the go-redis client of a Client's argument: a URL
// (redis[s]://[[username][:password]@][host][:port][/db-number]) or k6's Options
// object. Errors name the option at fault.
func newClient(arg sobek.Value) (goredis.UniversalClient, error) {
	if s, ok := arg.Export().(string); ok {
		o, err := goredis.ParseURL(s)
		if err != nil {
			return nil, fmt.Errorf("url %q: %w", s, err)
		}
		return goredis.NewClient(o), nil
	}
	m, ok := arg.Export().(map[string]any)
	if !ok {
		return nil, errors.New("expected a redis[s]:// URL or an options object")
	}
	u, err := universalOptions(options(m))
	if err != nil {
		return nil, err
	}
	return goredis.NewUniversalClient(u), nil
}

// options is an object of the Options the script passed.
type options map[string]any

// universalOptions reads k6's Options: socket, username, password, clientName,
// database, masterName, sentinelUsername, sentinelPassword and cluster.
func universalOptions(o options) (*goredis.UniversalOptions, error) {
	if err := o.known("", "socket", "username", "password", "clientName", "database", "masterName",
		"sentinelUsername", "sentinelPassword", "cluster"); err != nil {
		return nil, err
	}
	u := &goredis.UniversalOptions{}
	var err error
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{"username", &u.Username}, {"password", &u.Password}, {"clientName", &u.ClientName},
		{"masterName", &u.MasterName}, {"sentinelUsername", &u.SentinelUsername}, {"sentinelPassword", &u.SentinelPassword},
	} {
		if *f.dst, err = o.str(f.name); err != nil {
			return nil, err
		}
	}
	db, err := o.num("database", 0)
	if err != nil {
		return nil, err
	}
	u.DB = int(db)
	if c, ok := o["cluster"]; ok {
		if err := clusterOptions(c, u); err != nil {
			return nil, err
		}
	}
	if s, ok := o["socket"]; ok {
		sm, ok := s.(map[string]any)
		if !ok {
			return nil, errors.New("socket: expected an object")
		}
		addr, err := socketOptions(options(sm), u, "socket.")
		if err != nil {
			return nil, err
		}
		u.Addrs = append(u.Addrs, addr)
	} else if len(u.Addrs) == 0 {
		return nil, errors.New("socket: expected {host, port} (or cluster.nodes)")
	}
	return u, nil
}

// clusterOptions reads cluster: maxRedirects, readOnly, routeByLatency, routeRandomly
// and nodes (URLs or objects with a socket).
func clusterOptions(c any, u *goredis.UniversalOptions) error {
	cm, ok := c.(map[string]any)
	if !ok {
		return errors.New("cluster: expected an object")
	}
	o := options(cm)
	if err := o.known("cluster.", "maxRedirects", "readOnly", "routeByLatency", "routeRandomly", "nodes"); err != nil {
		return err
	}
	u.IsClusterMode = true
	n, err := o.num("maxRedirects", 3)
	if err != nil {
		return fmt.Errorf("cluster.%w", err)
	}
	u.MaxRedirects = int(n)
	for name, dst := range map[string]*bool{"readOnly": &u.ReadOnly, "routeByLatency": &u.RouteByLatency, "routeRandomly": &u.RouteRandomly} {
		if *dst, err = o.boolean(name); err != nil {
			return fmt.Errorf("cluster.%w", err)
		}
	}
	nodes, ok := cm["nodes"].([]any)
	if !ok || len(nodes) == 0 {
		return errors.New("cluster.nodes: expected URLs or objects with a socket")
	}
	for i, node := range nodes {
		if err := clusterNode(node, i, u); err != nil {
			return err
		}
	}
	return nil
}

// clusterNode adds nodes[i] to u's addresses.
func clusterNode(node any, i int, u *goredis.UniversalOptions) error {
	switch n := node.(type) {
	case string:
		o, err := goredis.ParseURL(n)
		if err != nil {
			return fmt.Errorf("cluster.nodes[%d]: %w", i, err)
		}
		u.Addrs = append(u.Addrs, o.Addr)
		u.Username = cmpOr(u.Username, o.Username)
		u.Password = cmpOr(u.Password, o.Password)
		if o.TLSConfig != nil && u.TLSConfig == nil {
			u.TLSConfig = o.TLSConfig
		}
	case map[string]any:
		s, ok := n["socket"].(map[string]any)
		if !ok {
			return fmt.Errorf("cluster.nodes[%d].socket: expected an object", i)
		}
		addr, err := socketOptions(options(s), u, fmt.Sprintf("cluster.nodes[%d].socket.", i))
		if err != nil {
			return err
		}
		u.Addrs = append(u.Addrs, addr)
	default:
		return fmt.Errorf("cluster.nodes[%d]: expected a URL or an object with a socket", i)
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// socketOptions reads a socket (host, port, tls and the pool and timeout settings)
// into u and returns its address.
func socketOptions(o options, u *goredis.UniversalOptions, at string) (string, error) {
	if err := o.known(at, "host", "port", "tls", "dialTimeout", "readTimeout", "writeTimeout", "poolSize",
		"minIdleConns", "maxConnAge", "poolTimeout", "idleTimeout", "idleCheckFrequency"); err != nil {
		return "", err
	}
	host, err := o.str("host")
	if err != nil || host == "" {
		return "", fmt.Errorf("%shost: expected a host name or address", at)
	}
	port, err := o.num("port", 6379)
	if err != nil {
		return "", fmt.Errorf("%s%w", at, err)
	}
	if err := timeouts(o, u); err != nil {
		return "", fmt.Errorf("%s%w", at, err)
	}
	if t, ok := o["tls"]; ok {
		cfg, err := tlsConfig(t, host)
		if err != nil {
			return "", fmt.Errorf("%stls: %w", at, err)
		}
		u.TLSConfig = cfg
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port))), nil
}

// timeouts reads the socket's timeouts (seconds; -1 disables a read or write
// timeout) and pool settings.
func timeouts(o options, u *goredis.UniversalOptions) error {
	secs := func(name string, def float64) (time.Duration, error) {
		v, err := o.num(name, def)
		if err != nil || v < 0 {
			return time.Duration(v), err // -1: go-redis's "no timeout"
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	var err error
	if u.DialTimeout, err = secs("dialTimeout", defaultDialTimeout); err != nil {
		return err
	}
	if u.ReadTimeout, err = secs("readTimeout", defaultReadTimeout); err != nil {
		return err
	}
	if _, set := o["writeTimeout"]; set {
		if u.WriteTimeout, err = secs("writeTimeout", 0); err != nil {
			return err
		}
	} else {
		u.WriteTimeout = u.ReadTimeout
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"maxConnAge", &u.ConnMaxLifetime}, {"poolTimeout", &u.PoolTimeout}, {"idleTimeout", &u.ConnMaxIdleTime}} {
		if *d.dst, err = secs(d.name, 0); err != nil {
			return err
		}
	}
	// go-redis v9 checks a connection's idle time when it takes it from the pool, so
	// idleCheckFrequency (minutes) has nothing left to set; it is checked as a number.
	if _, err := o.num("idleCheckFrequency", 1); err != nil {
		return err
	}
	n, err := o.num("poolSize", 0)
	if err != nil {
		return err
	}
	u.PoolSize = int(n)
	n, err = o.num("minIdleConns", 0)
	u.MinIdleConns = int(n)
	return err
}

// tlsConfig reads socket.tls: ca (PEM certificates), cert and key (PEM, for mutual
// TLS).
func tlsConfig(t any, host string) (*tls.Config, error) {
	m, ok := t.(map[string]any)
	if !ok {
		return nil, errors.New("expected an object")
	}
	if err := options(m).known("", "ca", "cert", "key"); err != nil {
		return nil, err
	}
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if ca, ok := m["ca"]; ok {
		list, ok := ca.([]any)
		if !ok {
			list = []any{ca}
		}
		cfg.RootCAs = x509.NewCertPool()
		for i, c := range list {
			pem, err := pemBytes(c)
			if err != nil || !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("ca[%d]: expected a PEM certificate", i)
			}
		}
	}
	cert, hasCert := m["cert"]
	key, hasKey := m["key"]
	if hasCert != hasKey {
		return nil, errors.New("cert and key: expected both (mutual TLS) or neither")
	}
	if hasCert {
		c, err := pemBytes(cert)
		if err != nil {
			return nil, fmt.Errorf("cert: %w", err)
		}
		k, err := pemBytes(key)
		if err != nil {
			return nil, fmt.Errorf("key: %w", err)
		}
		pair, err := tls.X509KeyPair(c, k)
		if err != nil {
			return nil, fmt.Errorf("cert and key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// pemBytes is a string (open('ca.crt')) or an ArrayBuffer (open(path, 'b')).
func pemBytes(v any) ([]byte, error) {
	switch b := v.(type) {
	case string:
		return []byte(b), nil
	case []byte:
		return b, nil
	case sobek.ArrayBuffer:
		return b.Bytes(), nil
	default:
		return nil, fmt.Errorf("expected a string or an ArrayBuffer, got %T", v)
	}
}

// known fails on a key that is not among names.
func (o options) known(at string, names ...string) error {
	for k := range o {
		found := false
		for _, n := range names {
			found = found || n == k
		}
		if !found {
			return fmt.Errorf("%s%s: unknown option", at, k)
		}
	}
	return nil
}

// str is o[name] as a string ("" when absent).
func (o options) str(name string) (string, error) {
	v, ok := o[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: expected a string", name)
	}
	return s, nil
}

// num is o[name] as a number (def when absent).
func (o options) num(name string, def float64) (float64, error) {
	v, ok := o[name]
	if !ok || v == nil {
		return def, nil
	}
	switch n := v.(type) {
	case int64:
		return float64(n), nil
	case float64:
		if !math.IsNaN(n) {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s: expected a number", name)
}

// boolean is o[name] as a boolean (false when absent).
func (o options) boolean(name string) (bool, error) {
	v, ok := o[name]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: expected a boolean", name)
	}
	return b, nil
}
